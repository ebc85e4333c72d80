package redact_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hookwarden/hookwarden/internal/posixtest"
	"github.com/hookwarden/hookwarden/spawn"
	"github.com/hookwarden/hookwarden/spawn/redact"
)

// TestPreHookRefusalCases replays testdata/redact/pre-hook-refusals.json
// through the exit hook with the shipped claude-2.1.328 table's
// pre_hook_refusals in the payload (as spawn exec sends them): each case's
// outcome, the calls it lets pass as refused before any hook, and the
// calls it fails the run on.
func TestPreHookRefusalCases(t *testing.T) {
	tab, err := spawn.LoadTable(spawn.Tables(), "claude", "2.1.328")
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.PreHookRefusals) == 0 {
		t.Fatal("the shipped claude-2.1.328 table records no pre-hook refusal form")
	}
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "redact", "pre-hook-refusals.json"))
	if err != nil {
		t.Fatal(err)
	}
	var corpus struct {
		Values map[string]string `json:"values"`
		Cases  []struct {
			Name        string            `json:"name"`
			Transcript  []json.RawMessage `json:"transcript"`
			Receipts    []json.RawMessage `json:"receipts"`
			NoForms     bool              `json:"no_forms"`
			Want        string            `json:"want"`
			Refused     []string          `json:"refused"`
			Unreceipted []string          `json:"unreceipted"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(b, &corpus); err != nil {
		t.Fatal(err)
	}
	for _, c := range corpus.Cases {
		t.Run(c.Name, func(t *testing.T) {
			dir := t.TempDir()
			table, receipts, transcript := filepath.Join(dir, "table.json"), filepath.Join(dir, "receipts.jsonl"), filepath.Join(dir, "transcript.jsonl")
			tb, _ := (&redact.Table{Version: 1, Values: corpus.Values}).Marshal()
			var rl, tl []string
			for _, r := range c.Receipts {
				rl = append(rl, string(r)+"\n")
			}
			for _, l := range c.Transcript {
				var buf bytes.Buffer
				json.Compact(&buf, l)
				tl = append(tl, buf.String()+"\n")
			}
			posixtest.Umask(t, 0o077)
			os.WriteFile(table, tb, 0o600)
			os.WriteFile(receipts, []byte(strings.Join(rl, "")), 0o600)
			os.WriteFile(transcript, []byte(strings.Join(tl, "")), 0o600)
			payload := map[string]any{"version": 1, "run_id": "r", "engine": "claude", "child": 1, "table_sha256": redact.Digest(tb),
				"exit": map[string]int{"code": 0}, "session_id": "s", "transcript": transcript}
			if !c.NoForms {
				payload["pre_hook_refusals"] = tab.PreHookRefusals
			}
			pb, _ := json.Marshal(payload)
			env := map[string]string{redact.EnvTable: table, redact.EnvReceipts: receipts}
			var out, errb bytes.Buffer
			err := redact.Exit(redact.Env{Engine: "claude", Getenv: func(k string) string { return env[k] },
				Stdin: bytes.NewReader(pb), Stdout: &out, Stderr: &errb})
			got := "ok"
			var f *redact.Failure
			if errors.As(err, &f) {
				got = "fail"
			} else if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			var rep redact.ExitReport
			if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
				t.Fatalf("report: %v: %s", err, out.String())
			}
			if got != c.Want {
				t.Errorf("outcome %s, want %s: %v", got, c.Want, rep.Problems)
			}
			if c.Refused == nil {
				c.Refused = []string{}
			}
			if c.Unreceipted == nil {
				c.Unreceipted = []string{}
			}
			if !slices.Equal(rep.RefusedBeforeHooks, c.Refused) {
				t.Errorf("refused before hooks %q, want %q", rep.RefusedBeforeHooks, c.Refused)
			}
			if !slices.Equal(rep.Unreceipted, c.Unreceipted) {
				t.Errorf("unreceipted %q, want %q", rep.Unreceipted, c.Unreceipted)
			}
		})
	}
}

// TestRefusalFormsChecked: a form that cannot be applied exactly is an
// error when a table is loaded or the exit hook reads its payload: an
// empty expression, one that does not compile, a tool_result with no
// group named tool.
func TestRefusalFormsChecked(t *testing.T) {
	for _, f := range []redact.RefusalForm{
		{Name: "empty", ToolResult: "", ToolUseResult: "x(?P<tool>y)"},
		{Name: "bad", ToolResult: "(?P<tool>x", ToolUseResult: "x"},
		{Name: "no tool group", ToolResult: "No such tool available: [A-Za-z]+", ToolUseResult: "x"},
	} {
		if err := redact.CheckRefusalForms([]redact.RefusalForm{f}); err == nil {
			t.Errorf("form %q accepted", f.Name)
		}
	}
	if err := redact.CheckRefusalForms([]redact.RefusalForm{{Name: "ok", ToolResult: "no (?P<tool>[a-z]+)", ToolUseResult: "no"}}); err != nil {
		t.Errorf("a good form refused: %v", err)
	}
}
