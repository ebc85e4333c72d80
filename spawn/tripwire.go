package spawn

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hookwarden/hookwarden/spawn/reap"
	"github.com/hookwarden/hookwarden/spawn/redact"
)

// claudeBaseURLEnv is the variable Claude Code 2.1.328 takes the Messages
// API's base URL from (bundle: ANTHROPIC_BASE_URL, 177 references), and
// claudeDefaultBaseURL the URL it uses without it.
const (
	claudeBaseURLEnv     = "ANTHROPIC_BASE_URL"
	claudeDefaultBaseURL = "https://api.anthropic.com"
)

// claudeProviderEnv are Claude Code 2.1.328's switches to a model provider
// other than the Anthropic API (the bundle's provider list:
// CLAUDE_CODE_USE_BEDROCK, _VERTEX, _FOUNDRY, _ANTHROPIC_AWS,
// _ANTHROPIC_GOOGLE_CLOUD, _MANTLE, _GATEWAY). Their requests are signed
// for their own host (SigV4, Google auth) and go to base URLs of their own
// (ANTHROPIC_BEDROCK_BASE_URL …); none has been tried behind the tripwire,
// so under the redaction entry a set one refuses (redaction-upstream).
var claudeProviderEnv = []string{"CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX", "CLAUDE_CODE_USE_FOUNDRY",
	"CLAUDE_CODE_USE_ANTHROPIC_AWS", "CLAUDE_CODE_USE_ANTHROPIC_GOOGLE_CLOUD", "CLAUDE_CODE_USE_MANTLE", "CLAUDE_CODE_USE_GATEWAY"}

// claudeUpstream returns the model API base URL a Claude child with the
// caller's environment env would use: ANTHROPIC_BASE_URL, else the
// Anthropic API. A provider switch or a base URL that is not an absolute
// http(s) URL is a redaction-upstream refusal.
func claudeUpstream(env []string) (*url.URL, error) {
	for _, k := range claudeProviderEnv {
		v, _ := lookupEnvFrom(env, k)
		if !slices.Contains([]string{"", "0", "false", "no", "off"}, strings.ToLower(strings.TrimSpace(v))) {
			return nil, refuse(ReasonRedactionUpstream, "the caller's environment sets %s; the model-traffic tripwire fronts the Anthropic API only (a cloud provider's requests are signed for its own host)", k)
		}
	}
	raw := getenvFrom(env, claudeBaseURLEnv)
	if raw == "" {
		raw = claudeDefaultBaseURL
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return nil, refuse(ReasonRedactionUpstream, "the caller's %s is not an http(s) URL with a host and no credentials", claudeBaseURLEnv)
	}
	return u, nil
}

// gatewayStartWait bounds how long spawn exec waits for the gateway to
// listen, and gatewayTableWait for it to build a table's matcher (a
// 1,000-value table took 0.8-2 s on the shared 2-core machine).
const (
	gatewayStartWait = 20 * time.Second
	gatewayTableWait = 2 * time.Minute
)

// tripwire is the run's model-traffic gateway: `<Gateway> gateway
// --upstream URL` (hookwarden-mcp-proxy; spawn/gateway RunSidecar)
// as a process of its own, so net/http stays out of the hookwarden binary
// (cmd/hookwarden TestBinaryImports). It lives until close.
type tripwire struct {
	cmd     *exec.Cmd
	in      io.WriteCloser
	url     string
	replies chan string
	mu      sync.Mutex
	stops   []string
	done    chan struct{}
}

// startTripwire starts the gateway program bin in front of the upstream
// the caller's environment env names (the gateway chooses its proxy from
// that environment too) and waits for it to listen. A refusal
// (redaction-upstream) when the upstream is one the tripwire cannot
// front or the gateway does not start.
func startTripwire(ctx context.Context, bin string, env []string) (*tripwire, error) {
	up, err := claudeUpstream(env)
	if err != nil {
		return nil, err
	}
	if bin == "" || !filepath.IsAbs(bin) {
		return nil, refuse(ReasonRedactionUpstream, "no %s beside hookwarden to run the model-traffic tripwire", MCPProxyName)
	}
	cmd := exec.Command(bin, "gateway", "--upstream", up.String())
	cmd.Env = env
	cmd.Stderr = io.Discard
	cmd.WaitDelay = 2 * time.Second
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, refuse(ReasonRedactionUpstream, "the tripwire: %v", err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, refuse(ReasonRedactionUpstream, "the tripwire: %v", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, refuse(ReasonRedactionUpstream, "start the tripwire %s: %v", bin, err)
	}
	t := &tripwire{cmd: cmd, in: in, replies: make(chan string, 4), done: make(chan struct{})}
	go t.read(out)
	select {
	case line := <-t.replies:
		if u, ok := strings.CutPrefix(line, gatewayReady+" "); ok && strings.HasPrefix(u, "http://127.0.0.1:") {
			t.url = u
			return t, nil
		}
		t.close()
		return nil, refuse(ReasonRedactionUpstream, "the tripwire %s did not start (its first line is not READY)", bin)
	case <-t.done:
		t.close()
		return nil, refuse(ReasonRedactionUpstream, "the tripwire %s ended before it listened", bin)
	case <-time.After(gatewayStartWait):
	case <-ctx.Done():
	}
	t.close()
	return nil, refuse(ReasonRedactionUpstream, "the tripwire %s did not listen within %v", bin, gatewayStartWait)
}

// Lines of the sidecar protocol (spawn/gateway, whose package
// spawn does not import: it links net/http).
const (
	gatewayReady = "READY"
	gatewayStop  = "STOP"
	gatewayOK    = "OK"
	gatewayErr   = "ERR"
)

// read collects the gateway's lines: STOP lines as stops, the rest as
// replies; done closes when its stdout ends.
func (t *tripwire) read(out io.Reader) {
	defer close(t.done)
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		line := sc.Text()
		if s, ok := strings.CutPrefix(line, gatewayStop+" "); ok {
			t.mu.Lock()
			t.stops = append(t.stops, s)
			t.mu.Unlock()
			continue
		}
		select {
		case t.replies <- line:
		default: // an unasked reply is dropped
		}
	}
}

// URL returns the gateway's base URL.
func (t *tripwire) URL() string { return t.url }

// setTable makes the gateway judge with the run's table at path, whose
// bytes spawn exec wrote with digest; an error when it does not answer OK
// in time.
func (t *tripwire) setTable(path, digest string) error {
	if _, err := fmt.Fprintf(t.in, "TABLE %s %s\n", path, digest); err != nil {
		return fmt.Errorf("the tripwire: %w", err)
	}
	select {
	case line := <-t.replies:
		if line == gatewayOK {
			return nil
		}
		return fmt.Errorf("the tripwire refused the table: %s", strings.TrimPrefix(line, gatewayErr+" "))
	case <-t.done:
		return errors.New("the tripwire ended")
	case <-time.After(gatewayTableWait):
		return fmt.Errorf("the tripwire did not load the table within %v", gatewayTableWait)
	}
}

// alive reports whether the gateway still runs (a gateway that ended
// mid-run leaves the engine without a model: the run fails).
func (t *tripwire) alive() bool {
	select {
	case <-t.done:
		return false
	default:
		return true
	}
}

// close ends the gateway: its stdin closed, then waited for (killed after
// the WaitDelay).
func (t *tripwire) close() {
	t.in.Close()
	select {
	case <-t.done:
	case <-time.After(5 * time.Second):
		_ = t.cmd.Process.Kill()
	}
	_ = t.cmd.Wait()
}

// claudeGitStatusOffEnv switches off the git status block Claude Code
// 2.1.328 adds to the model's context (branch, changed and untracked file
// names, recent commit subjects): its bundle includes it only when
// `!CLAUDE_CODE_REMOTE && nxt()`, and nxt() returns
// !CLAUDE_CODE_DISABLE_GIT_INSTRUCTIONS when the variable is set, else the
// includeGitInstructions setting (default true). Set to 1 for every child
// under the entry: a secret-named branch or file name never reaches the
// model through it (the built-in commit and PR instructions go with it).
const claudeGitStatusOffEnv = "CLAUDE_CODE_DISABLE_GIT_INSTRUCTIONS"

// tripwireEnv returns the engine's environment under the entry: its
// ANTHROPIC_BASE_URL replaced by base (the gateway), 127.0.0.1 added to
// NO_PROXY and no_proxy so a caller's proxy does not carry the loopback
// hop, and the git status context switched off (claudeGitStatusOffEnv).
func tripwireEnv(env []string, base string) []string {
	out := slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		return strings.HasPrefix(kv, claudeBaseURLEnv+"=") || strings.HasPrefix(kv, claudeGitStatusOffEnv+"=")
	})
	out = append(out, claudeBaseURLEnv+"="+base, claudeGitStatusOffEnv+"=1")
	for _, k := range []string{"NO_PROXY", "no_proxy"} {
		v := getenvFrom(out, k)
		if v != "" {
			v += ","
		}
		out = append(out, k+"="+v+"127.0.0.1")
	}
	return out
}

// tripwireProblems returns a problem for each request the gateway stopped
// after the first seen (seen is advanced), and one when the gateway ended
// before the run did.
func tripwireProblems(t *tripwire, seen *int) []string {
	t.mu.Lock()
	stops := slices.Clone(t.stops)
	t.mu.Unlock()
	var out []string
	for _, s := range stops[*seen:] {
		out = append(out, "the model-traffic tripwire stopped "+s)
	}
	*seen = len(stops)
	if !t.alive() {
		out = append(out, "the model-traffic tripwire ended during the run")
	}
	return out
}

// fileMention finds the first @-mention in a prompt text that names an
// existing path (Claude Code 2.1.328 expands "@path" and `@"path"` in
// the prompt into the file's or directory's contents in the model
// request, past agent_prompt, which sees only the text): a mention is "@"
// at the start or after white space, then a quoted string or the run of
// non-space bytes, with a trailing "#L…" line range and punctuation
// dropped, resolved against cwd ("~/" against home). It returns the
// mention as written and whether one names an existing path.
func fileMention(text, cwd, home string) (string, bool) {
	for i := 0; i < len(text); i++ {
		if text[i] != '@' || (i > 0 && !isSpace(text[i-1])) {
			continue
		}
		rest := text[i+1:]
		var name string
		if strings.HasPrefix(rest, `"`) {
			end := strings.IndexByte(rest[1:], '"')
			if end < 0 {
				continue
			}
			name = rest[1 : 1+end]
		} else {
			end := strings.IndexFunc(rest, func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '\r' })
			if end < 0 {
				end = len(rest)
			}
			name = rest[:end]
		}
		if h := strings.Index(name, "#L"); h > 0 {
			name = name[:h]
		}
		for _, cand := range []string{name, strings.TrimRight(name, ".,;:!?)]}'\"")} {
			if cand == "" {
				continue
			}
			p := cand
			switch {
			case strings.HasPrefix(p, "~/") && home != "":
				p = filepath.Join(home, p[2:])
			case !filepath.IsAbs(p):
				p = filepath.Join(cwd, p)
			}
			if _, err := os.Lstat(p); err == nil {
				return "@" + cand, true
			}
		}
	}
	return "", false
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// claudeTmpDirEnv is where Claude Code 2.1.328 puts its own temporary
// files (task output files among them): its bundle's temp-dir function
// returns CLAUDE_CODE_TMPDIR when set, else os.tmpdir(). Under the entry
// it names a 0700 directory of the run's, scanned after each child
// (scrubClientFiles) and removed when the run ends.
const claudeTmpDirEnv = "CLAUDE_CODE_TMPDIR"

// engineEnv is the child's environment: tripwireEnv over henv, with the
// engine's temporary directory the run's.
func (x *redactRun) engineEnv(henv []string) []string {
	env := slices.DeleteFunc(tripwireEnv(henv, x.gw.URL()), func(kv string) bool {
		return strings.HasPrefix(kv, claudeTmpDirEnv+"=")
	})
	return append(env, claudeTmpDirEnv+"="+x.tmpDir)
}

// maxScrubFile bounds one client file scrubClientFiles reads; a larger one
// is a problem (not judged).
const maxScrubFile = 512 << 20

// scrubClientFiles scans, after agent_exit, every regular file the client
// wrote for the session besides the transcript's own scan: the transcript
// again (a process the engine left could have written it after
// agent_exit's scan), everything under the session's directory beside it
// (<projects>/<slug>/<session id>/: tool-results/ and subagent
// transcripts) and under the engine's temporary directory (task output
// files). A file holding a value is scrubbed (values replaced by their
// tokens, through a temporary file and a rename) and reported by path;
// the run fails on any. A symbolic link is not followed.
func (x *redactRun) scrubClientFiles() []string {
	var problems []string
	check := func(path string) {
		fi, err := os.Lstat(path)
		if err != nil || !fi.Mode().IsRegular() {
			return
		}
		if fi.Size() > maxScrubFile {
			problems = append(problems, fmt.Sprintf("the client's file %s is over %d bytes; not scanned", path, maxScrubFile))
			return
		}
		b, err := os.ReadFile(path)
		if err != nil {
			problems = append(problems, fmt.Sprintf("the client's file %s: %v", path, err))
			return
		}
		n, err := redact.ScrubTranscript(path, b, x.m)
		switch {
		case n > 0 && err != nil:
			problems = append(problems, fmt.Sprintf("the client's file %s held %d value occurrence(s) (not scrubbed: %v)", path, n, err))
		case n > 0:
			problems = append(problems, fmt.Sprintf("the client's file %s held %d value occurrence(s) (scrubbed)", path, n))
		case err != nil:
			problems = append(problems, fmt.Sprintf("the client's file %s: %v", path, err))
		}
	}
	if x.transcript != "" {
		check(x.transcript)
	}
	for _, dir := range []string{strings.TrimSuffix(x.transcript, ".jsonl"), x.tmpDir} {
		if dir == "" || dir == x.transcript {
			continue
		}
		_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				check(p)
			}
			return nil
		})
	}
	return problems
}

// runReaped runs the engine argv (argv[0] its path) for child n under the
// reaper (`<Gateway> reap --report FILE -- argv…`, spawn/reap; FILE beside
// the run's table, named after it, so concurrent runs under one home never
// share a report: a shared run/hooks/reap-N let one run remove or read the
// other's),
// with cmd's directory, environment and output: when it returns, every
// process the engine started has ended, so nothing the run started can
// write to the client's files after scrubClientFiles. A reaper that could
// not end everything within its bound, or left no report, is a problem
// of the run (x.outProblems, read by exit). Started callbacks see argv.
func (x *redactRun) runReaped(ctx context.Context, n int, argv []string, cmd exec.Cmd) (int, string, error) {
	report := strings.TrimSuffix(x.tablePath, ".table.json") + fmt.Sprintf(".reap-%d", n)
	_ = os.Remove(report)
	defer os.Remove(report)
	cmd.Path = x.opts.Gateway
	cmd.Args = append([]string{x.opts.Gateway, "reap", "--report", report, "--"}, argv...)
	code, sig, err := runEngineShown(ctx, x.opts, x.r, cmd, argv)
	if err != nil {
		return code, sig, err
	}
	b, rerr := os.ReadFile(report)
	rep, perr := reap.ParseReport(b)
	switch {
	case rerr != nil || perr != nil:
		x.reapProblems = append(x.reapProblems, fmt.Sprintf("child %d: the reaper left no report (%v): what the engine left running may not have ended before the scan", n, errors.Join(rerr, perr)))
	case rep.Survived > 0:
		x.reapProblems = append(x.reapProblems, fmt.Sprintf("child %d: %d process(es) the engine started outlived it and could not be ended within %v; the client's files may still change", n, rep.Survived, reap.SweepBound))
	}
	return code, sig, nil
}
