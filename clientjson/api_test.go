package clientjson

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"
)

func readCorpus(t *testing.T, name string, v any) {
	t.Helper()
	raw, err := os.ReadFile("../testdata/clientjson/" + name)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

func TestMatcherCorpus(t *testing.T) {
	var corpus struct {
		Selects []struct {
			Client, Matcher, Tool, Why string
			Want                       bool
		}
		Equivalent []struct {
			Client, A, B, Why string
			Want              bool
		}
	}
	readCorpus(t, "matchers.json", &corpus)
	if len(corpus.Selects) == 0 || len(corpus.Equivalent) == 0 {
		t.Fatal("empty matcher corpus")
	}
	for _, c := range corpus.Selects {
		if got := Selects(c.Client, c.Matcher, c.Tool); got != c.Want {
			t.Errorf("Selects(%q, %q, %q) = %v, want %v: %s", c.Client, c.Matcher, c.Tool, got, c.Want, c.Why)
		}
	}
	for _, c := range corpus.Equivalent {
		if got := Equivalent(c.Client, c.A, c.B); got != c.Want {
			t.Errorf("Equivalent(%q, %q, %q) = %v, want %v: %s", c.Client, c.A, c.B, got, c.Want, c.Why)
		}
		if got := Equivalent(c.Client, c.B, c.A); got != c.Want {
			t.Errorf("Equivalent is not symmetric for %q, %q", c.A, c.B)
		}
	}
}

// TestEquivalentIsSound checks, over every pair of matchers in the corpus
// and a list of tool names, that Equivalent never says "equivalent" for two
// matchers that Selects tells apart on some tool.
func TestEquivalentIsSound(t *testing.T) {
	var corpus struct {
		Selects    []struct{ Client, Matcher string }
		Equivalent []struct {
			Client, A, B string
		}
	}
	readCorpus(t, "matchers.json", &corpus)
	matchers := map[string][]string{}
	for _, c := range corpus.Selects {
		matchers[c.Client] = append(matchers[c.Client], c.Matcher)
	}
	for _, c := range corpus.Equivalent {
		matchers[c.Client] = append(matchers[c.Client], c.A, c.B)
	}
	tools := []string{"Bash", "BashOutput", "Edit", "Write", "MultiEdit", "NotebookEdit", "Read", "bash",
		"run_shell_command", "run_shell_command_v2", "write_file", "replace", "mcp__fs__read_file", "B.sh", "Ba", "["}
	for client, ms := range matchers {
		for _, a := range ms {
			for _, b := range ms {
				if !Equivalent(client, a, b) {
					continue
				}
				for _, tool := range tools {
					if Selects(client, a, tool) != Selects(client, b, tool) {
						t.Errorf("%s: Equivalent(%q, %q) but they differ on %q", client, a, b, tool)
					}
				}
			}
		}
	}
}

func TestHooksDisabledCorpus(t *testing.T) {
	var corpus []struct {
		Client, Src, Why, Error string
		Want                    bool
	}
	readCorpus(t, "hooks_disabled.json", &corpus)
	for _, c := range corpus {
		got, err := HooksDisabled("settings.json", []byte(c.Src), c.Client)
		if c.Error != "" {
			if err == nil || !strings.Contains(err.Error(), c.Error) {
				t.Errorf("%s: HooksDisabled(%q) error %v, want one containing %q", c.Why, c.Src, err, c.Error)
			}
			continue
		}
		if err != nil || got != c.Want {
			t.Errorf("%s: HooksDisabled(%q) = %v, %v; want %v", c.Why, c.Src, got, err, c.Want)
		}
	}
}

func TestRegisteredListsOurHandlersWithLines(t *testing.T) {
	src, err := os.ReadFile("../testdata/clientjson/claude-retract-unwanted-event/before.json")
	if err != nil {
		t.Fatal(err)
	}
	all, err := Registered(".claude/settings.json", src, "claude", testOwner(t, "claude", nil))
	if err != nil {
		t.Fatal(err)
	}
	got := ourFound(all)
	want := []Found{
		{NativeEvent: "PreToolUse", Matcher: "^Bash$", Command: ".hookwarden/hook.py claude pre-tool", Timeout: 15, HasTimeout: true, Line: 7, Claim: Claim{Current, "pre-tool"}},
		{NativeEvent: "Stop", Matcher: "", Command: ".hookwarden/hook.py claude stop", Timeout: 30, HasTimeout: true, Line: 18, Claim: Claim{Current, "stop"}},
	}
	if len(got) != len(want) || len(all) <= len(got) {
		t.Fatalf("Registered = %+v, want %+v among foreign handlers", all, want)
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("Registered[%d] = %+v, want %+v", i, got[i], want[i])
		}
	}
	none, err := Registered("x", src, "claude", nil)
	if err != nil || len(none) != len(all) || len(ourFound(none)) != 0 {
		t.Errorf("nil owner: %v, %v; want every handler, none ours", none, err)
	}
}

func TestUnknownClient(t *testing.T) {
	_, err := Merge("x", []byte("{}"), "agy", nil, Options{})
	if !errors.Is(err, ErrUnknownClient) {
		t.Errorf("Merge with client agy: %v, want ErrUnknownClient", err)
	}
	if _, err := HooksDisabled("x", nil, "lefthook"); !errors.Is(err, ErrUnknownClient) {
		t.Errorf("HooksDisabled: %v", err)
	}
	if _, err := Registered("x", nil, "", nil); !errors.Is(err, ErrUnknownClient) {
		t.Errorf("Registered: %v", err)
	}
}

func TestParseErrorMessage(t *testing.T) {
	_, err := Merge("repo/.claude/settings.json", []byte("{\n  \"a\": 1,\n  \"b\": [1, 2,]\n}\n"), "claude",
		[]Handler{{NativeEvent: "Stop", Command: "x"}}, Options{})
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("error %v is not a *ParseError", err)
	}
	if pe.Line != 3 || pe.Col != 13 {
		t.Errorf("position %d:%d, want 3:13 (the comma)", pe.Line, pe.Col)
	}
	msg := err.Error()
	for _, part := range []string{"repo/.claude/settings.json:3:13:", "trailing comma", "fix: remove the comma"} {
		if !strings.Contains(msg, part) {
			t.Errorf("message %q lacks %q", msg, part)
		}
	}
}

func TestColumnCountsCharactersNotBytes(t *testing.T) {
	_, err := Merge("s.json", []byte("{\"é\": 1, \"é\": 2}"), "claude", nil, Options{})
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != 1 || pe.Col != 10 {
		t.Fatalf("got %v, want a duplicate-key error at 1:10 (byte column would be 11)", err)
	}
}

func TestNothingWantedLeavesFileAlone(t *testing.T) {
	for _, src := range []string{"", "{}", "{\n  \"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \".hookwarden/hook.py claude stop\"}]}]}\n}\n"} {
		res, err := Merge("s.json", []byte(src), "claude", nil, Options{Owner: testOwner(t, "claude", nil)})
		if err != nil || string(res.Out) != src || len(res.Changes) != 0 {
			t.Errorf("Merge(%q, nothing wanted, no retract) = %q, %+v, %v", src, res.Out, res.Changes, err)
		}
	}
}

func TestMergeRefusesMalformedWant(t *testing.T) {
	bad := []Handler{
		{NativeEvent: "", Command: "x"},
		{NativeEvent: "Stop", Command: ""},
		{NativeEvent: "Stop", Command: "x", Timeout: -1},
		{NativeEvent: "Stop", Command: "x", Timeout: math.Inf(1)},
		{NativeEvent: "Stop", Command: "x", Timeout: math.NaN()},
	}
	for _, h := range bad {
		res, err := Merge("s.json", []byte("{}"), "claude", []Handler{h}, Options{})
		if err == nil {
			t.Errorf("Merge accepted %+v and wrote %q", h, res.Out)
		}
	}
}
