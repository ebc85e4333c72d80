package live

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hookwarden/hookwarden/internal/testbin"
)

// TestProcess runs the built hookwarden binary as a client would: payload on
// stdin, arguments, environment; it checks exit code, stdout and stderr.
func TestProcess(t *testing.T) {
	hw := testbin.Hookwarden(t)
	data, err := os.ReadFile("testdata/process.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Name     string   `json:"name"`
		Args     []string `json:"args"`
		Client   string   `json:"client"`
		Command  string   `json:"command"`
		Stdin    *string  `json:"stdin"`
		Env      []string `json:"env"`
		RepoYAML string   `json:"repo_yaml"`
		Want     struct {
			Exit          int     `json:"exit"`
			Stdout        *string `json:"stdout"`
			StdoutPrefix  string  `json:"stdout_prefix"`
			StdoutListing bool    `json:"stdout_listing"`
			Stderr        *string `json:"stderr"`
			StderrPrefix  string  `json:"stderr_prefix"`
		} `json:"want"`
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	deps, err := Deps()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			repo, _ := governedRepo(t)
			if tc.RepoYAML != "" {
				if err := os.WriteFile(filepath.Join(repo, ".hookwarden.yaml"), []byte(tc.RepoYAML), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			home := filepath.Join(filepath.Dir(repo), "home")
			var stdin []byte
			switch {
			case tc.Stdin != nil:
				stdin = []byte(*tc.Stdin)
			case tc.Client != "":
				stdin = payloadFor(t, tc.Client, tc.Command, repo)
			}
			args := make([]string, len(tc.Args))
			for i, a := range tc.Args {
				args[i] = strings.ReplaceAll(a, "$REPO", repo)
			}
			cmd := exec.Command(hw, args...)
			cmd.Dir = repo
			cmd.Stdin = bytes.NewReader(stdin)
			cmd.Env = append([]string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "PATH=" + os.Getenv("PATH")}, tc.Env...)
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			err := cmd.Run()
			code := testbin.ExitCode(t, err)
			w := tc.Want
			so, se := out.String(), errb.String()
			if code != w.Exit {
				t.Errorf("exit %d, want %d (stderr %q)", code, w.Exit, se)
			}
			if w.Stdout != nil && so != *w.Stdout {
				t.Errorf("stdout %q, want %q", so, *w.Stdout)
			}
			if w.StdoutPrefix != "" && !strings.HasPrefix(so, w.StdoutPrefix) {
				t.Errorf("stdout %q, want prefix %q", so, w.StdoutPrefix)
			}
			if w.StdoutListing && so != deps.Table.Listing() {
				t.Errorf("stdout %q, want the registration listing", so)
			}
			if w.Stderr != nil && se != *w.Stderr {
				t.Errorf("stderr %q, want %q", se, *w.Stderr)
			}
			if w.StderrPrefix != "" && !strings.HasPrefix(se, w.StderrPrefix) {
				t.Errorf("stderr %q, want prefix %q", se, w.StderrPrefix)
			}
			if tc.Command != "" && len(tc.Command) > 12 && (strings.Contains(so, tc.Command) || strings.Contains(se, tc.Command)) {
				t.Errorf("the answer echoes the command")
			}
		})
	}
}

// TestNoChildProcessOnPreTool traces the real process with strace: the
// pre-tool path (deny and allow) executes no program besides itself.
func TestNoChildProcessOnPreTool(t *testing.T) {
	hw := testbin.Hookwarden(t)
	repo, _ := governedRepo(t)
	for _, command := range []string{"git status", "git commit --no-verify -m x", "cd " + repo + " && git -C " + repo + " push"} {
		if execs, _, trace := traced(t, repo, payloadFor(t, "claude", command, repo), hw, "hook", "claude", "pre-tool"); execs != 1 {
			t.Fatalf("pre-tool started a child process (%d exec/fork calls):\n%s", execs, trace)
		}
	}
}

// traced runs argv in dir under strace -f with stdin and returns how many
// exec and fork calls the process tree made (1: only argv itself), its
// exit code and the trace.
func traced(t *testing.T, dir string, stdin []byte, argv ...string) (execs, exit int, trace []byte) {
	t.Helper()
	strace := testbin.Need(t, "strace") // apt-get install strace
	file := filepath.Join(t.TempDir(), "trace")
	cmd := exec.Command(strace, append([]string{"-f", "-qq", "-e", "trace=execve,execveat,fork,vfork", "-o", file}, argv...)...)
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		exit = ee.ExitCode()
	case err != nil:
		t.Fatalf("strace: %v\n%s", err, out)
	}
	trace, err = os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimSpace(string(trace)), "\n") {
		if strings.Contains(l, "execve(") || strings.Contains(l, "execveat(") || strings.Contains(l, "fork(") {
			execs++
		}
	}
	return execs, exit, trace
}

// TestProcessStdinNeverClosed: a client that never closes stdin cannot hold
// the real process past the pre-tool budget (5 s in the registration
// table); the call is denied with the reason.
func TestProcessStdinNeverClosed(t *testing.T) {
	hw := testbin.Hookwarden(t)
	repo, _ := governedRepo(t)
	deps, err := Deps()
	if err != nil {
		t.Fatal(err)
	}
	row, ok := deps.Table.Lookup("claude", "pre-tool")
	if !ok {
		t.Fatal("no claude pre-tool row")
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	pw.Write([]byte(`{"hook_event_name":"PreToolUse","tool_name":"Bash",`))
	cmd := exec.Command(hw, "hook", "claude", "pre-tool")
	cmd.Dir = repo
	cmd.Stdin = pr
	var errb bytes.Buffer
	cmd.Stderr = &errb
	start := time.Now()
	err = cmd.Run()
	elapsed := time.Since(start)
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 {
		t.Fatalf("err %v, want exit 2", err)
	}
	if !strings.Contains(errb.String(), "stdin was not closed within the event's budget") {
		t.Fatalf("stderr %q", errb.String())
	}
	if elapsed < row.Budget() || elapsed > row.ClientTimeout() {
		t.Fatalf("answered after %v; want after the %v budget and before the client's %v timeout", elapsed, row.Budget(), row.ClientTimeout())
	}
}

// TestClosedStreams runs the built binary with its stdout or stderr handed
// to a pipe whose reading end the "client" has already closed (issue 14
// item 5): a deny keeps its exit code (2, lefthook 1) instead of dying by
// SIGPIPE, and an answer that lets the call through but cannot be written
// (agy's JSON decision, lefthook's allow marker) fails the call.
func TestClosedStreams(t *testing.T) {
	hw := testbin.Hookwarden(t)
	repo, _ := governedRepo(t)
	home := filepath.Join(filepath.Dir(repo), "home")
	cases := []struct {
		name, client, command string
		closeStdout           bool
		closeStderr           bool
		want                  int
	}{
		{"claude deny, stderr closed", "claude", "git commit --no-verify -m x", false, true, 2},
		{"claude deny, both closed", "claude", "git commit --no-verify -m x", true, true, 2},
		{"codex deny, stderr closed", "codex", "git commit --no-verify -m x", false, true, 2},
		{"gemini deny, stderr closed", "gemini", "git commit --no-verify -m x", false, true, 2},
		{"lefthook deny, stderr closed", "lefthook", "git commit --no-verify -m x", false, true, 1},
		{"lefthook allow, stdout closed: the marker is lost", "lefthook", "ls", true, false, 1},
		{"agy allow, stdout closed: the decision is lost", "agy", "ls", true, false, 2},
		{"agy deny, stdout closed", "agy", "git commit --no-verify -m x", true, false, 2},
		{"claude allow, stdout closed: nothing to write", "claude", "ls", true, false, 0},
		{"claude allow, both closed: nothing to write", "claude", "ls", true, true, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(hw, "hook", tc.client, "pre-tool")
			cmd.Dir = repo
			cmd.Stdin = bytes.NewReader(payloadFor(t, tc.client, tc.command, repo))
			cmd.Env = []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "PATH=" + os.Getenv("PATH")}
			closed := func() *os.File {
				r, w, err := os.Pipe()
				if err != nil {
					t.Fatal(err)
				}
				r.Close() // the client is gone: every write is EPIPE (or SIGPIPE)
				t.Cleanup(func() { w.Close() })
				return w
			}
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			if tc.closeStdout {
				cmd.Stdout = closed()
			}
			if tc.closeStderr {
				cmd.Stderr = closed()
			}
			err := cmd.Run()
			var ee *exec.ExitError
			code := 0
			if errors.As(err, &ee) {
				code = ee.ExitCode() // -1 when a signal ended it
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tc.want {
				t.Fatalf("exit %d (%v), want %d", code, err, tc.want)
			}
		})
	}
}

// TestNoChildProcessOnPreEditGuard traces the real process with strace: the
// edit guard's denies (a guard file by a relative path, by a symlink, the git
// hooks directory) execute no program besides the hook itself. An edit the
// guard lets through goes on to the checkpoint, which runs git (issue 6;
// engine/checkpoint) and is not traced here.
func TestNoChildProcessOnPreEditGuard(t *testing.T) {
	hw := testbin.Hookwarden(t)
	repo, _ := governedRepo(t)
	if err := os.Symlink(".hookwarden.yaml", filepath.Join(repo, "alias.yaml")); err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{".hookwarden.yaml", "alias.yaml", ".git/hooks/pre-commit"} {
		payload, _ := json.Marshal(map[string]any{"session_id": "s", "transcript_path": "/t.jsonl", "cwd": repo,
			"permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": "Write",
			"tool_input": map[string]any{"file_path": target, "content": "x"}, "tool_use_id": "toolu_01"})
		execs, exit, trace := traced(t, repo, payload, hw, "hook", "claude", "pre-edit")
		if exit != 2 {
			t.Fatalf("%s: exit %d, want a deny (2)", target, exit)
		}
		if execs != 1 {
			t.Fatalf("%s: pre-edit started a child process (%d exec/fork calls):\n%s", target, execs, trace)
		}
	}
}
