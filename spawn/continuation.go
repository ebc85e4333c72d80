package spawn

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
)

// The continuation (`spawn exec --auto-finish PROMPT`, ADR-0134 D3/D4's
// auto_finish): one run of Claude Code with a second child when the first
// did not finish. Claude Code 2.1.328 under `-p --output-format json` or
// `stream-json` ends its output with a result object
// {"type":"result","subtype":…,"session_id":…}; the subtypes are
// "success" and "error_during_execution", "error_max_turns",
// "error_max_budget_usd", "error_max_structured_output_retries" (the
// result schema in the bundle of bin/claude.exe, @anthropic-ai/claude-code
// 2.1.328: type:E("result"),subtype:U([…])). `claude -p … --output-format
// json --max-turns 1` whose model asked for a tool printed one line with
// "subtype":"error_max_turns","terminal_reason":"max_turns","is_error":true
// and exited 1 (measured 2026-12-01 against the loopback model); the same
// session resumed with `--resume <its id> -p PROMPT` answered and exited 0.
// `--output-format json --verbose` printed one line, an array of every
// message with the result last; `stream-json --verbose` one message per
// line, the result last (recorded in testdata/spawn/claude-results).

// continueSubtype is the one result subtype a continuation follows: the
// turn limit stopped the child before it finished. The other error
// subtypes end the run as the child left it: a budget stop would be
// undone by a continuation, and an execution error is not an unfinished
// answer.
const continueSubtype = "error_max_turns"

// maxResultLine bounds one line of the child's stdout that resultWatch
// keeps to look for the result object; a longer line is passed through
// and not read (no continuation follows from it).
const maxResultLine = 16 << 20

// claudeResult is the part of Claude Code's result object the
// continuation reads.
type claudeResult struct {
	Type      string `json:"type"`
	Subtype   string `json:"subtype"`
	SessionID string `json:"session_id"`
}

// resultWatch is an io.Writer that sees the child's stdout as it passes
// to the caller and keeps the last result object of it: a line holding a
// JSON object with "type":"result" (json and stream-json output), or a
// JSON array whose last element is one (json with --verbose). Lines past
// maxResultLine are skipped.
type resultWatch struct {
	line []byte
	over bool
	last *claudeResult
}

func (w *resultWatch) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		chunk := p
		if i >= 0 {
			chunk = p[:i]
		}
		if !w.over && len(w.line)+len(chunk) > maxResultLine {
			w.over, w.line = true, w.line[:0]
		}
		if !w.over {
			w.line = append(w.line, chunk...)
		}
		if i < 0 {
			break
		}
		w.end()
		p = p[i+1:]
	}
	return n, nil
}

// end reads the line held so far and starts a new one.
func (w *resultWatch) end() {
	line := bytes.TrimSpace(w.line)
	if !w.over && bytes.Contains(line, []byte(`"result"`)) {
		if len(line) > 0 && line[0] == '[' {
			var items []json.RawMessage
			if json.Unmarshal(line, &items) == nil && len(items) > 0 {
				line = items[len(items)-1]
			}
		}
		var r claudeResult
		if json.Unmarshal(line, &r) == nil && r.Type == "result" {
			w.last = &r
		}
	}
	w.line, w.over = w.line[:0], false
}

// unfinished returns the session id to continue when the child's last
// result says the turn limit stopped it ("" otherwise, or when the id is
// not a session id spawn exec resumes).
func (w *resultWatch) unfinished() string {
	w.end() // a last line without a newline
	if w.last == nil || w.last.Subtype != continueSubtype || !sessionIDForm().MatchString(w.last.SessionID) {
		return ""
	}
	return w.last.SessionID
}

// tee returns a writer passing p to out (when set) and to w.
func (w *resultWatch) tee(out io.Writer) io.Writer {
	if out == nil {
		return w
	}
	return io.MultiWriter(out, w)
}

// claudeContinueDrop are the options the continuation leaves out of the
// first child's argv: the continuation names its session with --resume
// alone (ADR-0134 D4: neither --session-id nor --continue), and a fork
// would leave the session the first child wrote.
var claudeContinueDrop = []string{"--session-id", "-r", "--resume", "-c", "--continue", "--fork-session"}

// continuationArgs returns the continuation's argv (after argv[0]) built
// from the first child's args (the caller's, with --settings and
// --setting-sources taken out): every option kept in place with its
// values, the options of claudeContinueDrop and every positional (the
// first child's prompt) left out, then "--resume", sid, "--", prompt. It
// refuses what scanContinuable refuses.
func continuationArgs(args []string, sid, prompt string) ([]string, error) {
	c, err := scanContinuable(args)
	if err != nil {
		return nil, err
	}
	return append(c.kept, "--resume", sid, "--", prompt), nil
}

// continuable is the caller's Claude argv as the continuation reads it:
// the options it keeps (with their values), and the session the first
// child runs when the argv names it (--session-id, or --resume with an id
// and no --fork-session; "" when it does not, and named false when
// --continue or --fork-session leave it to the engine).
type continuable struct {
	kept    []string
	session string
	named   bool
}

// scanContinuable reads args with Claude Code 2.1.328's option lists
// (redactargs.go) and refuses (auto-finish-unsupported) an option outside
// them, since a value it cannot tell from a prompt would be kept or
// dropped blindly, and --from-pr and --teleport, which resume a session of
// their own; it also checks what the continuation needs: -p/--print,
// --output-format json or stream-json (the result is read from stdout),
// no --no-session-persistence (nothing to resume) and no --input-format
// stream-json (the prompt would come from stdin).
func scanContinuable(args []string) (continuable, error) {
	c := continuable{kept: []string{}, named: true}
	print, format := false, ""
	positional := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if positional || a == "-" || !strings.HasPrefix(a, "-") {
			continue // the first child's prompt
		}
		if a == "--" {
			positional = true
			continue
		}
		name, inline, hasInline := claudeOption(a)
		// the argument and its values, as the engine's parser takes them
		n := 1
		switch {
		case slices.Contains(claudeResumeByID, name):
			if !hasInline && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				inline, n = args[i+1], 2
			}
		case slices.Contains(claudeRedactNoValue, name) || slices.Contains(claudePostureNoValue, name) || slices.Contains(claudeContinueDrop[3:], name):
			if hasInline {
				return c, refuse(ReasonAutoFinish, "%s takes no value", name)
			}
		case slices.Contains(claudeRedactOneValue, name) || slices.Contains(claudePostureOneValue, name):
			if !hasInline {
				if i+1 >= len(args) {
					return c, refuse(ReasonAutoFinish, "%s needs a value", name)
				}
				inline, n = args[i+1], 2
			}
		case slices.Contains(claudeRedactVariadic, name) || slices.Contains(claudePostureVariadic, name) || slices.Contains(claudeMCPFlags, name):
			for i+n < len(args) && !(len(args[i+n]) > 1 && strings.HasPrefix(args[i+n], "-")) {
				n++
			}
		default:
			return c, refuse(ReasonAutoFinish, "the caller passes %s, which --auto-finish cannot place in the continuation's argv (Claude Code 2.1.328 options it reads: spawn redactargs.go)", name)
		}
		switch name {
		case "-p", "--print":
			print = true
		case "--output-format":
			format = inline
		case "--no-session-persistence":
			return c, refuse(ReasonAutoFinish, "--no-session-persistence leaves no session for the continuation to resume")
		case "--input-format":
			if inline == "stream-json" {
				return c, refuse(ReasonAutoFinish, "--input-format stream-json takes the prompt from stdin; the continuation passes its prompt as an argument")
			}
		case "--session-id", "-r", "--resume":
			c.session = inline
		case "-c", "--continue", "--fork-session":
			c.named = false
		}
		if !slices.Contains(claudeContinueDrop, name) {
			c.kept = append(c.kept, args[i:i+n]...)
		}
		i += n - 1
	}
	if !print || (format != "json" && format != "stream-json") {
		return c, refuse(ReasonAutoFinish, "--auto-finish reads the first child's result from its stdout: it needs -p with --output-format json or stream-json")
	}
	if !c.named {
		c.session = ""
	}
	return c, nil
}

// checkAutoFinish refuses --auto-finish before anything is compiled when
// the spawn cannot be continued: an engine other than claude, an empty
// prompt, or an argv continuationArgs refuses.
func checkAutoFinish(engine string, args []string, prompt string) error {
	if engine != "claude" {
		return refuse(ReasonAutoFinish, "--auto-finish continues Claude Code sessions; %s has no continuation here", engine)
	}
	if strings.TrimSpace(prompt) == "" {
		return refuse(ReasonAutoFinish, "the continuation's prompt is empty")
	}
	_, err := continuationArgs(args, "00000000-0000-4000-8000-000000000000", prompt)
	return err
}

// continuationNote tells the caller on stderr that a second child starts.
func continuationNote(opts ExecOptions, sid string) {
	if opts.Stderr != nil {
		fmt.Fprintf(opts.Stderr, "hookwarden: spawn: auto-finish: child 1 stopped with %s; child 2 resumes session %s\n", continueSubtype, sid)
	}
}

// execContinued runs a plain Claude spawn (no redaction entry) with
// --auto-finish: child 1 with the caller's argv, stdin and the render
// (and --session-id with a fresh id when the caller's argv names no
// session, so the session to continue is known before the spawn); when
// its result says the turn limit stopped it, child 2 with
// continuationArgs (--resume <that session>, the continuation's prompt,
// an empty stdin) and the same render file, after comparing that file's
// bytes, owner and mode with what the compile wrote. A difference, or a
// result naming another session than the one child 1 was given, fails the
// run (RunFailedExit, *RunFailure) and child 2 does not start. It returns
// the last child's exit code.
func execContinued(ctx context.Context, opts ExecOptions, r *Render, bin string, args, env []string) (int, error) {
	render, err := heldRender(r)
	if err != nil {
		return RefusedExit, err
	}
	c, err := scanContinuable(args)
	if err != nil {
		return RefusedExit, err
	}
	spawn := func(a, extra []string, stdin io.Reader, stdout io.Writer) (int, error) {
		at := slices.Index(a, "--")
		if at < 0 {
			at = len(a)
		}
		argv := append([]string{bin}, a[:at]...)
		argv = append(argv, r.Args...)
		argv = append(argv, extra...)
		argv = append(argv, a[at:]...)
		code, _, err := runEngine(ctx, opts, r, exec.Cmd{Path: bin, Args: argv, Dir: opts.Cwd, Env: env,
			Stdin: stdin, Stdout: stdout, Stderr: opts.Stderr})
		return code, err
	}
	want, extra := c.session, []string(nil)
	if c.named && want == "" {
		if want, err = newSessionID(); err != nil {
			return RefusedExit, refuse(ReasonCompileFailed, "session id: %v", err)
		}
		extra = []string{"--session-id", want}
	}
	watch := &resultWatch{}
	code, err := spawn(args, extra, opts.Stdin, watch.tee(opts.Stdout))
	sid := watch.unfinished()
	if err != nil || sid == "" || ctx.Err() != nil {
		return code, err
	}
	if want != "" && sid != want {
		return RunFailedExit, &RunFailure{Problems: []string{fmt.Sprintf("child 1's result names session %s, not the session %s it ran; no continuation", sid, want)}}
	}
	if p := render.check("render"); p != "" {
		return RunFailedExit, &RunFailure{Problems: []string{"before child 2's spawn: " + p}}
	}
	continuationNote(opts, sid)
	code, err = spawn(append(c.kept, "--resume", sid, "--", opts.AutoFinish), nil, nil, opts.Stdout)
	if AsRefusal(err) != nil {
		return RunFailedExit, &RunFailure{Problems: []string{"child 2: " + err.Error()}}
	}
	return code, err
}

// heldRender returns the Claude render file as the compile wrote it (the
// first of r.Files), to compare before a later child.
func heldRender(r *Render) (runFile, error) {
	if len(r.Files) == 0 {
		return runFile{}, refuse(ReasonCompileFailed, "the render wrote no run file")
	}
	b, err := readSmall(r.Files[0])
	if err != nil {
		return runFile{}, refuse(ReasonRunFileUnwritable, "%s: %v", r.Files[0], err)
	}
	return runFile{r.Files[0], b}, nil
}
