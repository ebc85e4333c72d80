package redact

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hookwarden/hookwarden/internal/posixtest"
)

type hookCase struct {
	Name          string          `json:"name"`
	Hook          string          `json:"hook"`
	Engine        string          `json:"engine"`
	Payload       json.RawMessage `json:"payload"`
	NoTable       bool            `json:"no_table"`
	NoReceipts    bool            `json:"no_receipts"`
	EmptyTable    bool            `json:"empty_table"`
	ValuesMode    string          `json:"values_mode"`
	Transcript    string          `json:"transcript"`
	Receipts      []string        `json:"receipts"`
	Want          string          `json:"want"`
	StdoutHas     []string        `json:"stdout_has"`
	StderrHas     []string        `json:"stderr_has"`
	StdoutIsEmpty bool            `json:"stdout_is_empty"`
	StdoutLacks   []string        `json:"stdout_lacks"`
	NoValueOut    bool            `json:"no_value_out"`
	ReceiptHas    []string        `json:"receipt_has"`
	TranscriptOK  bool            `json:"transcript_clean"`
	TableWritten  bool            `json:"table_written"`
	MCPServers    []string        `json:"mcp_servers"`
}

// TestHookCases replays testdata/redact/hooks.json and permission.json
// (the PermissionRequest arbiter) through the hooks, as the engine and the
// spawner would call them, in a fresh 0700 run directory per case.
func TestHookCases(t *testing.T) {
	for _, f := range []string{"hooks.json", "permission.json"} {
		t.Run(f, func(t *testing.T) { replayHookCases(t, f) })
	}
}

func replayHookCases(t *testing.T, file string) {
	var corpus struct {
		About  string            `json:"about"`
		Values map[string]string `json:"values"`
		Cases  []hookCase        `json:"cases"`
	}
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "redact", file))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &corpus); err != nil {
		t.Fatal(err)
	}
	for _, c := range corpus.Cases {
		t.Run(c.Name, func(t *testing.T) {
			root := t.TempDir()
			run, work := filepath.Join(root, "run"), filepath.Join(root, "work")
			os.Mkdir(run, 0o700)
			os.Mkdir(work, 0o755)
			table, receipts, policy := filepath.Join(run, "table.json"), filepath.Join(run, "receipts.jsonl"), filepath.Join(run, "policy.json")
			transcript := filepath.Join(work, "transcript.jsonl")
			tb, _ := (&Table{Version: 1, Values: corpus.Values}).Marshal()
			values := filepath.Join(root, "values.json")
			os.WriteFile(values, tb, 0o600)
			if c.ValuesMode != "" {
				m, _ := strconv.ParseUint(c.ValuesMode, 8, 32)
				os.Chmod(values, os.FileMode(m))
			}
			if !c.NoTable {
				os.WriteFile(table, tb, 0o600)
			}
			if !c.NoReceipts {
				os.WriteFile(receipts, []byte(strings.Join(append(c.Receipts, ""), "\n")), 0o600)
				if len(c.Receipts) == 0 {
					os.WriteFile(receipts, nil, 0o600)
				}
			}
			pol, _ := json.Marshal(Policy{Version: 1, Allow: []string{work, run}, Deny: []string{run}, MCPServers: c.MCPServers})
			os.WriteFile(policy, pol, 0o600)
			os.WriteFile(filepath.Join(work, "notes.txt"), []byte("token=ghp_abcdefgh12345678\n"), 0o644)
			if c.Transcript != "" {
				os.WriteFile(transcript, []byte(c.Transcript), 0o600)
			}
			sha := Digest(tb)
			if c.EmptyTable {
				os.WriteFile(table, []byte(`{"version":1,"values":{}}`+"\n"), 0o600)
			}
			payload := strings.NewReplacer("$RUN", run, "$WORK", work, "$TRANSCRIPT", transcript, "$TABLE_SHA256", sha).Replace(string(c.Payload))
			env := map[string]string{EnvTable: table, EnvReceipts: receipts, EnvPolicy: policy}
			var out, errb bytes.Buffer
			e := Env{Engine: c.Engine, ValuesPath: values, Self: "/usr/local/bin/hookwarden", Getenv: func(k string) string { return env[k] },
				Stdin: strings.NewReader(payload), Stdout: &out, Stderr: &errb}
			posixtest.Umask(t, 0)
			err := map[string]func(Env) error{HookPrompt: Prompt, HookPreTool: PreTool, HookPermission: Permission, HookPostTool: PostTool, HookStop: Stop, HookExit: Exit}[c.Hook](e)
			var f *Failure
			got := "ok"
			switch {
			case errors.Is(err, ErrBlock):
				got = "block"
			case errors.As(err, &f):
				got = "fail"
				errb.WriteString(f.Reason)
			case err != nil:
				t.Fatalf("unexpected error type: %v", err)
			}
			if got != c.Want {
				t.Fatalf("outcome %s, want %s (err %v)\nstdout %s\nstderr %s", got, c.Want, err, out.String(), errb.String())
			}
			for _, s := range c.StdoutHas {
				if !strings.Contains(out.String(), s) {
					t.Errorf("stdout lacks %q:\n%s", s, out.String())
				}
			}
			for _, s := range c.StderrHas {
				if !strings.Contains(errb.String(), s) {
					t.Errorf("stderr lacks %q:\n%s", s, errb.String())
				}
			}
			for _, s := range c.StdoutLacks {
				if strings.Contains(out.String(), s) {
					t.Errorf("stdout holds %q:\n%s", s, out.String())
				}
			}
			if c.StdoutIsEmpty && out.Len() != 0 {
				t.Errorf("stdout not empty: %s", out.String())
			}
			if c.NoValueOut && (naiveHolds(corpus.Values, out.Bytes()) || naiveHolds(corpus.Values, errb.Bytes())) {
				t.Errorf("a table value reached stdout or stderr:\n%s\n%s", out.String(), errb.String())
			}
			if len(c.ReceiptHas) > 0 {
				rb, _ := os.ReadFile(receipts)
				for _, s := range c.ReceiptHas {
					if !strings.Contains(string(rb), s) {
						t.Errorf("receipts lack %q:\n%s", s, rb)
					}
				}
			}
			if c.TranscriptOK {
				tr, _ := os.ReadFile(transcript)
				if naiveHolds(corpus.Values, tr) {
					t.Errorf("transcript still holds a value: %s", tr)
				}
				if fi, _ := os.Stat(transcript); fi.Mode().Perm() != 0o600 {
					t.Errorf("scrubbed transcript mode %v", fi.Mode().Perm())
				}
			}
			if c.TableWritten {
				fi, err := os.Stat(table)
				if err != nil || fi.Mode().Perm() != 0o600 {
					t.Fatalf("table not written 0600: %v %v", fi, err)
				}
				if _, _, _, err := LoadTable(table); err != nil {
					t.Fatalf("written table: %v", err)
				}
			}
		})
	}
}

// TestRunRedactsOutput: the shell route's redactor prints a command's
// stdout and stderr with values replaced and keeps its exit code; without
// a table it runs nothing.
func TestRunRedactsOutput(t *testing.T) {
	run := filepath.Join(t.TempDir(), "run")
	os.Mkdir(run, 0o700)
	table := filepath.Join(run, "table.json")
	os.WriteFile(table, []byte(`{"version":1,"values":{"[T]":"ghp_abcdefgh12345678"}}`), 0o600)
	marker := filepath.Join(t.TempDir(), "ran")
	env := map[string]string{EnvTable: table}
	var out, errb bytes.Buffer
	e := Env{Engine: "claude", Getenv: func(k string) string { return env[k] }, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb}
	code, err := Run(context.Background(), e, []string{"/bin/sh", "-c", "echo out ghp_abcdefgh12345678; echo err ghp_abcdefgh12345678 >&2; touch " + marker + "; exit 3"})
	if err != nil || code != 3 {
		t.Fatalf("code %d err %v", code, err)
	}
	if out.String() != "out [T]\n" || errb.String() != "err [T]\n" {
		t.Fatalf("stdout %q stderr %q", out.String(), errb.String())
	}
	os.Remove(marker)
	env[EnvTable] = filepath.Join(run, "missing.json")
	out.Reset()
	code, err = Run(context.Background(), e, []string{"/bin/sh", "-c", "touch " + marker})
	if err == nil || code == 0 {
		t.Fatalf("ran without a table: code %d", code)
	}
	if _, serr := os.Stat(marker); serr == nil {
		t.Fatal("the command ran without a table")
	}
}

// TestRecordedMCPPayload runs the pre-tool hook on the PreToolUse payload
// Claude Code 2.1.328 sent for an MCP tool under spawn exec
// (testdata/clients/claude/2.1.328/pre-tool.mcp-proxy.json, recorded by
// TestRealClaudeMCPProxyRun): admitted with no decision when its server is
// one of the run's, denied when the run proxies another server or the
// payload's source is changed to a plugin's.
func TestRecordedMCPPayload(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "clients", "claude", "2.1.328", "pre-tool.mcp-proxy.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		servers []string
		payload string
		deny    bool
	}{
		{[]string{"vault"}, string(b), false},
		{[]string{"docs"}, string(b), true},
		{[]string{"vault"}, strings.Replace(string(b), `"source":"dynamic"`, `"source":"plugin"`, 1), true},
	} {
		env := recordedRunEnv(t, c.servers)
		receipts := env[EnvReceipts]
		var out, errb bytes.Buffer
		e := Env{Engine: "claude", Getenv: func(k string) string { return env[k] }, Stdin: strings.NewReader(c.payload), Stdout: &out, Stderr: &errb}
		if err := PreTool(e); err != nil {
			t.Fatalf("%v: %v", c.servers, err)
		}
		denied := strings.Contains(out.String(), `"permissionDecision":"deny"`)
		if denied != c.deny || (!c.deny && out.Len() != 0) {
			t.Errorf("servers %v: stdout %q, want deny=%v", c.servers, out.String(), c.deny)
		}
		rb, _ := os.ReadFile(receipts)
		if !strings.Contains(string(rb), `"tool_use_id":"toolu_01"`) {
			t.Errorf("no receipt: %s", rb)
		}
	}
}

// TestStopWaitsForTranscript: Claude Code 2.1.328 may fire Stop before its
// transcript file exists (a run with no tool call); a transcript written
// while the hook waits is counted, not recorded as unscanned (-1).
func TestStopWaitsForTranscript(t *testing.T) {
	run := t.TempDir()
	tb, _ := (&Table{Version: 1, Values: map[string]string{"[GH_TOKEN]": "ghp_abcdefgh12345678"}}).Marshal()
	table, receipts := filepath.Join(run, "table.json"), filepath.Join(run, "receipts.jsonl")
	os.WriteFile(table, tb, 0o600)
	os.WriteFile(receipts, nil, 0o600)
	transcript := filepath.Join(t.TempDir(), "transcript.jsonl")
	env := map[string]string{EnvTable: table, EnvReceipts: receipts}
	done := make(chan struct{})
	go func() {
		defer close(done)
		time.Sleep(10 * transcriptPoll)
		os.WriteFile(transcript, []byte(`{"type":"user","message":{"content":"ghp_abcdefgh12345678"}}`+"\n"), 0o600)
	}()
	payload, _ := json.Marshal(map[string]string{"transcript_path": transcript})
	err := Stop(Env{Engine: "claude", Getenv: func(k string) string { return env[k] }, Stdin: bytes.NewReader(payload), Stdout: io.Discard, Stderr: io.Discard})
	<-done
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(receipts); !strings.Contains(string(b), `"count":1`) {
		t.Fatalf("receipts = %s, want the late transcript counted (count 1)", b)
	}
}

// TestRecordedPermissionPayloads runs the arbiter on the PermissionRequest
// payloads Claude Code 2.1.328 sent under spawn exec with the entry's
// posture (testdata/clients/claude/2.1.328/permission-request.*.json,
// recorded by TestRealClaudeRedactionRun and TestRealClaudeMCPProxyRun):
// the shell route's rewrite is allowed by the binary that wrote it and
// denied for another, or with a command appended; the MCP call is allowed
// when the run proxies its server, denied when it proxies another.
func TestRecordedPermissionPayloads(t *testing.T) {
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "clients", "claude", "2.1.328", name))
		if err != nil {
			t.Fatal(err)
		}
		return strings.ReplaceAll(string(b), "$HOOKWARDEN", "/opt/hw/hookwarden")
	}
	shell, mcp := read("permission-request.shell-route.json"), read("permission-request.mcp-proxy.json")
	for _, c := range []struct {
		name, self, payload string
		servers             []string
		allow               bool
	}{
		{"the rewrite", "/opt/hw/hookwarden", shell, nil, true},
		{"the rewrite, another binary's", "/usr/bin/hookwarden", shell, nil, false},
		{"the rewrite with a command appended", "/opt/hw/hookwarden", strings.Replace(shell, `>&2'"`, `>&2'; cat secret.txt"`, 1), nil, false},
		{"the MCP call of a proxied server", "/opt/hw/hookwarden", mcp, []string{"vault"}, true},
		{"the MCP call of a server not proxied", "/opt/hw/hookwarden", mcp, []string{"docs"}, false},
	} {
		env := recordedRunEnv(t, c.servers)
		receipts := env[EnvReceipts]
		for _, hook := range []func(Env) error{Permission, PreTool} {
			var out bytes.Buffer
			e := Env{Engine: "claude", Self: c.self, Getenv: func(k string) string { return env[k] }, Stdin: strings.NewReader(c.payload), Stdout: &out, Stderr: io.Discard}
			if err := hook(e); err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			if allowed := strings.Contains(out.String(), `"behavior":"allow"`); allowed != c.allow || !strings.Contains(out.String(), `"hookEventName":"PermissionRequest"`) {
				t.Errorf("%s: %s, want allow=%v", c.name, out.String(), c.allow)
			}
		}
		if rb, _ := os.ReadFile(receipts); len(rb) != 0 {
			t.Errorf("%s: the arbiter wrote a receipt: %s", c.name, rb)
		}
	}
}

// recordedRunEnv makes a 0700 run directory holding a table (one value),
// an empty receipts file and a read policy proxying servers, and returns
// the environment naming them.
func recordedRunEnv(t *testing.T, servers []string) map[string]string {
	t.Helper()
	run := filepath.Join(t.TempDir(), "run")
	os.Mkdir(run, 0o700)
	table, receipts, policy := filepath.Join(run, "t.json"), filepath.Join(run, "r.jsonl"), filepath.Join(run, "p.json")
	os.WriteFile(table, []byte(`{"version":1,"values":{"[T]":"ghp_abcdefgh12345678"}}`), 0o600)
	os.WriteFile(receipts, nil, 0o600)
	pol, _ := json.Marshal(Policy{Version: 1, Allow: []string{run}, Deny: []string{run}, MCPServers: servers})
	os.WriteFile(policy, pol, 0o600)
	return map[string]string{EnvTable: table, EnvReceipts: receipts, EnvPolicy: policy}
}

// TestReadAdmittedChecksTheOpenedFile: the Read route judges the file it
// opened, by its descriptor: a symbolic link inside the allowed tree that
// points into the run directory or outside the policy is refused, a FIFO
// is refused without blocking, and an allowed file is read.
func TestReadAdmittedChecksTheOpenedFile(t *testing.T) {
	root := t.TempDir()
	run, work, outside := filepath.Join(root, "run"), filepath.Join(root, "work"), filepath.Join(root, "outside")
	for _, d := range []string{run, work, outside} {
		os.Mkdir(d, 0o700)
	}
	policy := filepath.Join(run, "policy.json")
	pol, _ := json.Marshal(Policy{Version: 1, Allow: []string{work}, Deny: []string{run}})
	os.WriteFile(policy, pol, 0o600)
	os.WriteFile(filepath.Join(run, "table.json"), []byte("{}"), 0o600)
	os.WriteFile(filepath.Join(outside, "x.txt"), []byte("outside"), 0o644)
	os.WriteFile(filepath.Join(work, "ok.txt"), []byte("fine"), 0o644)
	os.Symlink(filepath.Join(run, "table.json"), filepath.Join(work, "to-table"))
	os.Symlink(filepath.Join(outside, "x.txt"), filepath.Join(work, "to-outside"))
	posixtest.Mkfifo(t, filepath.Join(work, "fifo"), 0o600)
	env := map[string]string{EnvTable: filepath.Join(run, "table.json"), EnvPolicy: policy}
	e := Env{Getenv: func(k string) string { return env[k] }}
	if b, err := readAdmitted(e, "ok.txt", work); err != nil || string(b) != "fine" {
		t.Errorf("allowed file: %q %v", b, err)
	}
	for _, name := range []string{"to-table", "to-outside", "fifo", filepath.Join(outside, "x.txt")} {
		if b, err := readAdmitted(e, name, work); err == nil {
			t.Errorf("%s: read %q, want refused", name, b)
		}
	}
}
