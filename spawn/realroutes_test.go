package spawn

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hookwarden/hookwarden/spawn/redact"
)

// routeCall is one tool call of a testdata/spawn/redaction-routes.json
// case, with what its result must hold when it reaches the model.
type routeCall struct {
	Tool        string         `json:"tool"`
	Input       map[string]any `json:"input"`
	ResultHas   []string       `json:"result_has"`
	ResultLacks []string       `json:"result_lacks"`
	// Stopped: the model-traffic tripwire stops the request carrying this
	// call's result, so the model never sees it (nothing to check)
	Stopped bool `json:"stopped"`
	// SecondPart: every value of the table's second part (the values
	// spawn exec added to the hook's configured set) comes back in this
	// call's result as its token, and none raw.
	SecondPart bool `json:"second_part"`
}

// routeCase is one case of testdata/spawn/redaction-routes.json (see its
// "about").
type routeCase struct {
	Name        string            `json:"name"`
	Record      string            `json:"record"`
	Prompt      string            `json:"prompt"`
	Env         []string          `json:"env"`
	SecretNames []string          `json:"secret_names"`
	Files       map[string]string `json:"files"`
	Calls       []routeCall       `json:"calls"`
	Inner       []routeCall       `json:"inner_calls"`
	InnerHas    []string          `json:"inner_model_has"`
	ModelClean  []string          `json:"model_clean"`
	Reaches     []string          `json:"reaches_model"`
	FilesClean  []string          `json:"files_clean"`
	OtherFiles  []string          `json:"other_client_files_hold"`
	TableLacks  []string          `json:"table_lacks"`
	Receipts    []string          `json:"receipts_has"`
	Absent      []string          `json:"absent"`
	AfterFiles  map[string]string `json:"after_files"`
	Refused     string            `json:"refused"`
	Fails       string            `json:"fails"`
}

// loadRouteCases reads testdata/spawn/redaction-routes.json.
func loadRouteCases(t *testing.T) []routeCase {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "spawn", "redaction-routes.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		About string      `json:"about"`
		Cases []routeCase `json:"cases"`
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&doc); err != nil {
		t.Fatalf("redaction-routes.json: %v", err)
	}
	return doc.Cases
}

// expandCall returns in with {{repo}}, {{outside}} and {{port2}} replaced
// by r in every string, through a JSON round trip.
func expandCall(r *strings.Replacer, in map[string]any) map[string]any {
	b, _ := json.Marshal(in)
	var out map[string]any
	json.Unmarshal([]byte(r.Replace(string(b))), &out)
	return out
}

// TestRealClaudeRedactionRoutes is ADR-0134 A3 without MCP on the pinned
// Claude Code, replaying testdata/spawn/redaction-routes.json under the
// same redaction entry and shipped table as TestRealClaudeRedactionRun: per
// case, the scripted model makes the case's tool calls; what the model
// saw (each call's result and the whole request log, checked at every
// request and after the run) and what was persisted (the run's
// transcript, which after agent_exit holds no table value, the client's
// other files, the receipts and table as agent_exit read them, spawn
// exec's stdout and stderr, run/hooks) are checked separately; the run
// passes, fails after the spawn naming the case's problem, or is refused
// before any model request, as the case records. The recorded-not-refused
// cases require what the record says reaches the model to reach it, so
// the record stays true.
func TestRealClaudeRedactionRoutes(t *testing.T) {
	bin := needClient(t, "claude")
	for _, c := range loadRouteCases(t) {
		t.Run(c.Name, func(t *testing.T) {
			copies := t.TempDir()
			tableCopy, receiptsCopy := filepath.Join(copies, "table.json"), filepath.Join(copies, "receipts.jsonl")
			w := newRedactWorld(t, map[string]string{"[GH_TOKEN]": realRaw}, "",
				"cp \"$HOOKWARDEN_HOOK_TABLE\" "+shq(tableCopy)+"; cp \"$HOOKWARDEN_HOOK_RECEIPTS\" "+shq(receiptsCopy)+`; exec "$HW" redact "$@"`, "")
			outside := filepath.Join(w.work, "outside")
			os.Mkdir(outside, 0o755)
			inner := startScriptedModel(t, nil, nil)
			rep := strings.NewReplacer("{{repo}}", w.repo, "{{outside}}", outside, "{{port2}}", strconv.Itoa(inner.port))
			files := map[string]string{"{{repo}}/secret.txt": "token=" + realRaw + "\n", "{{outside}}/outside.txt": "outside-marker " + realRaw + "\n"}
			for p, body := range c.Files {
				files[p] = body
			}
			for p, body := range files {
				if err := os.WriteFile(rep.Replace(p), []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			script := func(calls []routeCall) []scriptedCall {
				var s []scriptedCall
				for _, rc := range calls {
					s = append(s, scriptedCall{rc.Tool, expandCall(rep, rc.Input)})
				}
				return s
			}
			inner.script = script(c.Inner)
			var mu sync.Mutex
			var during []string
			model := startScriptedModel(t, script(c.Calls), func(body string) {
				found := rawIn([]byte(body), c.ModelClean)
				for _, f := range scanTree(w.clientHome, c.FilesClean) {
					found = append(found, "client file "+f)
				}
				mu.Lock()
				during = append(during, found...)
				mu.Unlock()
			})
			argv, env := w.mockClient("claude", bin, model.port)
			argv = entryArgv(argv)
			if c.Prompt != "" {
				argv[2] = c.Prompt
			}
			env = append(env, c.Env...)
			var out bytes.Buffer
			var childArgv []string
			ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
			defer cancel()
			code, err := Exec(ctx, ExecOptions{Argv: argv, Home: w.home, Gateway: mcpProxyBin(t), Cwd: w.repo, Env: env, Stdout: &out, Stderr: &out,
				SecretNames: c.SecretNames,
				Started:     func(_ *Render, a []string) { childArgv = a }})
			t.Logf("%s\nspawn exec: exit %d %v", c.Record, code, err)
			log := model.log()
			noRunFiles(t, w)
			if c.Refused != "" {
				if r := AsRefusal(err); r == nil || string(r.Reason) != c.Refused || code != RefusedExit {
					t.Fatalf("want the refusal %s, got %d %v", c.Refused, code, err)
				}
				if childArgv != nil || log != "" {
					t.Errorf("the engine started or the model was asked: %v\n%.2000s", childArgv, log)
				}
				return
			}
			switch f := AsRunFailure(err); {
			case c.Fails == "" && (err != nil || code != 0):
				t.Errorf("want a passing run, got %d %v\n%s", code, err, out.String())
			case c.Fails != "" && (f == nil || code != RunFailedExit || !strings.Contains(f.Error(), c.Fails)):
				t.Errorf("want the run failed naming %q (exit %d), got %d %v", c.Fails, RunFailedExit, code, err)
			}

			// what the model saw
			if len(during) > 0 {
				t.Errorf("during the run: %v", during)
			}
			if f := rawIn([]byte(log), c.ModelClean); len(f) > 0 {
				t.Errorf("the model received %d value(s) it must not: %v", len(f), masked(f))
			}
			for _, v := range c.Reaches {
				if !strings.Contains(log, v) {
					t.Errorf("the record says %s… reaches the model; it did not", v[:4])
				}
			}
			tab, _, _, terr := redact.LoadTable(tableCopy)
			if terr != nil {
				t.Fatalf("the table as agent_exit read it: %v", terr)
			}
			var tableRaws, second []string
			for tok, v := range tab.Values {
				tableRaws = append(tableRaws, v)
				if tok != "[GH_TOKEN]" {
					second = append(second, tok)
				}
			}
			slices.Sort(second)
			got := modelCalls(log)
			for i, rc := range c.Calls {
				if rc.Stopped {
					if i < len(got) {
						t.Errorf("call %d (%s): the tripwire should have stopped its result, and the model received it", i, rc.Tool)
					}
					continue
				}
				if i >= len(got) {
					t.Errorf("call %d (%s) never reached the model's conversation", i, rc.Tool)
					continue
				}
				g := got[i]
				t.Logf("call %d %s: %.300q", i, g.Tool, g.Result)
				if g.Tool != rc.Tool {
					t.Errorf("call %d: the model's conversation holds %s, want %s", i, g.Tool, rc.Tool)
				}
				for _, s := range rc.ResultHas {
					if s = rep.Replace(s); !strings.Contains(g.Result, s) {
						t.Errorf("call %d (%s): the result lacks %q:\n%.1500s", i, rc.Tool, s, g.Result)
					}
				}
				for _, s := range rc.ResultLacks {
					if strings.Contains(g.Result, rep.Replace(s)) {
						t.Errorf("call %d (%s): the result holds %q", i, rc.Tool, s)
					}
				}
				if rc.SecondPart {
					if len(second) == 0 {
						t.Errorf("the table has no second part to print")
					}
					for _, tok := range second {
						if !strings.Contains(g.Result, tok) {
							t.Errorf("call %d (%s): the second part's %s is not in the result", i, rc.Tool, tok)
						}
						if v := tab.Values[tok]; strings.Contains(g.Result, v) {
							t.Errorf("call %d (%s): the second part's %s came back raw", i, rc.Tool, tok)
						}
					}
					t.Logf("the second part (%d values) came back as %v", len(second), second)
				}
			}
			if inner.log() != "" || len(c.InnerHas) > 0 {
				il := inner.log()
				for _, v := range c.InnerHas {
					if !strings.Contains(il, v) {
						t.Errorf("the other engine's model did not receive %s…", v[:4])
					}
				}
			}

			// what was persisted
			sid := sessionOf(childArgv)
			tp := claudeTranscript(env, w.repo, sid)
			tb, err := os.ReadFile(tp)
			if sid == "" || err != nil {
				t.Fatalf("the run's transcript %q: %v", tp, err)
			}
			if f := rawIn(tb, append(slices.Clone(tableRaws), c.ModelClean...)); len(f) > 0 {
				t.Errorf("the run's transcript holds %d table value(s) after agent_exit", len(f))
			}
			var others []string
			for _, f := range scanTree(w.clientHome, c.FilesClean) {
				if !strings.HasPrefix(f, tp+": ") {
					others = append(others, f)
				}
			}
			if len(others) > 0 {
				t.Errorf("the client's files hold raw values: %v", others)
			}
			for _, v := range c.OtherFiles {
				held := false
				for _, f := range scanTree(w.clientHome, []string{v}) {
					held = held || !strings.HasPrefix(f, tp+": ")
				}
				if !held {
					t.Errorf("the record says a client file beside the run's transcript holds %s…; none does", v[:4])
				}
			}
			if f := rawIn(out.Bytes(), append(slices.Clone(tableRaws), c.ModelClean...)); len(f) > 0 {
				t.Errorf("spawn exec's output holds %d raw value(s)", len(f))
			}
			rb, _ := os.ReadFile(receiptsCopy)
			if f := rawIn(rb, tableRaws); len(f) > 0 {
				t.Errorf("the receipts hold %d table value(s)", len(f))
			}
			for _, s := range c.Receipts {
				if !bytes.Contains(rb, []byte(s)) {
					t.Errorf("the receipts lack %q:\n%s", s, rb)
				}
			}
			for _, v := range c.TableLacks {
				if slices.Contains(tableRaws, v) {
					t.Errorf("the table holds %s…, which the record leaves out", v[:4])
				}
			}
			for p, want := range c.AfterFiles {
				if b, err := os.ReadFile(rep.Replace(p)); err != nil || string(b) != want {
					t.Errorf("%s after the run: %q %v, want it unchanged", rep.Replace(p), b, err)
				}
			}
			for _, p := range c.Absent {
				if _, err := os.Lstat(rep.Replace(p)); err == nil {
					t.Errorf("%s exists: the denied call ran", rep.Replace(p))
				}
			}
		})
	}
}

// masked returns each value cut to its first four bytes, for messages.
func masked(vs []string) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v[:min(4, len(v))] + "…"
	}
	return out
}

// stdinProperty reports whether a tool input property name would hand
// text to a running command (Codex's write_stdin takes "chars"; any name
// holding "stdin").
func stdinProperty(name string) bool {
	n := strings.ToLower(name)
	return strings.Contains(n, "stdin") || n == "chars" || n == "keys" || n == "input"
}

// TestRealClaudeNoStdinRoute records that Claude Code 2.1.328 has no tool
// path for incremental input to a running command (ADR-0134 A3's "incremental
// input to a running command" has nothing to mediate there): no tool input
// type in the pinned package's sdk-tools.d.ts (ToolInputSchemas: Bash takes
// command, timeout, description, run_in_background and
// dangerouslyDisableSandbox; TaskStop only stops; Monitor only reads a
// command's stdout lines) and no tool the engine offers the model under
// spawn exec has a property that would carry text to a running process. The
// test fails when either changes, so a route has to be built then.
func TestRealClaudeNoStdinRoute(t *testing.T) {
	bin := needClient(t, "claude")
	pkg := filepath.Join(bin, "..", "@anthropic-ai", "claude-code")
	version, _ := installedTable(t, bin, "claude") // a version the suite has measured
	var meta struct{ Version string }
	if b, err := os.ReadFile(filepath.Join(pkg, "package.json")); err != nil || json.Unmarshal(b, &meta) != nil || meta.Version != version {
		t.Fatalf("the package beside the probed claude %s: %q %v", version, meta.Version, err)
	}
	dts, err := os.ReadFile(filepath.Join(pkg, "sdk-tools.d.ts"))
	if err != nil {
		t.Fatal(err)
	}
	inputs := 0
	for _, block := range strings.Split(string(dts), "\nexport interface ")[1:] {
		name, body, _ := strings.Cut(block, " {")
		if !strings.HasSuffix(name, "Input") {
			continue
		}
		inputs++
		body, _, _ = strings.Cut(body, "\n}")
		for _, ln := range strings.Split(body, "\n") {
			if !strings.HasPrefix(ln, "  ") || strings.HasPrefix(ln, "   ") {
				continue // only the interface's own properties
			}
			prop, _, ok := strings.Cut(strings.TrimSpace(ln), ":")
			if prop = strings.TrimSuffix(prop, "?"); ok && stdinProperty(prop) {
				t.Errorf("%s takes %q: a route for input to a running command exists at this version", name, prop)
			}
		}
	}
	if inputs < 30 {
		t.Fatalf("sdk-tools.d.ts: %d tool input types read; the parse is wrong", inputs)
	}
	w := newRedactWorld(t, map[string]string{"[GH_TOKEN]": realRaw}, "", "", "")
	model := startScriptedModel(t, nil, nil)
	argv, env := w.mockClient("claude", bin, model.port)
	argv = entryArgv(argv)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var out bytes.Buffer
	if code, err := Exec(ctx, ExecOptions{Argv: argv, Home: w.home, Gateway: mcpProxyBin(t), Cwd: w.repo, Env: env, Stdout: &out, Stderr: &out}); err != nil || code != 0 {
		t.Fatalf("spawn exec: %d %v\n%s", code, err, out.String())
	}
	var req struct {
		Tools []struct {
			Name   string `json:"name"`
			Schema struct {
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"input_schema"`
		} `json:"tools"`
	}
	first, _, _ := strings.Cut(model.log(), "\n")
	if json.Unmarshal([]byte(first), &req) != nil || len(req.Tools) == 0 {
		t.Fatalf("the first request offered no tools: %.500s", first)
	}
	var offered []string
	for _, tl := range req.Tools {
		offered = append(offered, tl.Name)
		for p := range tl.Schema.Properties {
			if stdinProperty(p) {
				t.Errorf("the offered %s takes %q: a route for input to a running command exists", tl.Name, p)
			}
		}
	}
	t.Logf("%d tool input types in sdk-tools.d.ts, offered under spawn exec: %v", inputs, offered)
}
