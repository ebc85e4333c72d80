package spawn

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hookwarden/hookwarden/engine/redact"
	"github.com/hookwarden/hookwarden/internal/fileowner"
)

// RunFailedExit is the exit code of `spawn exec` when a run under a
// redaction entry failed after the spawn (agent_exit found a value, a stop
// count above zero, an unreceipted tool call, a changed run file, or the
// exit hook failed): one line `hookwarden: spawn run failed: <problems>` on
// stderr. 123 is outside the codes the engines use and apart from
// RefusedExit.
const RunFailedExit = 123

// maxHookOutput bounds what spawn exec keeps of a spawner hook's stdout
// and stderr.
const maxHookOutput = 16 << 20

// RunFailure is the typed error of a run under a redaction entry that
// failed after the engine started (ADR-0134 D7): Problems name each
// failure without any table value.
type RunFailure struct{ Problems []string }

// Error returns "<problem>; <problem>…", at most 4096 bytes.
func (f *RunFailure) Error() string {
	s := strings.Join(f.Problems, "; ")
	if len(s) > 4096 {
		s = s[:4093] + "..."
	}
	return s
}

// AsRunFailure returns the *RunFailure in err's chain, or nil.
func AsRunFailure(err error) *RunFailure {
	var f *RunFailure
	if errors.As(err, &f) {
		return f
	}
	return nil
}

// runFile is one of the run's files and the bytes spawn exec last wrote to
// it (ADR-0134 D7 "Edits during a run").
type runFile struct {
	path string
	data []byte
}

// check returns a problem when the file's bytes, owner or mode differ from
// what spawn exec wrote ("" when they match).
func (f runFile) check(what string) string {
	fi, err := os.Lstat(f.path)
	if err != nil {
		return fmt.Sprintf("the %s %s: %v", what, f.path, err)
	}
	if !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600 || !fileowner.Self(fi) {
		return fmt.Sprintf("the %s %s is no longer this account's 0600 file (%v)", what, f.path, fi.Mode())
	}
	b, err := os.ReadFile(f.path)
	if err != nil {
		return fmt.Sprintf("the %s %s: %v", what, f.path, err)
	}
	if !bytes.Equal(b, f.data) {
		return fmt.Sprintf("the %s %s changed during the run", what, f.path)
	}
	return ""
}

// createRunFile creates path exclusively with mode 0600 holding data.
func createRunFile(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	if err := f.Chmod(0o600); werr == nil {
		werr = err
	}
	if err := f.Close(); werr == nil {
		werr = err
	}
	return werr
}

// newSessionID returns a random version-4 UUID (Claude's --session-id
// takes a UUID).
func newSessionID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16]), nil
}

// claudeProjectSlug is Claude Code 2.1.328's directory name for a working
// directory under <config dir>/projects: every byte outside A-Z, a-z and
// 0-9 becomes "-" (bundle: e.replace(/[^a-zA-Z0-9]/g,"-")); a name over
// 200 characters gets a hash suffix this code does not compute, so it
// returns false then.
func claudeProjectSlug(cwd string) (string, bool) {
	b := []byte(cwd)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			b[i] = '-'
		}
	}
	return string(b), len(b) <= 200
}

// claudeTranscript derives the transcript of session id for a Claude
// spawn with env and working directory cwd: <CLAUDE_CONFIG_DIR, else
// $HOME/.claude>/projects/<slug of cwd's real path>/<id>.jsonl (the layout
// of testdata/clients/claude/2.1.328 payloads' transcript_path, checked
// against the path the engine names to its hooks by
// TestRealClaudeRedactionRun). It returns "" when it cannot be derived.
func claudeTranscript(env []string, cwd, id string) string {
	dir := getenvFrom(env, "CLAUDE_CONFIG_DIR")
	if dir == "" {
		h := getenvFrom(env, "HOME")
		if h == "" {
			return ""
		}
		dir = filepath.Join(h, ".claude")
	}
	if real, err := filepath.EvalSymlinks(cwd); err == nil {
		cwd = real
	}
	slug, ok := claudeProjectSlug(cwd)
	if !ok || !filepath.IsAbs(dir) {
		return ""
	}
	return filepath.Join(dir, "projects", slug, id+".jsonl")
}

// cappedBuffer keeps at most limit bytes and notes that more came.
type cappedBuffer struct {
	bytes.Buffer
	limit int
	over  bool
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	if room := c.limit - c.Len(); len(p) > room {
		c.Buffer.Write(p[:max(room, 0)])
		c.over = true
		return len(p), nil
	}
	return c.Buffer.Write(p)
}

// runSpawnerHook runs one of the spawner's own hooks (agent_prompt,
// agent_exit) with stdin, env and cwd under its timeout (seconds); a
// process left holding its pipes is abandoned 2 s after the hook ends or
// is killed. It returns stdout, the first 4 KiB of stderr, and an error for
// a timeout, a failure to start, a non-zero exit or output past
// maxHookOutput.
func runSpawnerHook(ctx context.Context, h CompiledHook, env []string, cwd string, stdin []byte) ([]byte, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Duration(h.Timeout)*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, h.Argv[0], h.Argv[1:]...)
	cmd.Env, cmd.Dir, cmd.Stdin = env, cwd, bytes.NewReader(stdin)
	out, errb := &cappedBuffer{limit: maxHookOutput}, &cappedBuffer{limit: 4096}
	cmd.Stdout, cmd.Stderr = out, errb
	cmd.WaitDelay = 2 * time.Second
	err := cmd.Run()
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return nil, errb.Bytes(), fmt.Errorf("hook %q timed out after %d s", h.Hook, h.Timeout)
	case err != nil:
		return nil, errb.Bytes(), fmt.Errorf("hook %q: %v", h.Hook, err)
	case out.over:
		return nil, errb.Bytes(), fmt.Errorf("hook %q printed more than %d bytes", h.Hook, maxHookOutput)
	}
	return out.Bytes(), errb.Bytes(), nil
}

// redactionEnv returns env without any HOOKWARDEN_HOOK_TABLE, _RECEIPTS or
// _POLICY the caller set, then with the run's three files.
func redactionEnv(env []string, table, receipts, policy string) []string {
	out := slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		return k == redact.EnvTable || k == redact.EnvReceipts || k == redact.EnvPolicy
	})
	return append(out, redact.EnvTable+"="+table, redact.EnvReceipts+"="+receipts, redact.EnvPolicy+"="+policy)
}

// execRedacted runs one Claude spawn under a redaction entry (ADR-0134 D7),
// after Compile passed: it reads the caller's argv (parseClaudeRedactArgs),
// creates the run's table, receipts and read policy (exclusive, 0600, in
// the 0700 run directory beside the render), fires agent_prompt with every
// model-input text, reads the table the hook wrote, adds the named part of
// the environment and argv under minted tokens and writes it back through a
// temporary file and a rename, refuses a returned text or an output schema
// holding a table value, chooses the session id (--session-id) and spawns
// the engine with the returned texts, the run files' paths in its
// environment and an empty stdin. When the engine exits it compares the
// table, read policy and render with the bytes it wrote, writes its own
// bytes back, fires agent_exit (table_sha256, exit, session id, the derived
// transcript) and fails the run (RunFailedExit, *RunFailure) on any
// difference, a transcript path a hook named that is not the session's, or
// a failed exit hook. Exec removes every run file when it returns.
func execRedacted(ctx context.Context, opts ExecOptions, r *Render, bin string, args, tail, env []string) (int, error) {
	all := append(slices.Clone(args), tail...)
	pa, err := parseClaudeRedactArgs(all)
	if err != nil {
		return RefusedExit, err
	}
	dir := filepath.Join(opts.Home, RunHooksDir)
	base := filepath.Join(dir, r.RunID)
	tablePath, receiptsPath, policyPath := base+".table.json", base+".receipts.jsonl", base+".policy.json"
	cwd := opts.Cwd
	if real, err := filepath.EvalSymlinks(cwd); err == nil {
		cwd = real
	}
	baseline, err := redactionBaseline(r)
	if err != nil {
		return RefusedExit, refuse(ReasonCompileFailed, "%v", err)
	}
	// a native resume: only of a session a run record shows passing
	// agent_exit under this baseline, its transcript unchanged (resume.go)
	var resumed *runRecord
	var history, receiptsStart []byte
	if pa.Resume != "" {
		if pa.SessionID != "" {
			return RefusedExit, refuse(ReasonRedactionResume, "--session-id beside --resume would fork the session under a new id")
		}
		if resumed, history, err = checkResume(opts.Home, r, baseline, pa.Resume, claudeTranscript(env, opts.Cwd, pa.Resume), cwd); err != nil {
			return RefusedExit, err
		}
		receiptsStart = resumedReceipts(r.Engine, resumed.Receipted)
	}
	var route *mcpRoute
	var mcpNamed []namedValue
	mcpUpstreamPath, mcpEnginePath := base+".mcp-upstream.json", base+".mcp.json"
	if len(pa.MCPConfigs) > 0 {
		servers, err := readMCPConfigs(pa.MCPConfigs, opts.Cwd)
		if err != nil {
			return RefusedExit, err
		}
		mcpNamed, err = mcpSecrets(servers, opts.SecretNames)
		if err != nil {
			return RefusedExit, err
		}
		if route, err = buildMCPRoute(servers, opts.MCPProxy, mcpUpstreamPath, tablePath, receiptsPath); err != nil {
			return RefusedExit, err
		}
	}
	pol := redact.Policy{Version: 1, Allow: []string{cwd}, Deny: []string{dir}}
	if route != nil {
		pol.MCPServers = route.Servers
	}
	for _, d := range pa.AddDirs {
		if !filepath.IsAbs(d) {
			d = filepath.Join(opts.Cwd, d)
		}
		pol.Allow = append(pol.Allow, filepath.Clean(d))
	}
	polBytes, _ := json.Marshal(pol)
	polBytes = append(polBytes, '\n')
	created := []struct {
		path string
		data []byte
	}{{tablePath, nil}, {receiptsPath, receiptsStart}, {policyPath, polBytes}}
	if route != nil {
		created = append(created, struct {
			path string
			data []byte
		}{mcpUpstreamPath, route.upstream}, struct {
			path string
			data []byte
		}{mcpEnginePath, route.engine})
	}
	for _, f := range created {
		r.Files = append(r.Files, f.path)
		if err := createRunFile(f.path, f.data); err != nil {
			if errors.Is(err, fs.ErrExist) {
				r.Files = r.Files[:len(r.Files)-1] // never remove a file this call did not create
				return RefusedExit, refuse(ReasonRunFileExists, "%s already exists", f.path)
			}
			return RefusedExit, refuse(ReasonRunFileUnwritable, "%s: %v", f.path, err)
		}
	}
	renderBytes, err := os.ReadFile(r.Files[0])
	if err != nil {
		return RefusedExit, refuse(ReasonRunFileUnwritable, "%s: %v", r.Files[0], err)
	}
	henv := redactionEnv(env, tablePath, receiptsPath, policyPath)

	// agent_prompt
	type text = redact.PromptText
	in := redact.PromptPayload{Version: 1, RunID: r.RunID, Engine: r.Engine, Child: 1, Texts: []text{}}
	for _, s := range pa.Slots {
		in.Texts = append(in.Texts, text{Channel: s.Channel, Text: s.Text})
	}
	payload, _ := json.Marshal(in)
	// the hook's stderr is not shown: no table exists yet to redact it with
	out, _, err := runSpawnerHook(ctx, r.Redaction.Prompt, henv, opts.Cwd, payload)
	if err != nil {
		return RefusedExit, refuse(ReasonRedactionPromptHook, "agent_prompt: %v", err)
	}
	var reply struct {
		Texts []text `json:"texts"`
	}
	if err := decodeStrict(bytes.TrimSpace(out), &reply); err != nil || reply.Texts == nil || len(reply.Texts) != len(in.Texts) {
		return RefusedExit, refuse(ReasonRedactionPromptHook, "agent_prompt: the reply is not {\"texts\":[…]} with the %d channel(s) sent", len(in.Texts))
	}
	texts := make([]string, len(reply.Texts))
	for i, t := range reply.Texts {
		if t.Channel != in.Texts[i].Channel {
			return RefusedExit, refuse(ReasonRedactionPromptHook, "agent_prompt: reply channel %d is %q, want %q", i, t.Channel, in.Texts[i].Channel)
		}
		texts[i] = t.Text
	}

	// the table: the hook's part as written, then the named part
	tab, _, _, err := redact.LoadTable(tablePath)
	if err != nil {
		return RefusedExit, refuse(ReasonRedactionTable, "after agent_prompt: %v", err)
	}
	named, err := namedSecrets(env, all, opts.SecretNames)
	if err != nil {
		return RefusedExit, refuse(ReasonRedactionTable, "%v", err)
	}
	named = append(named, mcpNamed...)
	have := map[string]bool{}
	for _, v := range tab.Values {
		have[v] = true
	}
	for _, n := range named {
		if have[n.Value] {
			continue
		}
		tok := mintToken(n.Name, func(t string) bool { _, ok := tab.Values[t]; return ok })
		tab.Values[tok] = n.Value
		have[n.Value] = true
	}
	tableBytes, err := tab.Marshal()
	if err != nil {
		return RefusedExit, refuse(ReasonRedactionTable, "%v", err)
	}
	_, m, err := redact.ParseTable(tableBytes)
	if err != nil {
		return RefusedExit, refuse(ReasonRedactionTable, "the run's secret set cannot be matched: %v", err)
	}
	if err := redact.WriteRunFile(tablePath, tableBytes); err != nil {
		return RefusedExit, refuse(ReasonRunFileUnwritable, "%v", err)
	}

	// the prompt check, then the output schema
	for i, t := range texts {
		if m.Contains([]byte(t)) {
			return RefusedExit, refuse(ReasonRedactionPromptRaw, "the text of channel %q still holds a value of the run's table after agent_prompt", in.Texts[i].Channel)
		}
	}
	if pa.Schema >= 0 && m.Contains([]byte(all[pa.Schema])) {
		return RefusedExit, refuse(ReasonRedactionSchema, "--json-schema holds a value of the run's table; the schema is model input and is never rewritten")
	}
	final, err := pa.apply(all, texts)
	if err != nil {
		return RefusedExit, refuse(ReasonCompileFailed, "rewrite the prompt arguments: %v", err)
	}
	for _, s := range pa.Slots {
		if m.Contains([]byte(final[s.Index])) {
			return RefusedExit, refuse(ReasonRedactionPromptRaw, "the argument carrying channel %q still holds a value of the run's table", s.Channel)
		}
	}
	final = pa.withoutMCP(final)
	if resumed != nil && m.Contains(history) {
		return RefusedExit, refuse(ReasonRedactionResume, "session %s's transcript holds a value of this run's table (one its recorded run's table lacked); the engine would load it into the model's context", pa.Resume)
	}

	sid := pa.SessionID
	extra := slices.Clone(r.Args)
	if pa.Resume != "" {
		sid = pa.Resume // the engine continues that session and its transcript
	} else if sid == "" {
		if sid, err = newSessionID(); err != nil {
			return RefusedExit, refuse(ReasonCompileFailed, "session id: %v", err)
		}
		extra = append(extra, "--session-id", sid)
	}
	if route != nil {
		// the render's --strict-mcp-config makes these the only servers
		extra = append(extra, "--mcp-config", mcpEnginePath)
	}
	at := slices.Index(final, "--")
	if at < 0 {
		at = len(final)
	}
	argv := append([]string{bin}, final[:at]...)
	argv = append(argv, extra...)
	argv = append(argv, final[at:]...)
	files := []struct {
		what string
		f    runFile
	}{{"table", runFile{tablePath, tableBytes}}, {"read policy", runFile{policyPath, polBytes}}, {"render", runFile{r.Files[0], renderBytes}}}
	if route != nil {
		files = append(files, struct {
			what string
			f    runFile
		}{"MCP upstream configuration", runFile{mcpUpstreamPath, route.upstream}}, struct {
			what string
			f    runFile
		}{"MCP proxy configuration", runFile{mcpEnginePath, route.engine}})
	}
	for _, f := range files {
		if p := f.f.check(f.what); p != "" {
			return RefusedExit, refuse(ReasonRedactionTable, "before the spawn: %s", p)
		}
	}

	code, sig, err := runEngine(ctx, opts, r, exec.Cmd{Path: bin, Args: argv, Dir: opts.Cwd, Env: henv,
		Stdout: opts.Stdout, Stderr: opts.Stderr})
	if AsRefusal(err) != nil {
		return code, err
	}
	var problems []string
	if err != nil {
		problems = append(problems, err.Error())
	}

	// before agent_exit: compare, then write spawn exec's own bytes back
	for _, f := range files {
		if p := f.f.check(f.what); p != "" {
			problems = append(problems, p)
			if err := redact.WriteRunFile(f.f.path, f.f.data); err != nil {
				problems = append(problems, fmt.Sprintf("restore the %s: %v", f.what, err))
			}
		}
	}
	transcript := claudeTranscript(henv, opts.Cwd, sid)
	if rb, err := redact.ReadPrivate(receiptsPath); err == nil {
		for _, ln := range bytes.Split(rb, []byte("\n")) {
			var rc redact.Receipt
			if json.Unmarshal(ln, &rc) == nil && rc.Transcript != "" && rc.Transcript != transcript {
				problems = append(problems, fmt.Sprintf("a %s hook named the transcript %s, not the session's %s", rc.Event, rc.Transcript, transcript))
				break
			}
		}
	}
	exitInfo := map[string]any{"code": code}
	if sig != "" {
		exitInfo = map[string]any{"signal": sig}
	}
	var tp *string
	if transcript != "" {
		tp = &transcript
	}
	xp, _ := json.Marshal(map[string]any{"version": 1, "run_id": r.RunID, "engine": r.Engine, "child": 1,
		"table_sha256": redact.Digest(tableBytes), "exit": exitInfo, "session_id": sid, "transcript": tp})
	// a cancelled run still waits for the scan, up to the hook's timeout
	if _, stderr, err := runSpawnerHook(context.WithoutCancel(ctx), r.Redaction.Exit, henv, opts.Cwd, xp); err != nil {
		p := "agent_exit: " + err.Error()
		if red, _, rerr := m.Redact(bytes.TrimSpace(stderr)); rerr == nil && len(red) > 0 {
			p += ": " + string(red)
		}
		problems = append(problems, p)
	}
	if len(problems) > 0 {
		if err := removeRunRecord(opts.Home, sid); err != nil {
			problems = append(problems, fmt.Sprintf("remove the run record of session %s: %v", sid, err))
		}
		return RunFailedExit, &RunFailure{Problems: problems}
	}
	// passed: record the session so a later resume can be checked
	if err := recordSession(opts.Home, r, baseline, tableBytes, cwd, sid, transcript, receiptsPath); err != nil && opts.Stderr != nil {
		fmt.Fprintf(opts.Stderr, "hookwarden: spawn: run record of session %s not written (a resume of it will be refused): %v\n", sid, err)
	}
	return code, nil
}
