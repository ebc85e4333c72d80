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

	"github.com/hookwarden/hookwarden/internal/fileowner"
	"github.com/hookwarden/hookwarden/spawn/redact"
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

// findTranscript returns derived when it exists, else the one transcript
// of session sid under the Claude configuration directory env names
// (<dir>/projects/*/<sid>.jsonl: the session id, not the working
// directory, identifies it, so a run whose working directory moved or
// was renamed is still scanned), else "" when none or several match.
func findTranscript(env []string, derived, sid string) string {
	if derived != "" {
		if _, err := os.Lstat(derived); err == nil {
			return derived
		}
	}
	dir := getenvFrom(env, "CLAUDE_CONFIG_DIR")
	if dir == "" {
		if h := getenvFrom(env, "HOME"); h != "" {
			dir = filepath.Join(h, ".claude")
		}
	}
	if dir == "" || sid == "" || strings.ContainsAny(sid, "/*?[\\") {
		return ""
	}
	ms, _ := filepath.Glob(filepath.Join(dir, "projects", "*", sid+".jsonl"))
	if len(ms) != 1 {
		return ""
	}
	return ms[0]
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
		return nil, errb.Bytes(), fmt.Errorf("hook %q: %w", h.Hook, err)
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

// heldFile is one run file spawn exec compares before each later child's
// spawn and before each agent_exit, under the name a problem gives it.
type heldFile struct {
	what string
	f    runFile
}

// redactRun is one run under a redaction entry (ADR-0134 D7): what stays
// the same for every child (the render, the run's files and their paths,
// the engine's environment, the baseline), the table as spawn exec holds
// it in memory after child 1's agent_prompt, and the session every child
// continues.
type redactRun struct {
	opts                                ExecOptions
	r                                   *Render
	bin                                 string
	env                                 []string // the caller's environment for the engine (before the run files' paths)
	tablePath, receiptsPath, policyPath string
	mcpEnginePath                       string
	route                               *mcpRoute
	mcpNamed                            []namedValue
	resumed                             *runRecord
	history                             []byte     // a native resume's transcript as checkResume read it
	files                               []heldFile // table first
	tab                                 *redact.Table
	m                                   *redact.Matcher
	sid, transcript                     string
	waitErr                             error     // the last child's wait error (no process state), reported by exit
	gw                                  *tripwire // the model-traffic tripwire every child's model requests pass
	stopsSeen                           int       // the gateway's stops already reported
	outProblems                         []string  // what the last child's output guards found, reported by exit
	reapProblems                        []string  // what the last child's reaper reported (runReaped), reported by exit
	tmpDir                              string    // the engine's CLAUDE_CODE_TMPDIR (claudeTmpDirEnv)
}

// tableBytes returns the table's bytes as spawn exec last wrote them.
func (x *redactRun) tableBytes() []byte { return x.files[0].f.data }

// compare returns a problem for each held file whose bytes, owner or mode
// differ from what spawn exec wrote, prefixed with when.
func (x *redactRun) compare(when string) []string {
	var out []string
	for _, f := range x.files {
		if p := f.f.check(f.what); p != "" {
			out = append(out, when+": "+p)
		}
	}
	return out
}

// execRedacted runs a Claude spawn under a redaction entry (ADR-0134 D7),
// after Compile passed: it reads the caller's argv (parseClaudeRedactArgs),
// creates the run's table, receipts and read policy (exclusive, 0600, in
// the 0700 run directory beside the render), then runs child 1 (child)
// and fires its agent_exit (exit). With --auto-finish, when child 1's
// result says the turn limit stopped it and its agent_exit passed, child 2
// resumes the session with the continuation's prompt (continuationArgs)
// under the same render and run files. A problem of any child fails the
// run (RunFailedExit, *RunFailure) and removes the session's run record;
// a run whose children all passed writes it. Exec removes every run file
// when it returns.
func execRedacted(ctx context.Context, opts ExecOptions, r *Render, bin string, args, tail, env []string) (int, error) {
	all := append(slices.Clone(args), tail...)
	pa, err := parseClaudeRedactArgs(all)
	if err != nil {
		return RefusedExit, err
	}
	dir := filepath.Join(opts.Home, RunHooksDir)
	base := filepath.Join(dir, r.RunID)
	x := &redactRun{opts: opts, r: r, bin: bin, env: env,
		tablePath: base + ".table.json", receiptsPath: base + ".receipts.jsonl", policyPath: base + ".policy.json",
		mcpEnginePath: base + ".mcp.json"}
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
	var receiptsStart []byte
	if pa.Resume != "" {
		if pa.SessionID != "" {
			return RefusedExit, refuse(ReasonRedactionResume, "--session-id beside --resume would fork the session under a new id")
		}
		if x.resumed, x.history, err = checkResume(opts.Home, r, baseline, pa.Resume, claudeTranscript(env, opts.Cwd, pa.Resume), cwd); err != nil {
			return RefusedExit, err
		}
		receiptsStart = resumedReceipts(r.Engine, x.resumed.Receipted)
	}
	mcpUpstreamPath := base + ".mcp-upstream.json"
	if len(pa.MCPConfigs) > 0 {
		servers, err := readMCPConfigs(pa.MCPConfigs, opts.Cwd)
		if err != nil {
			return RefusedExit, err
		}
		x.mcpNamed, err = mcpSecrets(servers, opts.SecretNames)
		if err != nil {
			return RefusedExit, err
		}
		if x.route, err = buildMCPRoute(servers, opts.MCPProxy, mcpUpstreamPath, x.tablePath, x.receiptsPath); err != nil {
			return RefusedExit, err
		}
	}
	// the model-traffic tripwire: every model request of every child
	// passes it (it judges nothing until the child's table is set)
	gw, err := startTripwire(ctx, opts.Gateway, env)
	if err != nil {
		return RefusedExit, err
	}
	defer gw.close()
	// the engine's own temporary files (task output, saved results) go to
	// a directory of the run's, scanned after each child and removed
	tmp, err := os.MkdirTemp("", "hookwarden-claude-")
	if err != nil {
		return RefusedExit, refuse(ReasonRunFileUnwritable, "the engine's temporary directory: %v", err)
	}
	defer os.RemoveAll(tmp)
	x.gw, x.tmpDir = gw, tmp
	pol := redact.Policy{Version: 1, Allow: []string{cwd}, Deny: []string{dir}}
	if x.route != nil {
		pol.MCPServers = x.route.Servers
	}
	for _, d := range pa.AddDirs {
		if !filepath.IsAbs(d) {
			d = filepath.Join(opts.Cwd, d)
		}
		pol.Allow = append(pol.Allow, filepath.Clean(d))
	}
	polBytes, _ := json.Marshal(pol)
	polBytes = append(polBytes, '\n')
	created := []runFile{{x.tablePath, nil}, {x.receiptsPath, receiptsStart}, {x.policyPath, polBytes}}
	if x.route != nil {
		created = append(created, runFile{mcpUpstreamPath, x.route.upstream}, runFile{x.mcpEnginePath, x.route.engine})
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
	// the table's held bytes are set once child 1's agent_prompt ran
	x.files = []heldFile{{"table", runFile{x.tablePath, nil}}, {"read policy", runFile{x.policyPath, polBytes}}, {"render", runFile{r.Files[0], renderBytes}}}
	if x.route != nil {
		x.files = append(x.files, heldFile{"MCP upstream configuration", runFile{mcpUpstreamPath, x.route.upstream}},
			heldFile{"MCP proxy configuration", runFile{x.mcpEnginePath, x.route.engine}})
	}

	var watch *resultWatch // child 1's result, read only for a continuation
	if opts.AutoFinish != "" {
		watch = &resultWatch{}
	}
	code, sig, err := x.child(ctx, 1, all, pa, env, watch)
	if err != nil {
		return code, err // a refusal: child 1 did not start
	}
	problems := x.exit(ctx, 1, code, sig)
	var again string // the session child 1's result says is unfinished
	if watch != nil {
		again = watch.unfinished()
	}
	if again != "" && again != x.sid {
		problems = append(problems, fmt.Sprintf("child 1's result names session %s, not the session %s it ran; no continuation", again, x.sid))
	}
	if len(problems) == 0 && again != "" && ctx.Err() == nil {
		// child 2 continues the session spawn exec chose (or resumed)
		var cont []string
		var pa2 *claudeRedactArgv
		if cont, err = continuationArgs(all, x.sid, opts.AutoFinish); err == nil {
			pa2, err = parseClaudeRedactArgs(cont)
		}
		if err != nil {
			problems = append(problems, "child 2: "+err.Error())
		} else {
			continuationNote(opts, x.sid)
			env2 := append(slices.Clone(env), opts.contEnv...)
			if code, sig, err = x.child(ctx, 2, cont, pa2, env2, nil); err != nil {
				if f := AsRunFailure(err); f != nil {
					problems = append(problems, f.Problems...)
				} else {
					problems = append(problems, "child 2: "+err.Error())
				}
			} else {
				problems = x.exit(ctx, 2, code, sig)
			}
		}
	}
	if len(problems) > 0 {
		if err := removeRunRecord(opts.Home, x.sid); err != nil {
			problems = append(problems, fmt.Sprintf("remove the run record of session %s: %v", x.sid, err))
		}
		return RunFailedExit, &RunFailure{Problems: problems}
	}
	// passed: record the session so a later resume can be checked
	if err := recordSession(opts.Home, r, baseline, x.tableBytes(), cwd, x.sid, x.transcript, x.receiptsPath); err != nil && opts.Stderr != nil {
		fmt.Fprintf(opts.Stderr, "hookwarden: spawn: run record of session %s not written (a resume of it will be refused): %v\n", x.sid, err)
	}
	return code, nil
}

// child spawns child n of the run with the caller's arguments all (read
// as pa) and the environment env, in ADR-0134 D7's order: for a child
// after the first, the comparison of every held file; agent_prompt with
// every model-input text; at child 1 the table the hook wrote read once
// from disk, at a later child nothing read; the named part of env and all
// added under minted tokens and the table written from memory through a
// temporary file and a rename; the prompt and output-schema checks (and
// for a later child, the session's transcript checked against the whole
// table, since the engine loads it); the held files compared again; the
// spawn (child 1 with --session-id unless it resumes or the caller chose
// one, a later child with the --resume its args carry), stdout also to
// watch when set, an empty stdin. It returns the engine's exit code and
// signal. An error means the child did not start: a *Refusal for child 1,
// a *RunFailure for a later child.
func (x *redactRun) child(ctx context.Context, n int, all []string, pa *claudeRedactArgv, env []string, watch *resultWatch) (int, string, error) {
	r, opts := x.r, x.opts
	fail := func(reason Reason, format string, a ...any) (int, string, error) {
		if n == 1 {
			return RefusedExit, "", refuse(reason, format, a...)
		}
		return RunFailedExit, "", &RunFailure{Problems: []string{fmt.Sprintf("child %d: %s: %s", n, reason, fmt.Sprintf(format, a...))}}
	}
	if n > 1 {
		if p := x.compare(fmt.Sprintf("before child %d's spawn", n)); len(p) > 0 {
			return RunFailedExit, "", &RunFailure{Problems: p}
		}
	}
	henv := redactionEnv(env, x.tablePath, x.receiptsPath, x.policyPath)

	// agent_prompt
	type text = redact.PromptText
	in := redact.PromptPayload{Version: 1, RunID: r.RunID, Engine: r.Engine, Child: n, Texts: []text{}}
	for _, s := range pa.Slots {
		in.Texts = append(in.Texts, text{Channel: s.Channel, Text: s.Text})
	}
	payload, _ := json.Marshal(in)
	// the hook's stderr is not shown (at child 1 no table exists yet to
	// redact it with), except a usage message of `hookwarden redact` on
	// exit 2, a constant that holds nothing from the hook's input
	out, stderr, err := runSpawnerHook(ctx, r.Redaction.Prompt, henv, opts.Cwd, payload)
	if err != nil {
		var ee *exec.ExitError
		if msg, ok := redact.UsageMessage(stderr); ok && errors.As(err, &ee) && ee.ExitCode() == 2 {
			return fail(ReasonRedactionPromptHook, "agent_prompt: %v: %s", err, msg)
		}
		return fail(ReasonRedactionPromptHook, "agent_prompt: %v", err)
	}
	var reply struct {
		Texts []text `json:"texts"`
	}
	if err := decodeStrict(bytes.TrimSpace(out), &reply); err != nil || reply.Texts == nil || len(reply.Texts) != len(in.Texts) {
		return fail(ReasonRedactionPromptHook, "agent_prompt: the reply is not {\"texts\":[…]} with the %d channel(s) sent", len(in.Texts))
	}
	texts := make([]string, len(reply.Texts))
	for i, t := range reply.Texts {
		if t.Channel != in.Texts[i].Channel {
			return fail(ReasonRedactionPromptHook, "agent_prompt: reply channel %d is %q, want %q", i, t.Channel, in.Texts[i].Channel)
		}
		texts[i] = t.Text
	}

	// the table: at child 1 the hook's part as written, then the named
	// part; never built from the disk after that
	if n == 1 {
		tab, _, _, err := redact.LoadTable(x.tablePath)
		if err != nil {
			return fail(ReasonRedactionTable, "after agent_prompt: %v", err)
		}
		x.tab = tab
	}
	named, err := namedSecrets(env, all, opts.SecretNames)
	if err != nil {
		return fail(ReasonRedactionTable, "%v", err)
	}
	named = append(named, x.mcpNamed...)
	have := map[string]bool{}
	for _, v := range x.tab.Values {
		have[v] = true
	}
	for _, nv := range named {
		if have[nv.Value] {
			continue
		}
		tok := mintToken(nv.Name, func(t string) bool { _, ok := x.tab.Values[t]; return ok })
		x.tab.Values[tok] = nv.Value
		have[nv.Value] = true
	}
	tableBytes, err := x.tab.Marshal()
	if err != nil {
		return fail(ReasonRedactionTable, "%v", err)
	}
	_, m, err := redact.ParseTable(tableBytes)
	if err != nil {
		return fail(ReasonRedactionTable, "the run's secret set cannot be matched: %v", err)
	}
	if err := redact.WriteRunFile(x.tablePath, tableBytes); err != nil {
		return fail(ReasonRunFileUnwritable, "%v", err)
	}
	x.m, x.files[0].f.data = m, tableBytes
	wm, err := redact.NewWireMatcher(x.tab.Values)
	if err != nil {
		return fail(ReasonRedactionTable, "the run's encoded forms cannot be matched: %v", err)
	}
	if err := x.gw.setTable(x.tablePath, redact.Digest(tableBytes)); err != nil {
		return fail(ReasonRedactionUpstream, "%v", err)
	}

	// the prompt check, then the output schema
	for i, t := range texts {
		if m.Contains([]byte(t)) {
			return fail(ReasonRedactionPromptRaw, "the text of channel %q still holds a value of the run's table after agent_prompt", in.Texts[i].Channel)
		}
	}
	if pa.Schema >= 0 && m.Contains([]byte(all[pa.Schema])) {
		return fail(ReasonRedactionSchema, "--json-schema holds a value of the run's table; the schema is model input and is never rewritten")
	}
	final, err := pa.apply(all, texts)
	if err != nil {
		return fail(ReasonCompileFailed, "rewrite the prompt arguments: %v", err)
	}
	for _, s := range pa.Slots {
		if m.Contains([]byte(final[s.Index])) {
			return fail(ReasonRedactionPromptRaw, "the argument carrying channel %q still holds a value of the run's table", s.Channel)
		}
		if s.Channel != "prompt" {
			continue
		}
		if at, ok := fileMention(final[s.Index], opts.Cwd, getenvFrom(env, "HOME")); ok {
			return fail(ReasonRedactionPromptFile, "the prompt mentions %s, an existing path the engine would expand into the model request itself, past agent_prompt; pass the file's contents in the prompt instead", at)
		}
	}
	final = pa.withoutMCP(final)
	switch {
	case n == 1 && x.resumed != nil && m.Contains(x.history):
		return fail(ReasonRedactionResume, "session %s's transcript holds a value of this run's table (one its recorded run's table lacked); the engine would load it into the model's context", pa.Resume)
	case n > 1:
		// the continuation loads the session child 1 wrote, which its
		// agent_exit scanned against the table as it was then
		// (a hit is scrubbed here: no agent_exit follows for a child that
		// never started)
		if b, err := readTranscriptFile(x.transcript); err != nil {
			return fail(ReasonRedactionResume, "session %s's transcript: %v", x.sid, err)
		} else if found, err := redact.ScrubTranscript(x.transcript, b, m); found > 0 || err != nil {
			scrub := "scrubbed"
			if err != nil {
				scrub = "not scrubbed: " + err.Error()
			}
			return fail(ReasonRedactionResume, "session %s's transcript held %d occurrence(s) of a value of the table child %d carries (%s); the engine would load it into the model's context", x.sid, found, n, scrub)
		}
	}

	extra := slices.Clone(r.Args)
	switch {
	case pa.Resume != "":
		x.sid = pa.Resume // the engine continues that session and its transcript
	case pa.SessionID != "":
		x.sid = pa.SessionID
	default:
		if x.sid, err = newSessionID(); err != nil {
			return fail(ReasonCompileFailed, "session id: %v", err)
		}
		extra = append(extra, "--session-id", x.sid)
	}
	x.transcript = claudeTranscript(henv, opts.Cwd, x.sid)
	if x.route != nil {
		// the render's --strict-mcp-config makes these the only servers
		extra = append(extra, "--mcp-config", x.mcpEnginePath)
	}
	at := slices.Index(final, "--")
	if at < 0 {
		at = len(final)
	}
	argv := append([]string{x.bin}, final[:at]...)
	argv = append(argv, extra...)
	argv = append(argv, final[at:]...)
	if p := x.compare("before the spawn"); len(p) > 0 {
		if n == 1 {
			return RefusedExit, "", refuse(ReasonRedactionTable, "%s", strings.Join(p, "; "))
		}
		return RunFailedExit, "", &RunFailure{Problems: p}
	}
	// the engine's stdout and stderr reach the caller through the run's
	// matchers (outguard.go)
	so, se := newOutGuard(opts.Stdout, "stdout", m, wm), newOutGuard(opts.Stderr, "stderr", m, wm)
	stdout, errw := guardWriter(so), guardWriter(se)
	if watch != nil {
		stdout = watch.tee(stdout)
	}
	code, sig, err := x.runReaped(ctx, n, argv, exec.Cmd{Dir: opts.Cwd, Env: x.engineEnv(henv), Stdout: stdout, Stderr: errw})
	x.outProblems = append(so.Flush(), se.Flush()...)
	if AsRefusal(err) != nil {
		if n == 1 {
			return code, "", err
		}
		return RunFailedExit, "", &RunFailure{Problems: []string{fmt.Sprintf("child %d: %v", n, err)}}
	}
	if err != nil {
		// waited but without a process state: the exit hook still runs
		x.waitErr = err
	}
	return code, sig, nil
}

// exit runs after child n exited with code (or signal sig): it compares
// the held files and writes spawn exec's bytes back over any that
// differ, checks that no receipt names a transcript other than the
// session's, and fires agent_exit ({"version":1,"run_id","engine",
// "child":n,"table_sha256","exit","session_id","transcript"} and the
// table's "pre_hook_refusals"), shielded
// from cancellation, under its timeout. It returns the problems found.
func (x *redactRun) exit(ctx context.Context, n, code int, sig string) []string {
	r := x.r
	problems := tripwireProblems(x.gw, &x.stopsSeen)
	problems, x.outProblems = append(problems, x.outProblems...), nil
	problems, x.reapProblems = append(problems, x.reapProblems...), nil
	if x.waitErr != nil {
		problems = append(problems, x.waitErr.Error())
		x.waitErr = nil
	}
	// before agent_exit: compare, then write spawn exec's own bytes back
	for _, f := range x.files {
		if p := f.f.check(f.what); p != "" {
			problems = append(problems, p)
			if err := redact.WriteRunFile(f.f.path, f.f.data); err != nil {
				problems = append(problems, fmt.Sprintf("restore the %s: %v", f.what, err))
			}
		}
	}
	if rb, err := redact.ReadPrivate(x.receiptsPath); err == nil {
		for _, ln := range bytes.Split(rb, []byte("\n")) {
			var rc redact.Receipt
			if json.Unmarshal(ln, &rc) == nil && rc.Transcript != "" && rc.Transcript != x.transcript {
				problems = append(problems, fmt.Sprintf("a %s hook named the transcript %s, not the session's %s", rc.Event, rc.Transcript, x.transcript))
				break
			}
		}
	}
	exitInfo := map[string]any{"code": code}
	if sig != "" {
		exitInfo = map[string]any{"signal": sig}
	}
	var tp *string
	if found := findTranscript(x.env, x.transcript, x.sid); found != "" {
		x.transcript = found
	}
	if x.transcript != "" {
		tp = &x.transcript
	}
	xmsg := map[string]any{"version": 1, "run_id": r.RunID, "engine": r.Engine, "child": n,
		"table_sha256": redact.Digest(x.tableBytes()), "exit": exitInfo, "session_id": x.sid, "transcript": tp}
	if len(r.Redaction.PreHookRefusals) > 0 {
		xmsg["pre_hook_refusals"] = r.Redaction.PreHookRefusals
	}
	xp, _ := json.Marshal(xmsg)
	henv := redactionEnv(x.env, x.tablePath, x.receiptsPath, x.policyPath)
	// the engine's working directory may be gone (an agent moved it):
	// agent_exit then runs in the run directory, so the scan still happens
	hdir := x.opts.Cwd
	if fi, err := os.Stat(hdir); err != nil || !fi.IsDir() {
		hdir = filepath.Dir(x.tablePath)
	}
	// a cancelled run still waits for the scan, up to the hook's timeout
	if _, stderr, err := runSpawnerHook(context.WithoutCancel(ctx), r.Redaction.Exit, henv, hdir, xp); err != nil {
		p := "agent_exit: " + err.Error()
		if n > 1 {
			p = fmt.Sprintf("child %d's %s", n, p)
		}
		if red, _, rerr := x.m.Redact(bytes.TrimSpace(stderr)); rerr == nil && len(red) > 0 {
			p += ": " + string(red)
		}
		problems = append(problems, p)
	}
	return append(problems, x.scrubClientFiles()...)
}
