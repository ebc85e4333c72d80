package conformance

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// factCase measures one client fact with the test hook (not hookwarden) as
// the only pre-tool hook, so the result is the client's own behaviour. The
// scripted model asks for `touch hw_marker.txt`. The case asserts what was
// measured on the pinned versions (testdata/clients/FACTS.md); a client
// update that changes the behaviour fails the case.
type factCase struct {
	name    string
	client  string
	mode    string  // test hook mode (see testHook)
	timeout float64 // hook timeout in the client's unit; 0 = 15 s
	// tweak adjusts files and the invocation before the run (may be nil).
	tweak func(t *testing.T, sb *Sandbox, inv *Invocation, hookCmd string)
	// noHookRows: the case writes its own hook files in tweak.
	noHookRows  bool
	wantHookRan bool
	wantToolRan bool
	wantExit    int
	// wantCarried: the second main turn carries this text (the reason), "" = not checked.
	wantCarried string
}

// preToolNative is the native pre-tool event and the plain matcher the test
// hook is registered under.
func preToolNative(client string) (native, matcher string) {
	if client == "gemini" {
		return "BeforeTool", "run_shell_command"
	}
	return "PreToolUse", "Bash"
}

func secondsOrMillis(client string, s float64) float64 {
	if client == "gemini" {
		return s * 1000
	}
	return s
}

func factCases() []factCase {
	reason := "BLOCKED by conformance test hook"
	var cases []factCase
	for _, c := range []string{"claude", "codex", "gemini"} {
		cases = append(cases,
			// Exit 2 with a reason: the documented deny, the baseline of the other facts.
			factCase{name: "exit2", client: c, mode: "exit2", wantHookRan: true, wantToolRan: false, wantCarried: reason},
			// A hook that exits 1: every client treats it as a non-blocking error (fail open).
			factCase{name: "exit1", client: c, mode: "exit1", wantHookRan: true, wantToolRan: true},
			// A hook that prints text that is not JSON and exits 0: fail open.
			factCase{name: "badjson", client: c, mode: "badjson", wantHookRan: true, wantToolRan: true},
			// A hook that outlives its 2 s timeout and would deny afterwards: the client
			// kills it and runs the tool (fail open).
			factCase{name: "timeout", client: c, mode: "sleep", timeout: secondsOrMillis(c, 2), wantHookRan: true, wantToolRan: true},
		)
	}
	codexOverrides := func(sb *Sandbox, url string, inv *Invocation, hooksRel string) {
		codexOverrideArgs(sb, url, inv, hooksRel, false)
	}
	cases = append(cases,
		// Codex: a trusted project whose hooks have no trust record: the hook is
		// silently skipped and the command runs.
		factCase{name: "no-hook-trust", client: "codex", mode: "exit2", wantHookRan: false, wantToolRan: true,
			tweak: func(t *testing.T, sb *Sandbox, inv *Invocation, hookCmd string) {
				writeRaw(t, sb, "home/config.toml", CodexConfig(modelURLOf(*inv), sb.Repo))
			}},
		// Codex: hook trusted by hash but the project untrusted: .codex/ is not
		// loaded, and the session gets sandbox_mode read-only, so the command
		// fails to write its marker (no hook involved).
		factCase{name: "untrusted-project", client: "codex", mode: "exit2", wantHookRan: false, wantToolRan: false,
			tweak: func(t *testing.T, sb *Sandbox, inv *Invocation, hookCmd string) {
				recs, err := ComputeCodexTrust(filepath.Join(sb.Repo, ".codex", "hooks.json"))
				if err != nil {
					t.Fatal(err)
				}
				writeRaw(t, sb, "home/config.toml", CodexConfig(modelURLOf(*inv), "")+CodexTrustTOML(recs))
			}},
		// Codex: the bypass flag alone (project trusted, no trust records) runs the hook.
		factCase{name: "bypass-flag", client: "codex", mode: "exit2", wantHookRan: true, wantToolRan: false, wantCarried: reason,
			tweak: func(t *testing.T, sb *Sandbox, inv *Invocation, hookCmd string) {
				writeRaw(t, sb, "home/config.toml", CodexConfig(modelURLOf(*inv), sb.Repo))
				p := inv.Args[len(inv.Args)-1]
				inv.Args = append(append(inv.Args[:len(inv.Args)-1], "--dangerously-bypass-hook-trust"), p)
			}},
		// Codex: no config.toml at all; provider, project trust and hook trust all
		// as -c overrides: the hook runs (the spawn compiler can pass trust inline).
		factCase{name: "c-overrides", client: "codex", mode: "exit2", wantHookRan: true, wantToolRan: false, wantCarried: reason,
			tweak: func(t *testing.T, sb *Sandbox, inv *Invocation, hookCmd string) {
				url := modelURLOf(*inv)
				os.Remove(filepath.Join(sb.Home, "config.toml"))
				codexOverrides(sb, url, inv, "repo/.codex/hooks.json")
			}},
		// Codex: the same trust records as dotted -c paths
		// (hooks.state."<key>".trusted_hash=…) are not applied: the hook is
		// skipped and the command runs. Only the inline-table form works.
		factCase{name: "c-overrides-dotted", client: "codex", mode: "exit2", wantHookRan: false, wantToolRan: true,
			tweak: func(t *testing.T, sb *Sandbox, inv *Invocation, hookCmd string) {
				url := modelURLOf(*inv)
				os.Remove(filepath.Join(sb.Home, "config.toml"))
				codexOverrideArgs(sb, url, inv, "repo/.codex/hooks.json", true)
			}},
		// Codex: nested starts an agent could use to drop the project's
		// rows while the user's config.toml trusts the project and its
		// hooks (issue 29 item 6). Each override is appended to the
		// default invocation. Measured on 0.171.0 (2026-12-05): a -c
		// override that marks the project untrusted, or that gives a hook
		// another trusted hash, skips the hook and the tool runs (the
		// policy refuses both: codexHooksOff); an empty projects, hooks or
		// hooks.state table merges into the user's and changes nothing.
		factCase{name: "c-untrust-project", client: "codex", mode: "exit2", wantHookRan: false, wantToolRan: true,
			tweak: func(t *testing.T, sb *Sandbox, inv *Invocation, hookCmd string) {
				appendArgs(inv, "-c", "projects={"+TOMLString(sb.Repo)+"={trust_level=\"untrusted\"}}")
			}},
		factCase{name: "c-projects-empty", client: "codex", mode: "exit2", wantHookRan: true, wantToolRan: false, wantCarried: reason,
			tweak: func(t *testing.T, sb *Sandbox, inv *Invocation, hookCmd string) {
				appendArgs(inv, "-c", "projects={}")
			}},
		factCase{name: "c-hooks-state-empty", client: "codex", mode: "exit2", wantHookRan: true, wantToolRan: false, wantCarried: reason,
			tweak: func(t *testing.T, sb *Sandbox, inv *Invocation, hookCmd string) {
				appendArgs(inv, "-c", "hooks.state={}")
			}},
		factCase{name: "c-hooks-empty", client: "codex", mode: "exit2", wantHookRan: true, wantToolRan: false, wantCarried: reason,
			tweak: func(t *testing.T, sb *Sandbox, inv *Invocation, hookCmd string) {
				appendArgs(inv, "-c", "hooks={}")
			}},
		factCase{name: "c-hook-hash-wrong", client: "codex", mode: "exit2", wantHookRan: false, wantToolRan: true,
			tweak: func(t *testing.T, sb *Sandbox, inv *Invocation, hookCmd string) {
				recs, err := ComputeCodexTrust(filepath.Join(sb.Repo, ".codex", "hooks.json"))
				if err != nil {
					t.Fatal(err)
				}
				var tbl []string
				for _, r := range recs {
					tbl = append(tbl, TOMLString(r.Key)+"={trusted_hash=\"sha256:00\"}")
				}
				appendArgs(inv, "-c", "hooks.state={"+strings.Join(tbl, ",")+"}")
			}},
		// Codex: --ignore-user-config with everything as -c overrides: still runs.
		factCase{name: "ignore-user-config-overrides", client: "codex", mode: "exit2", wantHookRan: true, wantToolRan: false, wantCarried: reason,
			tweak: func(t *testing.T, sb *Sandbox, inv *Invocation, hookCmd string) {
				url := modelURLOf(*inv)
				writeRaw(t, sb, "home/config.toml", "# ignored\n")
				codexOverrides(sb, url, inv, "repo/.codex/hooks.json")
				p := inv.Args[len(inv.Args)-1]
				inv.Args = append(append(inv.Args[:len(inv.Args)-1], "--ignore-user-config"), p)
			}},
		// Codex: --ignore-user-config with the trust records only in config.toml
		// (provider given by -c): the project trust and the records are ignored
		// with the file, so the project is untrusted (read-only sandbox, marker
		// not written) and the hook is not run.
		factCase{name: "ignore-user-config-file-trust", client: "codex", mode: "exit2", wantHookRan: false, wantToolRan: false,
			tweak: func(t *testing.T, sb *Sandbox, inv *Invocation, hookCmd string) {
				url := modelURLOf(*inv)
				recs, err := ComputeCodexTrust(filepath.Join(sb.Repo, ".codex", "hooks.json"))
				if err != nil {
					t.Fatal(err)
				}
				writeRaw(t, sb, "home/config.toml", CodexConfig(url, sb.Repo)+CodexTrustTOML(recs))
				p := inv.Args[len(inv.Args)-1]
				inv.Args = append(inv.Args[:len(inv.Args)-1], "--ignore-user-config", "-c", "model=\"mock-model\"", "-c", "model_provider=\"mock\"",
					"-c", `model_providers.mock={name="mock",base_url=`+TOMLString(url+"/v1")+`,wire_api="responses",env_key="MOCK_API_KEY"}`, p)
			}},
		// Gemini: without folder trust the headless CLI refuses to run (exit 55)
		// and no hook runs.
		factCase{name: "untrusted-folder", client: "gemini", mode: "exit2", wantHookRan: false, wantToolRan: false, wantExit: 55,
			tweak: func(t *testing.T, sb *Sandbox, inv *Invocation, hookCmd string) {
				inv.Env = dropEnv(inv.Env, "GEMINI_CLI_TRUST_WORKSPACE=")
			}},
		// Gemini: nested starts an agent could use to drop the project's
		// rows (issue 29 item 6), measured on Gemini CLI 0.61.0.
		// GEMINI_CLI_HOME moved to a home whose user settings switch hooks
		// off: the policy refuses the variable on a nested gemini.
		factCase{name: "cli-home-hooks-off", client: "gemini", mode: "exit2", wantHookRan: false, wantToolRan: true,
			tweak: func(t *testing.T, sb *Sandbox, inv *Invocation, hookCmd string) {
				geminiHooksOff(t, sb, "out/h2/.gemini/settings.json")
				inv.Env = setEnv(inv.Env, "GEMINI_CLI_HOME", filepath.Join(sb.Out, "h2"))
			}},
		// GEMINI_CLI_TRUST_WORKSPACE=false and GEMINI_RESTRICTED_MODE=true:
		// headless, the untrusted folder stops the run (exit 55) before any
		// tool; interactive, the session would run without the workspace
		// settings (0.61.0 bundle, checkPathTrust), so the policy refuses
		// both on a nested gemini (geminiUntrusted).
		factCase{name: "trust-env-false", client: "gemini", mode: "exit2", wantHookRan: false, wantToolRan: false, wantExit: 55,
			tweak: func(t *testing.T, sb *Sandbox, inv *Invocation, hookCmd string) {
				inv.Env = setEnv(inv.Env, "GEMINI_CLI_TRUST_WORKSPACE", "false")
			}},
		factCase{name: "restricted-mode", client: "gemini", mode: "exit2", wantHookRan: false, wantToolRan: false, wantExit: 55,
			tweak: func(t *testing.T, sb *Sandbox, inv *Invocation, hookCmd string) {
				inv.Env = append(inv.Env, "GEMINI_RESTRICTED_MODE=true")
			}},
		// Gemini: hooksConfig.enabled false in user settings switches every hook off.
		factCase{name: "hooks-disabled", client: "gemini", mode: "exit2", wantHookRan: false, wantToolRan: true,
			tweak: func(t *testing.T, sb *Sandbox, inv *Invocation, hookCmd string) {
				geminiHooksOff(t, sb, "home/.gemini/settings.json")
			}},
	)
	return cases
}

// codexOverrideArgs inserts, before the prompt, -c overrides for the mock
// provider, the project trust and the hook-trust records of hooksRel. With
// dotted, each record is one dotted path
// hooks.state."<key>".trusted_hash="<hash>"; otherwise all records are one
// inline table hooks.state={"<key>"={trusted_hash="<hash>"},…}.
func codexOverrideArgs(sb *Sandbox, url string, inv *Invocation, hooksRel string, dotted bool) {
	recs, err := ComputeCodexTrust(filepath.Join(sb.Root, hooksRel))
	if err != nil {
		panic(err)
	}
	args := []string{"-c", "model=\"mock-model\"", "-c", "model_provider=\"mock\"",
		"-c", `model_providers.mock={name="mock",base_url=` + TOMLString(url+"/v1") + `,wire_api="responses",env_key="MOCK_API_KEY"}`,
		"-c", "projects={" + TOMLString(sb.Repo) + "={trust_level=\"trusted\"}}"}
	if dotted {
		for _, r := range recs {
			args = append(args, "-c", "hooks.state."+TOMLString(r.Key)+".trusted_hash="+TOMLString(r.Hash))
		}
	} else {
		var tbl []string
		for _, r := range recs {
			tbl = append(tbl, TOMLString(r.Key)+"={trusted_hash="+TOMLString(r.Hash)+"}")
		}
		args = append(args, "-c", "hooks.state={"+strings.Join(tbl, ",")+"}")
	}
	p := inv.Args[len(inv.Args)-1]
	inv.Args = append(append(inv.Args[:len(inv.Args)-1], args...), p)
}

// appendArgs puts args before the invocation's last argument (the prompt).
func appendArgs(inv *Invocation, args ...string) {
	p := inv.Args[len(inv.Args)-1]
	inv.Args = append(append(inv.Args[:len(inv.Args)-1], args...), p)
}

func writeRaw(t *testing.T, sb *Sandbox, rel, text string) {
	t.Helper()
	if err := sb.WriteFile(rel, []byte(text)); err != nil {
		t.Fatal(err)
	}
}

// geminiHooksOff writes Gemini CLI user settings at rel (sandbox-relative)
// that switch every hook off (hooksConfig.enabled false).
func geminiHooksOff(t *testing.T, sb *Sandbox, rel string) {
	t.Helper()
	u := geminiUserBase()
	u["hooksConfig"] = map[string]any{"enabled": false}
	if err := sb.WriteFile(rel, hooksDoc(u, nil)); err != nil {
		t.Fatal(err)
	}
}

// setEnv returns env with name set to value, replacing an earlier setting.
func setEnv(env []string, name, value string) []string {
	return append(dropEnv(env, name+"="), name+"="+value)
}

func dropEnv(env []string, prefix string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, prefix) {
			out = append(out, kv)
		}
	}
	return out
}

// modelURLOf recovers the model server URL a Setup invocation was built with.
func modelURLOf(inv Invocation) string {
	for _, kv := range inv.Env {
		if v, ok := strings.CutPrefix(kv, "MODEL_URL_FOR_TESTS="); ok {
			return v
		}
	}
	return ""
}

// TestClientFacts runs every fact case against the real client and asserts
// the measured behaviour: did the hook run (payload saved), did the tool run
// (marker file), the client's exit code, and whether the reason reached the
// model.
func TestClientFacts(t *testing.T) {
	for _, fc := range factCases() {
		t.Run(fc.client+"/"+fc.name, func(t *testing.T) {
			t.Parallel()
			s := theSuite
			c, version := s.client(t, fc.client)
			srv, err := NewServer(c.API, Script{Command: "touch " + marker})
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			sb := s.sandbox(t)
			inv, err := c.Setup(sb, s.clientsDir, srv.URL())
			if err != nil {
				t.Fatal(err)
			}
			inv.Env = append(inv.Env, "MODEL_URL_FOR_TESTS="+srv.URL())
			hookDir := filepath.Join(sb.Out, "hook")
			cmd := s.testHookCommand(hookDir, fc.mode)
			native, matcher := preToolNative(fc.client)
			timeout := fc.timeout
			if timeout == 0 {
				timeout = secondsOrMillis(fc.client, 15)
			}
			writeHooks(t, sb, fc.client, []hookRow{{Native: native, Matcher: matcher, Command: cmd, Timeout: timeout}}, nil)
			if fc.tweak != nil {
				fc.tweak(t, sb, &inv, cmd)
			}
			start := time.Now()
			res := s.run(t, inv)
			got := calls(t, hookDir, native)
			ran := sb.Exists("repo/" + marker)
			t.Logf("measured %s %s %s: exit %d, hook ran %v, tool ran %v, main turns %d", fc.client, version, fc.name, res.ExitCode, len(got) > 0, ran, len(srv.MainTurns()))
			for _, r := range srv.Requests() {
				t.Logf("  request +%s %s %s reply=%s tools=%v", r.Time.Sub(start).Round(time.Millisecond), r.Method, r.Path, r.Reply, r.HasTools)
			}
			if turns := srv.MainTurns(); len(turns) > 1 && os.Getenv("HW_CONF_DEBUG") != "" {
				t.Logf("second turn strings: %q", turns[1].Strings())
			}
			if res.ExitCode != fc.wantExit {
				t.Errorf("client exit %d, want %d\n%s", res.ExitCode, fc.wantExit, res.Tail(2000))
			}
			if (len(got) > 0) != fc.wantHookRan {
				t.Errorf("hook ran = %v, want %v\n%s", len(got) > 0, fc.wantHookRan, res.Tail(2000))
			}
			if len(got) > 0 && toolCommand(got[0]) != "touch "+marker {
				t.Errorf("hook payload names command %q, want %q", toolCommand(got[0]), "touch "+marker)
			}
			if ran != fc.wantToolRan {
				t.Errorf("tool ran = %v, want %v", ran, fc.wantToolRan)
			}
			if fc.wantCarried != "" {
				turns := srv.MainTurns()
				if len(turns) < 2 || !turns[1].Carries(fc.wantCarried) {
					t.Errorf("the model's second turn does not carry %q (%d main turns)", fc.wantCarried, len(turns))
				}
			}
			if !t.Failed() {
				s.recordPayloads(t, sb, hookDir, fc.client, version, fc.name)
			}
		})
	}
}
