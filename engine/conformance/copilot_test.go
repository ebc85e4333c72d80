package conformance

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// copilotClient is GitHub Copilot CLI, driven apart from Clients() (whose
// cases write Claude-family hook files it does not read). Pinned in .ci/run:
// @github/copilot 1.0.102. The npm package is a loader for a native binary
// (@github/copilot-linux-x64) that unpacks its JavaScript into
// COPILOT_CACHE_HOME on first start (about 200 MB), so the suite shares one
// cache directory beside the clients.
var copilotClient = Client{Name: "copilot", Package: "@github/copilot", API: Chat}

// copilotInvocation is the Copilot CLI 1.0.102 recipe: a BYOK provider on the
// loopback model (`copilot help providers`, `copilot help environment`:
// COPILOT_PROVIDER_BASE_URL with COPILOT_PROVIDER_TYPE=openai speaks chat
// completions; COPILOT_OFFLINE=true skips GitHub sign-in, telemetry and
// updates and requires such a provider), COPILOT_ALLOW_ALL=true (exactly
// "true": auto-approves tools and trusts the working directory, without
// which repository hooks are not loaded in prompt mode), COPILOT_HOME and
// HOME inside the sandbox. extra is added to the environment.
func copilotInvocation(sb *Sandbox, clientsDir, modelURL string, extra ...string) Invocation {
	env := []string{"PWD=" + sb.Repo, "HOME=" + sb.Home, "COPILOT_HOME=" + filepath.Join(sb.Home, ".copilot"),
		"COPILOT_CACHE_HOME=" + filepath.Join(clientsDir, ".copilot-cache"), "COPILOT_AUTO_UPDATE=false",
		"COPILOT_OFFLINE=true", "COPILOT_PROVIDER_BASE_URL=" + modelURL + "/v1", "COPILOT_PROVIDER_TYPE=openai",
		"COPILOT_PROVIDER_API_KEY=sk-dummy", "COPILOT_MODEL=mock-model", "COPILOT_ALLOW_ALL=true"}
	return Invocation{Dir: sb.Repo, Env: append(env, extra...),
		Args: []string{copilotClient.Bin(clientsDir), "-p", Prompt}}
}

// installed returns the version of client c installed under the npm
// prefix dir ("" when HOOKWARDEN_CLIENTS_DIR is unset), after checking that
// its executable and every path in also exist; otherwise the test is
// unavailable (a stated skip, a failure under HOOKWARDEN_E2E=require).
func (s *suite) installed(t *testing.T, c Client, dir string, also ...string) string {
	t.Helper()
	if s.clientsDir == "" {
		s.unavailable(t, "HOOKWARDEN_CLIENTS_DIR is not set, so the real "+c.Name+" client cannot be found")
	}
	for _, p := range append([]string{c.Bin(dir)}, also...) {
		if _, err := os.Stat(p); err != nil {
			s.unavailable(t, c.Name+" is not installed under "+dir+": "+err.Error())
		}
	}
	version, err := c.Version(dir)
	if err != nil {
		s.unavailable(t, err.Error())
	}
	return version
}

// engineTap writes a stand-in for the engine that the launcher finds first
// (HOOKWARDEN_BIN): it appends its arguments and the engine's stderr to log,
// and passes stdin, stdout and the exit code through unchanged, so a test
// can see which rows judged a call and which stated a skip.
func engineTap(t *testing.T, sb *Sandbox, bin string) (tap, log string) {
	t.Helper()
	tap = filepath.Join(sb.Root, "engine-tap.sh")
	log = filepath.Join(sb.Root, "out", "engine.log")
	script := "#!/bin/sh\nprintf 'argv: %s\\n' \"$*\" >>" + shellQuote(log) + "\nexec " + shellQuote(bin) + " \"$@\" 2>>" + shellQuote(log) + "\n"
	if err := os.MkdirAll(filepath.Dir(log), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tap, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return tap, log
}

// TestRealCopilot drives the real GitHub Copilot CLI through hookwarden's
// rows in three adopted repositories: adopted for Copilot only (its own
// .github/hooks/hookwarden.json row), for Claude only (Copilot runs the
// rows of .claude/settings.json with a Claude-shaped payload: the
// cross-loading case), and for both (the Claude row states a skip and
// leaves the call to the Copilot row, so the call is judged once). In each,
// a --no-verify commit is denied with hookwarden's reason reaching the
// model and a plain command runs.
func TestRealCopilot(t *testing.T) {
	s, version, bin := realCopilot(t)
	for _, tc := range []struct {
		name, clients, check string
		// judged are the engine calls the tap must log for each of the two
		// commands, skipped those that must state the cross-load skip for
		// the allowed one: Copilot CLI 1.0.102 runs no further hook of a
		// tool call once one denied it (observed: after the Copilot row's
		// deny neither the pre-edit nor the Claude row ran).
		judged, skipped []string
		// fallback runs the client with no engine anywhere (PATH without
		// hookwarden, no HOOKWARDEN_BIN): the launcher hands the call to
		// the standalone interceptor, which must decode Copilot's payload
		// and deny in Copilot's form.
		fallback bool
	}{
		{name: "copilot-only", clients: "copilot", judged: []string{"copilot pre-tool"},
			check: "deny honoured (the --no-verify commit never ran, the refusal reached the model) and allow passes, through .github/hooks/hookwarden.json written by hookwarden adopt"},
		{name: "claude-only", clients: "claude", judged: []string{"claude pre-tool"},
			check: "cross-loading: in a repository adopted for Claude only, Copilot runs the .claude/settings.json row; the engine recognises Copilot's payload and its deny (Claude's deny JSON, exit 2) reaches the model"},
		{name: "both", clients: "claude,copilot", judged: []string{"copilot pre-tool"}, skipped: []string{"claude pre-tool"},
			check: "cross-loading: adopted for Claude and Copilot, the Copilot row judges each call and the Claude row states a skip, so each call is judged once"},
		{name: "interceptor", clients: "copilot", fallback: true,
			check: "no engine installed: the launcher runs .hookwarden/interceptor.py, which decodes Copilot's preToolUse payload, denies the --no-verify commit in Copilot's form (the refusal reached the model) and lets the plain command run"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s.observe(t, "copilot", version, "pre-tool", tc.name+": "+tc.check)
			sb := s.sandbox(t)
			if out, err := s.hookwardenCmd(t, bin, sb, pathWithout("hookwarden"), "adopt", "--clients", tc.clients, sb.Repo); err != nil {
				t.Fatalf("adopt --clients %s: %v\n%s", tc.clients, err, out)
			}
			srv, err := NewServer(Chat, Script{Commands: []string{denyCommand, allowCommand}})
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			tap, log := engineTap(t, sb, bin)
			extra := []string{"HOOKWARDEN_BIN=" + tap}
			if tc.fallback {
				extra = []string{"PATH=" + pathWithout("hookwarden")}
			}
			res := s.run(t, copilotInvocation(sb, s.clientsDir, srv.URL(), extra...))
			checkDenyAllowRun(t, "copilot", version, sb, srv, res)
			b, _ := os.ReadFile(log)
			logText := string(b)
			if tc.fallback && logText != "" {
				t.Errorf("the engine ran in the interceptor case\n%s", logText)
			}
			for _, pair := range tc.judged {
				if n := strings.Count(logText, "argv: hook "+pair+"\n"); n < 2 {
					t.Errorf("the %s row ran %d times, want one per command (2)\n%s", pair, n, logText)
				}
			}
			for _, pair := range tc.skipped {
				if n := strings.Count(logText, "skip: Copilot CLI called this "+pair+" row"); n < 1 {
					t.Errorf("the %s row stated no cross-load skip\n%s", pair, logText)
				}
			}
			if tc.skipped == nil && strings.Contains(logText, "skip: Copilot CLI called") {
				t.Errorf("a cross-load skip without Copilot's own row\n%s", logText)
			}
		})
	}
}

// realCopilot returns the suite, the installed Copilot CLI's version and the
// hookwarden binary under test for a real-Copilot test, which -short skips
// and which is unavailable without the client.
func realCopilot(t *testing.T) (*suite, string, string) {
	t.Helper()
	if testing.Short() {
		t.Skip("real-client test; -short skips it")
	}
	s := theSuite
	return s, s.installed(t, copilotClient, s.clientsDir), s.hookwarden(t)
}

// checkDenyAllowRun checks a run of client at version whose scripted model
// asked for denyCommand and then allowCommand: the client exited 0 (else
// the test stops), the denied command's marker is absent, the allowed
// one's present, and a main model turn carries hookwarden's refusal.
func checkDenyAllowRun(t *testing.T, client, version string, sb *Sandbox, srv *Server, res Result) {
	t.Helper()
	if res.ExitCode != 0 {
		t.Fatalf("%s %s exited %d\n%s", client, version, res.ExitCode, res.Tail(3000))
	}
	if sb.Exists("repo/" + deniedMarker) {
		t.Errorf("the denied command ran")
	}
	if !sb.Exists("repo/" + allowedMarker) {
		t.Errorf("the allowed command did not run")
	}
	carried := false
	for _, r := range srv.MainTurns() {
		carried = carried || r.Carries(blockedPrefix)
	}
	if !carried {
		t.Errorf("no model turn carries hookwarden's refusal %q", blockedPrefix)
	}
}

// TestCopilotNestedTrust measures how a nested Copilot CLI start decides
// whether the repository's hook rows load (issue 29 item 6): Copilot CLI
// 1.0.102 loads a directory's hooks only when the directory is trusted
// (`copilot help environment`: COPILOT_ALLOW_ALL set to exactly "true"
// trusts it; "1", "yes", "on" or "y" only auto-approve tools), so a prompt
// mode run that approves tools without trusting the directory may run a
// command no hook judged. Each case starts from a fresh COPILOT_HOME (no
// saved trust) in a repository adopted for Copilot and asks for
// denyCommand; ran says whether the command ran. Measured on 1.0.102
// (2026-12-05): approving tools without trusting the directory runs the
// command with no hook (allow-all-1, allow-all-tools-flag, yolo-flag); the
// policy refuses such a nested start (copilotUntrusted).
func TestCopilotNestedTrust(t *testing.T) {
	s, version, bin := realCopilot(t)
	for _, tc := range []struct {
		name  string
		env   string   // COPILOT_ALLOW_ALL's value, "" for unset
		args  []string // more arguments
		ran   bool
		check string
	}{
		{name: "allow-all-true", env: "true", ran: false,
			check: "COPILOT_ALLOW_ALL=true trusts the directory: the repository's row loads and the --no-verify commit is denied"},
		{name: "allow-all-1", env: "1", ran: true,
			check: "COPILOT_ALLOW_ALL=1 approves tools without trusting the directory"},
		{name: "allow-all-tools-flag", args: []string{"--allow-all-tools"}, ran: true,
			check: "--allow-all-tools approves tools without trusting the directory"},
		{name: "yolo-flag", args: []string{"--yolo"}, ran: true,
			check: "--yolo (all permissions) without --trust-folder"},
		{name: "allow-all-tools-trust-folder", args: []string{"--allow-all-tools", "--trust-folder"}, ran: false,
			check: "--trust-folder trusts the directory for the session: the row loads"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s.observe(t, "copilot", version, "pre-tool", "nested-trust "+tc.name+": "+tc.check)
			sb := s.sandbox(t)
			if out, err := s.hookwardenCmd(t, bin, sb, pathWithout("hookwarden"), "adopt", "--clients", "copilot", sb.Repo); err != nil {
				t.Fatalf("adopt --clients copilot: %v\n%s", err, out)
			}
			srv, err := NewServer(Chat, Script{Commands: []string{denyCommand}})
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			inv := copilotInvocation(sb, s.clientsDir, srv.URL(), "HOOKWARDEN_BIN="+bin)
			inv.Env = dropEnv(inv.Env, "COPILOT_ALLOW_ALL=")
			if tc.env != "" {
				inv.Env = append(inv.Env, "COPILOT_ALLOW_ALL="+tc.env)
			}
			inv.Args = append(inv.Args, tc.args...)
			res := s.run(t, inv)
			ran := sb.Exists("repo/" + deniedMarker)
			t.Logf("measured copilot %s %s: exit %d, denied command ran %v", version, tc.name, res.ExitCode, ran)
			if ran != tc.ran {
				t.Errorf("the --no-verify commit ran = %v, want %v\n%s", ran, tc.ran, res.Tail(2000))
			}
		})
	}
}
