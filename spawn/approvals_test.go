package spawn

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeJSONFile(t *testing.T, p string, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// auditWorld is the base home plus an unpinned, non-required "audit"
// entry that no layer attaches yet, and an empty registry.
func auditWorld(t *testing.T) *world {
	t.Helper()
	w := materialise(t, filepath.Join("..", "testdata", "spawn", "base"))
	var lib library
	readJSON(t, filepath.Join(w.home, LibraryFile), &lib)
	lib.Entries["audit"] = Entry{Argv: []string{filepath.Join(w.home, "bin", "guard.sh"), "--mode", "audit"}, Timeout: json.RawMessage("5")}
	writeJSONFile(t, filepath.Join(w.home, LibraryFile), lib)
	writeJSONFile(t, filepath.Join(w.home, RegistryFile), Layer{Version: 1, Attachments: []Attachment{}})
	for _, e := range []string{"claude", "codex"} {
		fakeEngine(t, w.engineDir, e, defaultVersion(e), w.startLog)
	}
	return w
}

type execResult struct {
	code    int
	refusal *Refusal
	err     error
	argv    []string
	render  *Render
}

func (w *world) exec(t *testing.T, engine, profile, operator string, env ...string) execResult {
	t.Helper()
	first := map[string]string{"claude": "-p", "codex": "exec"}[engine]
	var res execResult
	var out bytes.Buffer
	res.code, res.err = Exec(context.Background(), ExecOptions{Argv: []string{engine, first, "hi"}, Home: w.home, Cwd: w.repo,
		Env: w.env(env...), ProfilePath: profile, OperatorPath: operator, Stdout: &out, Stderr: &out,
		Started: func(r *Render, argv []string) { res.render, res.argv = r, argv }})
	res.refusal = AsRefusal(res.err)
	return res
}

func (w *world) resetStarts(t *testing.T) {
	t.Helper()
	if err := os.Remove(w.startLog); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
}

// TestApprovalThroughEveryLayer: the same command attached through the
// registry, a profile and the operator layer is refused without approval
// and runs after it.
func TestApprovalThroughEveryLayer(t *testing.T) {
	for _, layer := range []string{LayerRegistry, LayerProfile, LayerOperator} {
		t.Run(layer, func(t *testing.T) {
			w := auditWorld(t)
			att := Layer{Version: 1, Attachments: []Attachment{{Hook: "audit", Event: "pre_tool", Matcher: "Bash"}}}
			var profile, operator string
			switch layer {
			case LayerRegistry:
				writeJSONFile(t, filepath.Join(w.home, RegistryFile), att)
			case LayerProfile:
				profile = filepath.Join(w.work, "profile.json")
				writeJSONFile(t, profile, att)
			case LayerOperator:
				operator = filepath.Join(w.work, "operator.json")
				writeJSONFile(t, operator, att)
			}
			res := w.exec(t, "claude", profile, operator)
			if res.refusal == nil || res.refusal.Reason != ReasonApprovalMissing {
				t.Fatalf("unapproved: got %v", res.err)
			}
			if w.started(t) != "" {
				t.Fatal("engine started without approval")
			}
			w.approveAll(t, profile, operator)
			res = w.exec(t, "claude", profile, operator)
			if res.err != nil || res.code != 0 {
				t.Fatalf("approved: code %d err %v", res.code, res.err)
			}
			if !strings.Contains(w.started(t), "start -p hi") || len(res.render.Hooks) != 1 || res.render.Hooks[0].Layer != layer {
				t.Fatalf("approved run: started %q hooks %+v", w.started(t), res.render.Hooks)
			}
		})
	}
}

// TestApprovalCoversTheFinalArgv: a changed argument or another {engine}
// value is a new argv that needs its own approval; revoking takes it back.
func TestApprovalCoversTheFinalArgv(t *testing.T) {
	w := auditWorld(t)
	reg := filepath.Join(w.home, RegistryFile)
	writeJSONFile(t, reg, Layer{Version: 1, Attachments: []Attachment{{Hook: "audit", Event: "pre_tool", Args: []string{"--engine", "{engine}"}}}})
	guard := filepath.Join(w.home, "bin", "guard.sh")
	claudeArgv := []string{guard, "--mode", "audit", "--engine", "claude"}
	if err := Approve(w.home, [][]string{claudeArgv}); err != nil {
		t.Fatal(err)
	}
	if res := w.exec(t, "claude", "", ""); res.err != nil {
		t.Fatalf("claude with its approved argv: %v", res.err)
	}
	if res := w.exec(t, "codex", "", ""); res.refusal == nil || res.refusal.Reason != ReasonApprovalMissing {
		t.Fatalf("codex: the {engine} value changed the argv, want approval-missing, got %v", res.err)
	}
	writeJSONFile(t, reg, Layer{Version: 1, Attachments: []Attachment{{Hook: "audit", Event: "pre_tool", Args: []string{"--engine", "{engine}", "--verbose"}}}})
	if res := w.exec(t, "claude", "", ""); res.refusal == nil || res.refusal.Reason != ReasonApprovalMissing {
		t.Fatalf("changed argument: want approval-missing, got %v", res.err)
	}
	writeJSONFile(t, reg, Layer{Version: 1, Attachments: []Attachment{{Hook: "audit", Event: "pre_tool", Args: []string{"--engine", "{engine}"}}}})
	n, err := Revoke(w.home, []string{ArgvHash(claudeArgv)[:12]})
	if err != nil || n != 1 {
		t.Fatalf("revoke: %d %v", n, err)
	}
	if res := w.exec(t, "claude", "", ""); res.refusal == nil || res.refusal.Reason != ReasonApprovalMissing {
		t.Fatalf("after revoke: want approval-missing, got %v", res.err)
	}
}

// TestRepositoryApprovalAuthorisesNothing: a correct approvals.json inside
// the repository (at its root and under .hookwarden/) is never read.
func TestRepositoryApprovalAuthorisesNothing(t *testing.T) {
	w := auditWorld(t)
	writeJSONFile(t, filepath.Join(w.home, RegistryFile), Layer{Version: 1, Attachments: []Attachment{{Hook: "audit", Event: "pre_tool"}}})
	w.approveAll(t, "", "")
	good, err := os.ReadFile(filepath.Join(w.home, ApprovalsFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(w.home, ApprovalsFile)); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(w.repo, "approvals.json"), filepath.Join(w.repo, ".hookwarden", "approvals.json"), filepath.Join(w.repo, ".hookwarden", "home", ApprovalsFile)} {
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, good, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if res := w.exec(t, "claude", "", ""); res.refusal == nil || res.refusal.Reason != ReasonApprovalMissing {
		t.Fatalf("want approval-missing, got %v", res.err)
	}
	if w.started(t) != "" {
		t.Fatal("engine started")
	}
}

// TestReplacedExecutableAndChangedPinAreSeparate: a replaced executable
// (new digest) is approval-stale; a changed pinned file is pin-mismatch;
// trust list shows the stale state.
func TestReplacedExecutableAndChangedPinAreSeparate(t *testing.T) {
	t.Run("executable", func(t *testing.T) {
		w := auditWorld(t)
		writeJSONFile(t, filepath.Join(w.home, RegistryFile), Layer{Version: 1, Attachments: []Attachment{{Hook: "audit", Event: "pre_tool"}}})
		w.approveAll(t, "", "")
		if err := os.WriteFile(filepath.Join(w.home, "bin", "guard.sh"), []byte("#!/bin/sh\nexit 0 # replaced\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		if res := w.exec(t, "claude", "", ""); res.refusal == nil || res.refusal.Reason != ReasonApprovalStale {
			t.Fatalf("want approval-stale, got %v", res.err)
		}
		rows, err := TrustList(w.home, "", "")
		if err != nil || len(rows) != 1 || rows[0].State != StateDigestChanged {
			t.Fatalf("trust list: %+v %v", rows, err)
		}
	})
	t.Run("pinned-file", func(t *testing.T) {
		w := auditWorld(t)
		policy := filepath.Join(w.home, "policy.txt")
		os.WriteFile(policy, []byte("deny rm\n"), 0o644)
		d, _ := fileDigest(policy)
		gd, _ := fileDigest(filepath.Join(w.home, "bin", "guard.sh"))
		var lib library
		readJSON(t, filepath.Join(w.home, LibraryFile), &lib)
		lib.Entries["audit"] = Entry{Argv: []string{filepath.Join(w.home, "bin", "guard.sh"), policy}, Timeout: json.RawMessage("5"),
			Pin: map[string]string{policy: d, filepath.Join(w.home, "bin", "guard.sh"): gd}}
		writeJSONFile(t, filepath.Join(w.home, LibraryFile), lib)
		writeJSONFile(t, filepath.Join(w.home, RegistryFile), Layer{Version: 1, Attachments: []Attachment{{Hook: "audit", Event: "pre_tool"}}})
		w.approveAll(t, "", "")
		if res := w.exec(t, "claude", "", ""); res.err != nil {
			t.Fatalf("before the change: %v", res.err)
		}
		os.WriteFile(policy, []byte("allow all\n"), 0o644)
		if res := w.exec(t, "claude", "", ""); res.refusal == nil || res.refusal.Reason != ReasonPinMismatch {
			t.Fatalf("want pin-mismatch, got %v", res.err)
		}
	})
}

// TestRenderGoesBeforeCallersDoubleDash: after a caller's "--" the engine
// reads only positional arguments, so the render is inserted before it.
func TestRenderGoesBeforeCallersDoubleDash(t *testing.T) {
	w := auditWorld(t)
	code, err := Exec(context.Background(), ExecOptions{Argv: []string{"codex", "exec", "--", "--not-a-flag"}, Home: w.home, Cwd: w.repo, Env: w.env()})
	if err != nil || code != 0 {
		t.Fatal(code, err)
	}
	if log := w.started(t); !strings.Contains(log, "start exec --ignore-user-config -- --not-a-flag\n") {
		t.Fatalf("engine argv: %q", log)
	}
}

// TestOperatorLegacyCommand: the operator layer may attach a legacy command
// string; it is approved as ["/bin/sh","-c",command] and rendered verbatim.
func TestOperatorLegacyCommand(t *testing.T) {
	w := auditWorld(t)
	var lib library
	readJSON(t, filepath.Join(w.home, LibraryFile), &lib)
	cmd := filepath.Join(w.home, "bin", "guard.sh") + " --legacy"
	lib.Entries["old"] = Entry{Command: &cmd, Timeout: json.RawMessage("7")}
	writeJSONFile(t, filepath.Join(w.home, LibraryFile), lib)
	op := filepath.Join(w.work, "operator.json")
	writeJSONFile(t, op, Layer{Version: 1, Attachments: []Attachment{{Hook: "old", Event: "pre_tool"}}})
	if res := w.exec(t, "codex", "", op); res.refusal == nil || res.refusal.Reason != ReasonApprovalMissing {
		t.Fatalf("unapproved legacy: %v", res.err)
	}
	if err := Approve(w.home, [][]string{{"/bin/sh", "-c", cmd}}); err != nil {
		t.Fatal(err)
	}
	res := w.exec(t, "codex", "", op)
	if res.err != nil {
		t.Fatal(res.err)
	}
	// go-toml/v2 writes the command as a literal string when it can.
	if joined := strings.Join(res.argv, " "); !strings.Contains(joined, `command='`+cmd+`',timeout=7`) {
		t.Fatalf("legacy command not rendered verbatim: %s", joined)
	}
}
