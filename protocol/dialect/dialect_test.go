package dialect

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/hookwarden/hookwarden/internal/posixtest"
	"github.com/hookwarden/hookwarden/protocol/registration"
	"github.com/hookwarden/hookwarden/protocol/verdict"
)

func row(t testing.TB, client, event string) registration.Row {
	t.Helper()
	tab, err := registration.Default()
	if err != nil {
		t.Fatal(err)
	}
	r, ok := tab.Lookup(client, event)
	if !ok {
		t.Fatalf("no row %s %s", client, event)
	}
	return r
}

type decodeWant struct {
	Caller         string   `json:"caller"`
	EventName      string   `json:"event_name"`
	ToolName       string   `json:"tool_name"`
	Unjudged       bool     `json:"unjudged"`
	Command        string   `json:"command"`
	FilePath       string   `json:"file_path"`
	Targets        []string `json:"targets"`
	Cwd            string   `json:"cwd"`
	WorkspacePaths []string `json:"workspace_paths"`
	LastMessage    string   `json:"last_message"`
	StopHookActive bool     `json:"stop_hook_active"`
}

func TestDecodeCorpus(t *testing.T) {
	data, err := os.ReadFile("testdata/decode.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Name      string      `json:"name"`
		Client    string      `json:"client"`
		Event     string      `json:"event"`
		Input     *string     `json:"input"`
		InputFile string      `json:"input_file"`
		InputHex  string      `json:"input_hex"`
		InputNest int         `json:"input_nest"`
		Err       string      `json:"err"`
		Want      *decodeWant `json:"want"`
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			var in []byte
			switch {
			case tc.Input != nil:
				in = []byte(*tc.Input)
			case tc.InputFile != "":
				if in, err = os.ReadFile(tc.InputFile); err != nil {
					t.Fatal(err)
				}
			case tc.InputHex != "":
				if in, err = hex.DecodeString(tc.InputHex); err != nil {
					t.Fatal(err)
				}
			case tc.InputNest > 0:
				in = []byte(`{"hook_event_name":"PreToolUse","x":` + strings.Repeat("[", tc.InputNest) + strings.Repeat("]", tc.InputNest) + `}`)
			default:
				t.Fatal("case has no input")
			}
			if tc.Want != nil && strings.HasPrefix(tc.Want.Cwd, "/") && tc.Client == "windsurf" {
				// The directory is derived from an absolute file path.
				posixtest.SkipOnWindows(t, "the case derives the directory from a Unix absolute path (/w/repo/...), which is not absolute on Windows")
			}
			p, err := Decode(row(t, tc.Client, tc.Event), in)
			if tc.Err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.Err) {
					t.Fatalf("err = %v, want containing %q", err, tc.Err)
				}
				if p.Command != "" && strings.Contains(err.Error(), p.Command) {
					t.Fatalf("error echoes the command")
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			got := decodeWant{p.Caller, p.EventName, p.ToolName, p.Unjudged != "", p.Command, p.FilePath, p.Targets, p.Cwd, p.WorkspacePaths, p.LastMessage, p.StopHookActive}
			if d := cmp.Diff(*tc.Want, got); d != "" {
				t.Fatalf("payload (-want +got):\n%s", d)
			}
		})
	}
}

func kindOf(s string) verdict.Kind {
	for k := verdict.Allow; k <= verdict.Context; k++ {
		if k.String() == s {
			return k
		}
	}
	return verdict.Kind(99)
}

func TestEncodeCorpus(t *testing.T) {
	data, err := os.ReadFile("testdata/encode.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Client, Event, Kind, Rule, Reason string
		Want                              struct {
			Exit           int
			Stdout, Stderr string
		}
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		t.Run(tc.Client+"/"+tc.Event+"/"+tc.Kind, func(t *testing.T) {
			a := Encode(row(t, tc.Client, tc.Event), verdict.Verdict{Kind: kindOf(tc.Kind), RuleID: tc.Rule, Reason: tc.Reason})
			if a.Exit != tc.Want.Exit || string(a.Stdout) != tc.Want.Stdout || string(a.Stderr) != tc.Want.Stderr {
				t.Fatalf("got exit %d stdout %q stderr %q; want exit %d stdout %q stderr %q",
					a.Exit, a.Stdout, a.Stderr, tc.Want.Exit, tc.Want.Stdout, tc.Want.Stderr)
			}
		})
	}
}

// Every agy answer is exactly one JSON object with a decision: a block is
// "deny" for pre-tool and "continue" for stop (agyBlock); anything else is
// "allow".
func TestAgyAlwaysOneJSONObject(t *testing.T) {
	for _, ev := range []string{"pre-tool", "stop"} {
		for k := verdict.Allow; k <= verdict.Context+1; k++ {
			a := Encode(row(t, "agy", ev), verdict.Verdict{Kind: k, Reason: "r"})
			var v map[string]any
			dec := json.NewDecoder(strings.NewReader(string(a.Stdout)))
			if err := dec.Decode(&v); err != nil {
				t.Fatalf("%s %v: stdout %q is not JSON: %v", ev, k, a.Stdout, err)
			}
			if dec.More() {
				t.Fatalf("%s %v: more than one JSON value", ev, k)
			}
			d, _ := v["decision"].(string)
			blocks := k == verdict.Deny || k > verdict.Context || (k == verdict.Halt && ev != "stop") // a halt off stop is a deny
			switch {
			case ev == "stop" && blocks && d != "continue":
				t.Fatalf("%s %v: decision %q, want continue (the stop block)", ev, k, d)
			case ev == "pre-tool" && blocks && d != "deny":
				t.Fatalf("%s %v: decision %q, want deny", ev, k, d)
			case !blocks && d != "allow":
				t.Fatalf("%s %v: decision %q, want allow", ev, k, d)
			}
		}
	}
}

func TestEncodeCapsReason(t *testing.T) {
	long := strings.Repeat("é", 3000) // 6000 bytes
	for _, c := range []string{"claude", "agy"} {
		a := Encode(row(t, c, "pre-tool"), verdict.Verdict{Kind: verdict.Deny, Reason: long})
		out := a.Stderr
		if c == "agy" {
			var v struct{ Reason string }
			if err := json.Unmarshal(a.Stdout, &v); err != nil {
				t.Fatal(err)
			}
			out = []byte(v.Reason)
		}
		if len(out) > verdict.MaxReasonBytes+1 || !utf8.Valid(out) {
			t.Fatalf("%s: reason of %d bytes, valid UTF-8 %v", c, len(out), utf8.Valid(out))
		}
	}
}

type blockingReader struct{ ch chan struct{} }

func (b blockingReader) Read([]byte) (int, error) { <-b.ch; return 0, io.EOF }

func TestReadInputBounds(t *testing.T) {
	br := blockingReader{make(chan struct{})}
	defer close(br.ch)
	start := time.Now()
	if _, err := ReadInputUntil(br, time.Now().Add(50*time.Millisecond)); !errors.Is(err, ErrInputTimeout) {
		t.Fatalf("err = %v, want ErrInputTimeout", err)
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Fatalf("a stdin that never closes held the hook for %v", el)
	}
	big := strings.NewReader(strings.Repeat("x", MaxInputBytes+1))
	if _, err := ReadInputUntil(big, time.Time{}); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("oversized input: err = %v", err)
	}
	exact := strings.NewReader(strings.Repeat("x", MaxInputBytes))
	if b, err := ReadInputUntil(exact, time.Time{}); err != nil || len(b) != MaxInputBytes {
		t.Fatalf("input at the bound: %d bytes, err %v", len(b), err)
	}
}

// FuzzDecode: no input panics the decoder, every error is safe to show, and
// a successful pre-tool decode yields valid UTF-8.
func FuzzDecode(f *testing.F) {
	for _, p := range []string{
		"../../testdata/clients/claude/2.1.328/pre-tool.json",
		"../../testdata/clients/codex/0.169.0/stop.json",
		"../../testdata/clients/gemini/0.61.0/pre-tool.json",
		"../../testdata/clients/opencode/1.18.33/pre-tool.json",
	} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"toolCall":{"name":"run_command","args":{"CommandLine":"ls"}},"workspacePaths":["/a"]}`))
	f.Add([]byte(`{"a":{"a":{"a":[[[[{}]]]]}}}`))
	f.Add([]byte(`{"a":1}{"a":2}`))
	f.Add([]byte("{\"x\":\"\xff\"}"))
	tab, err := registration.Default()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, r := range tab.Rows {
			p, err := Decode(r, data)
			if err == nil && !utf8.ValidString(p.Command) {
				t.Fatalf("%s %s: command is not valid UTF-8", r.Client, r.Event)
			}
			_ = Encode(r, verdict.Verdict{Kind: verdict.Deny, Reason: string(data)})
		}
	})
}

// TestReadInputUntilPipe reads the hook's stdin as the clients hand it over:
// a pipe. A writer that never closes it is cut off at the deadline (the
// poll(2) path on Unix, no goroutine), a closed pipe is read whole, and a pipe
// carrying more than MaxInputBytes is refused, not truncated.
func TestReadInputUntilPipe(t *testing.T) {
	t.Run("never closed", func(t *testing.T) {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		defer w.Close()
		if _, err := w.WriteString(`{"partial":`); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		_, err = ReadInputUntil(r, start.Add(100*time.Millisecond))
		if !errors.Is(err, ErrInputTimeout) {
			t.Fatalf("err = %v, want ErrInputTimeout", err)
		}
		if el := time.Since(start); el < 100*time.Millisecond || el > 2*time.Second {
			t.Fatalf("gave up after %v, want at the 100 ms deadline", el)
		}
	})
	t.Run("closed", func(t *testing.T) {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		want := `{"hook_event_name":"PreToolUse"}` + strings.Repeat(" ", 70_000)
		go func() { w.WriteString(want); w.Close() }()
		got, err := ReadInputUntil(r, time.Now().Add(5*time.Second))
		if err != nil || string(got) != want {
			t.Fatalf("read %d bytes (want %d), err %v", len(got), len(want), err)
		}
	})
	t.Run("too large", func(t *testing.T) {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		go func() { w.Write(make([]byte, MaxInputBytes+10)); w.Close() }()
		if _, err := ReadInputUntil(r, time.Now().Add(5*time.Second)); err == nil || !strings.Contains(err.Error(), "larger than") {
			t.Fatalf("oversized pipe: err = %v", err)
		}
	})
	t.Run("regular file", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "payload.json")
		if err := os.WriteFile(p, []byte(`{"a":1}`), 0o600); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		got, err := ReadInputUntil(f, time.Now().Add(time.Second))
		if err != nil || string(got) != `{"a":1}` {
			t.Fatalf("got %q, err %v", got, err)
		}
	})
	t.Run("deadline passed", func(t *testing.T) {
		r, w, _ := os.Pipe()
		defer r.Close()
		defer w.Close()
		if _, err := ReadInputUntil(r, time.Now().Add(-time.Second)); !errors.Is(err, ErrInputTimeout) {
			t.Fatalf("pipe with an expired deadline: err = %v", err)
		}
	})
}

// TestMatcherFastPathAgreesWithRegexp: for every matcher the fast path takes
// (anchored alternations of literal names) and for near misses it must not
// take, matches gives the same answer as compiling the matcher as RE2, on the
// tool names the clients send and on names that differ by case, prefix or
// suffix.
func TestMatcherFastPathAgreesWithRegexp(t *testing.T) {
	tab, err := registration.Default()
	if err != nil {
		t.Fatal(err)
	}
	matchers := []string{"^a$", "^(a|b)$", "^a|b$", "^(a)|(b)$", "^(a.b)$", "^(a|)$", "^()$", "^Bash", "Bash$", "^(Bash$", "^Bash)$", "^Ba(sh)$"}
	tools := []string{"", "a", "b", "ab", "a|b", "axb", "A", "Bash", "bash", "Bashx", "xBash", "(Bash", "Edit", "Write", "run_shell_command", "write_file", "replace", "run_command", "NotebookEdit", "MultiEdit"}
	fast := 0
	for _, r := range tab.Rows {
		if r.Matcher != "" {
			matchers = append(matchers, r.Matcher)
		}
	}
	for _, m := range matchers {
		if _, ok := literalAlternation(m); ok {
			fast++
		}
		re, reErr := regexp.Compile(m)
		for _, tool := range tools {
			got, err := matches(registration.Row{Matcher: m}, tool)
			if reErr != nil {
				if err == nil {
					t.Errorf("matcher %q is not RE2 but matches accepted it", m)
				}
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if want := re.MatchString(tool); got != want {
				t.Errorf("matcher %q, tool %q: matches = %v, RE2 says %v", m, tool, got, want)
			}
		}
	}
	for _, r := range tab.Rows {
		if r.Event == "subagent-start" || r.Event == "post-return" {
			// These matchers select agent_type in the client (^.+$ keeps
			// agents without a type out); the engine never evaluates them.
			continue
		}
		if _, ok := literalAlternation(r.Matcher); r.Matcher != "" && !ok {
			t.Errorf("row %s %s: matcher %q does not take the fast path", r.Client, r.Event, r.Matcher)
		}
	}
	if fast < 3 {
		t.Fatalf("only %d matchers took the fast path", fast)
	}
}
