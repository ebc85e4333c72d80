package agentcontext

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRealClientsReadCompiledContext runs the real Claude Code and Gemini CLI
// against ../shared/e2e/mock_llm.py on 127.0.0.1 and checks that the model
// request carries the AGENTS.md content through the files Compile writes
// (CLAUDE.md "@AGENTS.md"; GEMINI.md "@./AGENTS.md"; a context.fileName
// chosen file; a context.fileName list naming AGENTS.md with nothing
// written), that no request carries it twice, and that without GEMINI.md
// Gemini CLI does not read AGENTS.md at all. It runs only with HOOKWARDEN_E2E=1 and the pinned clients installed
// (../shared/e2e/README.md, "Quick start"); each client run takes a few
// seconds of CPU.
func TestRealClientsReadCompiledContext(t *testing.T) {
	if os.Getenv("HOOKWARDEN_E2E") != "1" {
		t.Skip("set HOOKWARDEN_E2E=1 to run the real clients")
	}
	dir := os.Getenv("HOOKWARDEN_CLIENTS_DIR")
	if dir == "" {
		home, _ := os.UserHomeDir()
		dir = filepath.Join(home, ".cache", "hookwarden-clients")
	}
	bin := filepath.Join(dir, "node_modules", ".bin")
	mock, err := filepath.Abs(filepath.Join("..", "..", "..", "shared", "e2e", "mock_llm.py"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(bin, "claude"), filepath.Join(bin, "gemini"), mock} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("HOOKWARDEN_E2E=1 but %s is missing: %v", p, err)
		}
	}
	const marker = "MARKER-AGENTS-7f3a"
	for _, tc := range []struct {
		name, client, settings string
		compile, want          bool
	}{
		{"claude-import", "claude", "", true, true},
		{"gemini-none", "gemini", "", false, false},
		{"gemini-import", "gemini", "", true, true},
		{"gemini-custom-name", "gemini", `{"context": {"fileName": "CONTEXT.md"}}`, true, true},
		{"gemini-list-names-agents", "gemini", `{"context": {"fileName": ["GEMINI.md", "AGENTS.md"]}}`, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wd := t.TempDir()
			repo, home := filepath.Join(wd, "repo"), filepath.Join(wd, "home")
			for _, d := range []string{repo, home, filepath.Join(home, ".gemini")} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
				t.Fatalf("git init: %v %s", err, out)
			}
			writeTree(t, repo, map[string][]byte{"AGENTS.md": []byte("# Probe\n\nThe project codename is " + marker + ".\n")})
			if tc.settings != "" {
				writeTree(t, repo, map[string][]byte{GeminiSettingsPath: []byte(tc.settings)})
			}
			if tc.compile {
				plan, err := Compile(context.Background(), Options{TargetDir: repo, Clients: []string{tc.client}, Version: testVersion})
				if err != nil {
					t.Fatal(err)
				}
				if _, err := Apply(context.Background(), plan); err != nil {
					t.Fatal(err)
				}
			}
			body := runAgainstMock(t, mock, bin, tc.client, repo, home)
			if got := strings.Contains(body, marker); got != tc.want {
				t.Errorf("AGENTS.md content in the model request = %v, want %v", got, tc.want)
			}
			// The import must not load AGENTS.md twice (Claude Code also reads
			// AGENTS.md by itself when there is no CLAUDE.md).
			for _, req := range strings.Split(body, "\n") {
				if n := strings.Count(req, marker); n > 1 {
					t.Errorf("one model request carries AGENTS.md %d times", n)
				}
			}
		})
	}
}

// runAgainstMock starts the mock model server, runs one prompt with client in
// repo and returns the logged request bodies.
func runAgainstMock(t *testing.T, mock, bin, client, repo, home string) string {
	t.Helper()
	api := map[string]string{"claude": "anthropic", "gemini": "gemini"}[client]
	logPath := filepath.Join(filepath.Dir(repo), "requests.jsonl")
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	m := exec.CommandContext(ctx, "python3", mock, "--api", api, "--port", "0", "--log", logPath, "--log-bodies", "--lifetime", "150", "--max-tool-calls", "0")
	out, err := m.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = m.Process.Kill()
		_ = m.Wait()
	}()
	line, err := bufio.NewReader(out).ReadString('\n')
	f := strings.Fields(line)
	if err != nil || len(f) != 2 || f[0] != "READY" {
		t.Fatalf("mock did not start: %q %v", line, err)
	}
	port := f[1]
	var cmd *exec.Cmd
	env := os.Environ()
	switch client {
	case "claude":
		cmd = exec.CommandContext(ctx, filepath.Join(bin, "claude"), "-p", "say hi", "--output-format", "json")
		env = append(env, "CLAUDE_CONFIG_DIR="+home, "ANTHROPIC_BASE_URL=http://127.0.0.1:"+port,
			"ANTHROPIC_API_KEY=sk-test-dummy", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1")
	case "gemini":
		writeTree(t, home, map[string][]byte{".gemini/settings.json": []byte(`{"security": {"auth": {"selectedType": "gemini-api-key"}}, "privacy": {"usageStatisticsEnabled": false}}`)})
		cmd = exec.CommandContext(ctx, filepath.Join(bin, "gemini"), "-p", "say hi", "--output-format", "json")
		env = append(env, "GEMINI_CLI_HOME="+home, "HOME="+home, "GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:"+port,
			"GEMINI_API_KEY=dummy", "GEMINI_CLI_TRUST_WORKSPACE=true")
	}
	cmd.Dir, cmd.Env = repo, env
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", client, err, b)
	}
	b, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatalf("no requests logged: %v", err)
	}
	return string(b)
}
