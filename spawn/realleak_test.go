package spawn

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// leakCase is one channel of issue 30 tried on the pinned Claude Code under
// the redaction entry: the scripted model's calls (calls) after the
// prompt, with SERVICE_TOKEN (a credential-named variable) and the
// configured value realRaw in the table, secret.txt holding realRaw in
// the repository.
type leakCase struct {
	name   string
	prompt string
	calls  func(w *redactWorld) []scriptedCall
	// want: "stopped" (the tripwire stopped a request: exit 123 naming the
	// token), "failed" (the run fails 123 for another reason), "passed"
	want string
	// git makes the repository a real one on the branch "feature-<realRaw>"
	// with an untracked file named after SERVICE_TOKEN's value
	git bool
	// settle, when set, is how long the test waits after spawn exec returns
	// before it scans: a process the run left behind (a background job)
	// writes its raw value after Claude exits, and touches late-wrote in
	// the repository when it does, which must not happen after spawn exec
	// returned (the reaper ended it)
	settle time.Duration
	// env is added to the engine's environment (value placeholders RAW and
	// SVC become realRaw and leakSvc)
	env []string
}

// lateWriter is a shell command that leaves a job behind which, 4 s later,
// touches late-wrote and appends secret.txt to every transcript and task
// output file under the client's home and the run's temporary directory.
const lateWriter = `sleep 4; touch "$R/late-wrote"; for f in $(find "$HOME" "${CLAUDE_CODE_TMPDIR:-/nonexistent}" -name '*.jsonl' -o -name '*.output' 2>/dev/null); do cat "$R/secret.txt" >> "$f"; done`

// claudeStdoutWrite finds the engine among the shell's ancestors (the
// process whose executable is the pinned claude) and writes secret.txt
// straight to its stdout, which is spawn exec's output.
const claudeStdoutWrite = `pid=$$; while [ "$pid" -gt 1 ]; do case "$(readlink /proc/$pid/exe)" in *claude*) cat secret.txt > /proc/$pid/fd/1; echo "wrote to $pid"; break;; esac; pid=$(awk '{print $4}' /proc/$pid/stat); done; echo done`

const leakSvc = "svc-leak-token-0987654321"

// leakCases are the channels of issue 30.
var leakCases = []leakCase{
	{name: "system message: working directory renamed to the value", prompt: "run it", want: "stopped",
		calls: func(w *redactWorld) []scriptedCall {
			return []scriptedCall{{"Bash", map[string]any{"command": `mv "$PWD" "$PWD-$SERVICE_TOKEN"`, "description": "rename"}},
				{"Bash", map[string]any{"command": "pwd", "description": "where"}}}
		}},
	{name: "failed tool call writing past the redactor", prompt: "run it", want: "stopped",
		calls: func(w *redactWorld) []scriptedCall {
			return []scriptedCall{{"Bash", map[string]any{"command": "cat secret.txt > /proc/$PPID/fd/1; exit 3", "description": "fail"}}}
		}},
	{name: "large output saved to tool-results", prompt: "run it", want: "passed",
		calls: func(w *redactWorld) []scriptedCall {
			return []scriptedCall{{"Bash", map[string]any{"command": "for i in $(seq 3000); do cat secret.txt; done", "description": "big"}}}
		}},
	{name: "file mention in the prompt", prompt: "summarize @secret.txt", want: "refused",
		calls: func(w *redactWorld) []scriptedCall { return nil }},
	{name: "value written to the engine's own stdout", prompt: "run it", want: "failed",
		calls: func(w *redactWorld) []scriptedCall {
			return []scriptedCall{{"Bash", map[string]any{"command": claudeStdoutWrite, "description": "write"}}}
		}},
	// the git status context is off (the model receives neither name), but
	// Claude writes the branch into every transcript line's gitBranch:
	// agent_exit scrubs it and the run fails
	{name: "git status context: secret-named branch and file", prompt: "run it", want: "failed", git: true,
		calls: func(w *redactWorld) []scriptedCall { return nil }},
	{name: "base64 of the value", prompt: "run it", want: "stopped",
		calls: func(w *redactWorld) []scriptedCall {
			return []scriptedCall{{"Bash", map[string]any{"command": "base64 secret.txt", "description": "encode"}}}
		}},
	// the command appends to its own task output file under the run's
	// CLAUDE_CODE_TMPDIR (2026-12-04: "appended to 1"); Claude Code 2.1.328
	// sent the model the shell route's redacted output and the file was
	// gone by spawn exec's scan (the run passed); whatever the outcome, no
	// raw value may reach a request, a file or the output
	{name: "value appended to the task's output file", prompt: "run it", want: "either",
		calls: func(w *redactWorld) []scriptedCall {
			return []scriptedCall{{"Bash", map[string]any{"command": `[ -n "$CLAUDE_CODE_TMPDIR" ] || { echo "appended to none: no CLAUDE_CODE_TMPDIR"; exit 0; }; n=0; for f in $(find "$CLAUDE_CODE_TMPDIR" -name '*.output' 2>/dev/null); do cat secret.txt >> "$f"; n=$((n+1)); done; echo "appended to $n"`, "description": "append"}}}
		}},
	{name: "background job writing after the engine exits", prompt: "run it", want: "either", settle: 7 * time.Second,
		calls: func(w *redactWorld) []scriptedCall {
			return []scriptedCall{{"Bash", map[string]any{"command": `R=$PWD; export R; (` + lateWriter + `) >/dev/null 2>&1 & echo started`, "description": "background"}}}
		}},
	{name: "setsid job writing after the engine exits", prompt: "run it", want: "either", settle: 7 * time.Second,
		calls: func(w *redactWorld) []scriptedCall {
			return []scriptedCall{{"Bash", map[string]any{"command": `R=$PWD; export R; setsid sh -c '` + lateWriter + `' >/dev/null 2>&1 < /dev/null & echo started`, "description": "setsid"}}}
		}},
	{name: "command outliving its tool timeout", prompt: "run it", want: "either", settle: 7 * time.Second,
		calls: func(w *redactWorld) []scriptedCall {
			return []scriptedCall{{"Bash", map[string]any{"command": `R=$PWD; export R; sh -c '` + lateWriter + `'; cat secret.txt`, "description": "slow", "timeout": 1000}}}
		}},
	// Claude Code sends ANTHROPIC_CUSTOM_HEADERS ("Name: value" lines) on
	// every model request (code.claude.com/docs env-vars); the gateway
	// scans header values, and only the caller's own credential is exempt
	{name: "table value in ANTHROPIC_CUSTOM_HEADERS", prompt: "hello", want: "stopped",
		env:   []string{"ANTHROPIC_CUSTOM_HEADERS=X-Trace: RAW"},
		calls: func(w *redactWorld) []scriptedCall { return nil }},
	{name: "value assembled by the command at run time", prompt: "run it", want: "passed",
		calls: func(w *redactWorld) []scriptedCall {
			// nothing spells the value in the command; the shell route's
			// redactor replaces what it prints, and the run passes
			return []scriptedCall{{"Bash", map[string]any{"command": `printf 'g%sp_abcdefgh1234%s\n' h 5678`, "description": "spell"}}}
		}},
}

// TestRealClaudeLeakSuite is issue 30's leak suite on the pinned Claude
// Code under the redaction entry with the model-traffic tripwire: each
// channel as a case, every request the loopback model received logged and
// searched. Each case ends with no raw value in any request, in any file
// under the client's configuration directory, or in spawn exec's output;
// where the tripwire stopped a value the run fails 123 naming the token.
func TestRealClaudeLeakSuite(t *testing.T) {
	bin := needClient(t, "claude")
	for _, c := range leakCases {
		t.Run(c.name, func(t *testing.T) {
			w := newRedactWorld(t, map[string]string{"[GH_TOKEN]": realRaw}, "", "", "")
			os.WriteFile(filepath.Join(w.repo, "secret.txt"), []byte("token="+realRaw+"\n"), 0o644)
			raws := []string{realRaw, leakSvc}
			if c.git {
				os.RemoveAll(filepath.Join(w.repo, ".git"))
				for _, args := range [][]string{{"init", "-q", "-b", "feature-" + realRaw}, {"-c", "user.email=t@t", "-c", "user.name=t", "commit", "-q", "--allow-empty", "-m", "init"}} {
					if out, err := exec.Command("git", append([]string{"-C", w.repo}, args...)...).CombinedOutput(); err != nil {
						unavailable(t, fmt.Sprintf("git: %v %s", err, out))
					}
				}
				os.WriteFile(filepath.Join(w.repo, "notes-"+leakSvc+".txt"), []byte("x"), 0o644)
			}
			model := startScriptedModel(t, c.calls(w), nil)
			_, env := w.mockClient("claude", bin, model.port)
			env = append(env, "SERVICE_TOKEN="+leakSvc)
			for _, e := range c.env {
				env = append(env, strings.NewReplacer("RAW", realRaw, "SVC", leakSvc).Replace(e))
			}
			var out bytes.Buffer
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			code, err := Exec(ctx, ExecOptions{Argv: []string{"claude", "-p", c.prompt, "--output-format", "stream-json", "--verbose"},
				Home: w.home, Gateway: mcpProxyBin(t), Cwd: w.repo, Env: env, Stdout: &out, Stderr: &out})
			if c.settle > 0 {
				returned := time.Now()
				time.Sleep(c.settle)
				if fi, err := os.Stat(filepath.Join(w.repo, "late-wrote")); err == nil && fi.ModTime().After(returned) {
					t.Errorf("a process the run left wrote %v after spawn exec returned: the reaper did not end it", fi.ModTime().Sub(returned))
				}
			}
			log := model.log()
			t.Logf("exit %d: %v", code, err)
			if i := strings.LastIndex(log, "appended to "); i >= 0 {
				t.Logf("the command reported: %.50s", log[i:])
			}
			if AsRefusal(err) != nil && c.want != "refused" {
				t.Fatalf("refused: %v", err)
			}
			if f := rawIn([]byte(log), raws); len(f) > 0 {
				t.Errorf("the model received %d raw value(s)", len(f))
			}
			if f := scanTree(w.clientHome, raws); len(f) > 0 {
				t.Errorf("the client's files hold raw values: %v", f)
			}
			if f := rawIn(out.Bytes(), raws); len(f) > 0 {
				t.Errorf("spawn exec's output holds %d raw value(s)", len(f))
			}
			f := AsRunFailure(err)
			switch c.want {
			case "stopped":
				if code != RunFailedExit || f == nil || !strings.Contains(f.Error(), "tripwire stopped") {
					t.Errorf("want the run failed 123 by the tripwire, got %d %v", code, err)
				}
			case "failed":
				if code != RunFailedExit || f == nil {
					t.Errorf("want the run failed 123, got %d %v", code, err)
				}
			case "either":
				if code != 0 && code != RunFailedExit {
					t.Errorf("want the run passed or failed 123, got %d %v", code, err)
				}
			case "refused":
				if code != RefusedExit || AsRefusal(err) == nil || AsRefusal(err).Reason != ReasonRedactionPromptFile || log != "" {
					t.Errorf("want a redaction-prompt-file refusal before any request, got %d %v", code, err)
				}
			case "passed":
				if code != 0 || err != nil {
					t.Errorf("want the run passed, got %d %v", code, err)
				}
			}
			noRunFiles(t, w)
			if c.git {
				// control: the same engine without spawn exec sends the
				// branch to the model in its git status context
				control := startScriptedModel(t, nil, nil)
				_, cenv := w.mockClient("claude", bin, control.port)
				cmd := exec.CommandContext(ctx, filepath.Join(bin, "claude"), "-p", "hello", "--output-format", "json")
				cmd.Dir, cmd.Env = w.repo, cenv
				if o, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("control run: %v\n%s", err, o)
				}
				if !strings.Contains(control.log(), "feature-"+realRaw) {
					t.Errorf("control: the engine sent no git status with the branch, so the row above proves nothing")
				}
			}
		})
	}
}
