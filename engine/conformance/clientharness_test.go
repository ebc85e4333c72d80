package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Client describes one real agent client the suite drives: Name is the
// hookwarden client name (claude, codex, gemini, opencode), Package the npm
// package it is installed from, API the model protocol it speaks.
type Client struct {
	Name    string
	Package string
	API     API
}

// Clients returns the four clients the suite drives, in a fixed order. The
// pinned versions are those of ../shared/e2e/README.md: Claude Code 2.1.328,
// codex-cli 0.169.0, Gemini CLI 0.61.0, opencode 1.18.33.
func Clients() []Client {
	return []Client{
		{Name: "claude", Package: "@anthropic-ai/claude-code", API: Anthropic},
		{Name: "codex", Package: "@openai/codex", API: Responses},
		{Name: "gemini", Package: "@google/gemini-cli", API: Gemini},
		{Name: "opencode", Package: "opencode-ai", API: Chat},
	}
}

// Bin returns the client's executable under dir, a HOOKWARDEN_CLIENTS_DIR
// (a directory holding node_modules/.bin/<name>).
func (c Client) Bin(dir string) string {
	return filepath.Join(dir, "node_modules", ".bin", c.Name)
}

// Version returns the installed client version, read from
// <dir>/node_modules/<package>/package.json (no process is started). It
// returns an error naming the file when it is missing or has no version.
func (c Client) Version(dir string) (string, error) {
	p := filepath.Join(dir, "node_modules", filepath.FromSlash(c.Package), "package.json")
	b, err := os.ReadFile(p)
	if err != nil {
		return "", fmt.Errorf("hookwarden: client version: %w", err)
	}
	var doc struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(b, &doc); err != nil || doc.Version == "" {
		return "", fmt.Errorf("hookwarden: client version: %s: no version field", p)
	}
	return doc.Version, nil
}

// Sandbox is the isolated file system of one client run: Root is a fresh
// directory; Repo (Root/repo) a git repository and the client's cwd; Home
// (Root/home) the isolated HOME and client config dir; Out (Root/out) where
// test hooks write what they saw. All paths are absolute and free of
// symlinks.
type Sandbox struct {
	Root string
	Repo string
	Home string
	Out  string
}

// NewSandbox creates the sandbox directories under root (which must exist)
// and initialises Repo as a git repository with one commit holding a README,
// so the repository has a HEAD. It returns an error naming the step that
// failed.
func NewSandbox(ctx context.Context, root string) (*Sandbox, error) {
	root, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, fmt.Errorf("hookwarden: sandbox %s: %w", root, err)
	}
	s := &Sandbox{Root: root, Repo: filepath.Join(root, "repo"), Home: filepath.Join(root, "home"), Out: filepath.Join(root, "out")}
	for _, d := range []string{s.Repo, s.Home, s.Out} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, fmt.Errorf("hookwarden: sandbox %s: %w", d, err)
		}
	}
	if err := os.WriteFile(filepath.Join(s.Repo, "README.md"), []byte("conformance sandbox\n"), 0o644); err != nil {
		return nil, fmt.Errorf("hookwarden: sandbox %s: %w", s.Repo, err)
	}
	if err := s.Git(ctx, "init", "-q"); err != nil {
		return nil, err
	}
	if err := s.Commit(ctx, "initial"); err != nil {
		return nil, err
	}
	return s, nil
}

// Git runs git with args in the sandbox repository, with an isolated
// identity and no user or system git config. It returns an error holding
// git's output when git fails.
func (s *Sandbox) Git(ctx context.Context, args ...string) error {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = s.Repo
	cmd.Env = append(scrubbedEnv(os.Environ()), "HOME="+s.Home, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=conformance", "GIT_AUTHOR_EMAIL=conformance@example.invalid",
		"GIT_COMMITTER_NAME=conformance", "GIT_COMMITTER_EMAIL=conformance@example.invalid")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("hookwarden: git %s in %s: %w: %s", strings.Join(args, " "), s.Repo, err, bytes.TrimSpace(out))
	}
	return nil
}

// Commit stages every file in the repository and commits it with message
// (an empty commit is allowed).
func (s *Sandbox) Commit(ctx context.Context, message string) error {
	if err := s.Git(ctx, "add", "-A"); err != nil {
		return err
	}
	return s.Git(ctx, "commit", "-q", "--allow-empty", "--no-verify", "-m", message)
}

// WriteFile writes data to rel, a slash-separated path below Root (for
// example "repo/.claude/settings.json"), creating parent directories.
func (s *Sandbox) WriteFile(rel string, data []byte) error {
	p := filepath.Join(s.Root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("hookwarden: sandbox %s: %w", p, err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		return fmt.Errorf("hookwarden: sandbox %s: %w", p, err)
	}
	return nil
}

// Exists reports whether rel (slash-separated, below Root) exists.
func (s *Sandbox) Exists(rel string) bool {
	_, err := os.Lstat(filepath.Join(s.Root, filepath.FromSlash(rel)))
	return err == nil
}

// scrubbedEnv drops variables that would make a client or git escape the
// sandbox or reach a real service: inherited git locations, real API keys
// and base URLs, client homes, and PWD (set per run).
func scrubbedEnv(env []string) []string {
	drop := []string{"GIT_DIR=", "GIT_WORK_TREE=", "GIT_INDEX_FILE=", "GIT_CONFIG", "PWD=", "OLDPWD=",
		"ANTHROPIC_", "CLAUDE_", "CLAUDECODE=", "OPENAI_", "CODEX_", "GEMINI_", "GOOGLE_", "OPENCODE",
		"XDG_", "HOOKWARDEN_E2E", "HOOKWARDEN_RECORD_DIR=", "HOOKWARDEN_CONFIG=", "HOOKWARDEN_FLEET_CONFIG=", "HOOKWARDEN_BIN="}
	out := make([]string, 0, len(env))
next:
	for _, kv := range env {
		for _, d := range drop {
			if strings.HasPrefix(kv, d) {
				continue next
			}
		}
		out = append(out, kv)
	}
	return out
}

// Invocation is one client command line: Args[0] is the executable, Env the
// variables added on top of the scrubbed parent environment, Dir the cwd,
// Stdin the bytes on its standard input (nil: /dev/null).
type Invocation struct {
	Args  []string
	Env   []string
	Dir   string
	Stdin []byte
}

// Result is what one bounded client run returned: ExitCode (-1 when killed),
// Stdout and Stderr (complete), Elapsed wall time, and TimedOut when the
// deadline killed the process group.
type Result struct {
	ExitCode int
	Stdout   []byte
	Stderr   []byte
	Elapsed  time.Duration
	TimedOut bool
}

// Tail returns the last n bytes of Stdout and Stderr for failure messages.
func (r Result) Tail(n int) string {
	cut := func(b []byte) string {
		if len(b) > n {
			b = b[len(b)-n:]
		}
		return string(b)
	}
	return fmt.Sprintf("exit %d after %s (timed out: %v)\n--- stdout\n%s\n--- stderr\n%s", r.ExitCode, r.Elapsed.Round(time.Millisecond), r.TimedOut, cut(r.Stdout), cut(r.Stderr))
}

// Run starts inv with inv.Stdin (nil: /dev/null) in its own process group and waits
// for it, at most timeout. On timeout (or ctx cancellation) the whole
// process group is killed. After the client exits, any process it left in
// its group is killed too, so nothing outlives the run. The returned error
// is non-nil only when the process could not be started.
func Run(ctx context.Context, inv Invocation, timeout time.Duration) (Result, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, inv.Args[0], inv.Args[1:]...)
	cmd.Dir = inv.Dir
	cmd.Env = append(scrubbedEnv(os.Environ()), inv.Env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Stdin = nil // /dev/null: codex exec otherwise waits on stdin
	if inv.Stdin != nil {
		cmd.Stdin = bytes.NewReader(inv.Stdin)
	}
	killGroupOnCancel(cmd)
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return Result{}, fmt.Errorf("hookwarden: start %s: %w", inv.Args[0], err)
	}
	err := cmd.Wait()
	killGroup(cmd.Process.Pid) // reap stragglers of this run's group only
	res := Result{ExitCode: cmd.ProcessState.ExitCode(), Stdout: stdout.Bytes(), Stderr: stderr.Bytes(), Elapsed: time.Since(start)}
	if ctx.Err() != nil {
		res.TimedOut = true
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) && !res.TimedOut && !errors.Is(err, exec.ErrWaitDelay) {
		return res, fmt.Errorf("hookwarden: wait %s: %w", inv.Args[0], err)
	}
	return res, nil
}

// Prompt is the user prompt every run sends; the scripted model ignores it.
const Prompt = "run it"

// Setup writes the client's own configuration into the sandbox (model
// provider pointed at modelURL, auth, isolation) and returns the invocation
// that runs one non-interactive turn. It writes no hook rows: the cases add
// those. extraArgs are appended before the prompt. Recipes and pitfalls from
// ../shared/e2e/README.md:
//
//   - claude: CLAUDE_CONFIG_DIR isolates ~/.claude; ANTHROPIC_BASE_URL points
//     at the server; --allowedTools Bash,Write because
//     --dangerously-skip-permissions is refused as root (§1).
//   - codex: config.toml in CODEX_HOME names a "responses" provider at
//     <url>/v1 and trusts the repository (untrusted projects ignore
//     .codex/); HOME is set too, else Codex writes helper links to the real
//     ~/.codex (§2). Hook trust is the caller's business (codextrust_test.go).
//   - gemini: user settings select the gemini-api-key auth type (else
//     GOOGLE_GEMINI_BASE_URL switches to "gateway", rejected in -p mode),
//     GEMINI_CLI_TRUST_WORKSPACE=true trusts the folder (else exit 55),
//     --yolo offers the shell and edit tools (§3).
//   - opencode: opencode.json in the repo names an openai-compatible
//     provider; PWD must be the repo (opencode takes its project from $PWD);
//     npm points at a dead loopback registry with no retries so the plugin
//     dependency install fails in under a second instead of stalling ~70 s
//     (§4).
func (c Client) Setup(sb *Sandbox, clientsDir, modelURL string, extraArgs ...string) (Invocation, error) {
	inv := Invocation{Dir: sb.Repo, Env: []string{"PWD=" + sb.Repo, "HOME=" + sb.Home}}
	bin := c.Bin(clientsDir)
	switch c.Name {
	case "claude":
		inv.Env = append(inv.Env, "CLAUDE_CONFIG_DIR="+sb.Home, "ANTHROPIC_BASE_URL="+modelURL,
			"ANTHROPIC_API_KEY=sk-test-dummy", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1")
		// the prompt follows -p directly: --allowedTools takes a list
		inv.Args = append([]string{bin, "-p", Prompt, "--output-format", "json", "--allowedTools", "Bash,Write"}, extraArgs...)
	case "codex":
		if err := sb.WriteFile("home/config.toml", []byte(CodexConfig(modelURL, sb.Repo))); err != nil {
			return inv, err
		}
		inv.Env = append(inv.Env, "CODEX_HOME="+sb.Home, "MOCK_API_KEY=sk-dummy")
		inv.Args = append([]string{bin, "exec", "--json", "--skip-git-repo-check"}, extraArgs...)
	case "gemini":
		user := `{"security":{"auth":{"selectedType":"gemini-api-key"}},"privacy":{"usageStatisticsEnabled":false}}` + "\n"
		if err := sb.WriteFile("home/.gemini/settings.json", []byte(user)); err != nil {
			return inv, err
		}
		inv.Env = append(inv.Env, "GEMINI_CLI_HOME="+sb.Home, "GOOGLE_GEMINI_BASE_URL="+modelURL,
			"GEMINI_API_KEY=dummy", "GEMINI_CLI_TRUST_WORKSPACE=true")
		inv.Args = append([]string{bin, "-p", Prompt, "--yolo", "--output-format", "json"}, extraArgs...)
	case "opencode":
		cfg := map[string]any{
			"model": "mock/mock-model", "small_model": "mock/mock-model", "autoupdate": false, "share": "disabled",
			"provider": map[string]any{"mock": map[string]any{
				"npm": "@ai-sdk/openai-compatible", "name": "Mock",
				"options": map[string]any{"baseURL": modelURL + "/v1", "apiKey": "sk-dummy"},
				"models": map[string]any{"mock-model": map[string]any{"name": "Mock Model", "tool_call": true,
					"limit": map[string]any{"context": 128000, "output": 4096}}}}},
			"permission": map[string]any{"bash": "allow", "edit": "allow"},
		}
		b, _ := json.MarshalIndent(cfg, "", "  ")
		if err := sb.WriteFile("repo/opencode.json", append(b, '\n')); err != nil {
			return inv, err
		}
		x := sb.Home
		inv.Env = append(inv.Env, "XDG_CONFIG_HOME="+filepath.Join(x, ".config"), "XDG_DATA_HOME="+filepath.Join(x, ".local/share"),
			"XDG_CACHE_HOME="+filepath.Join(x, ".cache"), "XDG_STATE_HOME="+filepath.Join(x, ".local/state"),
			"OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_LSP_DOWNLOAD=1",
			"OPENCODE_DISABLE_DEFAULT_PLUGINS=1", "npm_config_registry=http://127.0.0.1:9/", "npm_config_fetch_retries=0")
		inv.Args = append([]string{bin, "run", "--format", "json"}, extraArgs...)
	default:
		return inv, fmt.Errorf("hookwarden: client %q has no recipe", c.Name)
	}
	if c.Name != "claude" && c.Name != "gemini" { // those take the prompt as the value of -p
		inv.Args = append(inv.Args, Prompt)
	}
	return inv, nil
}

// CodexConfig returns a codex-cli 0.169.0 config.toml that selects the
// "mock" provider (wire_api "responses" at <modelURL>/v1, key from
// MOCK_API_KEY) and trusts repo (trust_level = "trusted"; without it the
// project's .codex/ is ignored) — ../shared/e2e/README.md §2. repo == ""
// leaves the project untrusted.
func CodexConfig(modelURL, repo string) string {
	s := "model = \"mock-model\"\nmodel_provider = \"mock\"\n\n[model_providers.mock]\nname = \"mock\"\n" +
		"base_url = " + TOMLString(modelURL+"/v1") + "\nwire_api = \"responses\"\nenv_key = \"MOCK_API_KEY\"\n"
	if repo != "" {
		s += "\n[projects." + TOMLString(repo) + "]\ntrust_level = \"trusted\"\n"
	}
	return s
}

// TOMLString quotes s as a TOML basic string.
func TOMLString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "\\u%04X", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
