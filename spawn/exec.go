package spawn

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// RefusedExit is the exit code of `spawn exec` when it refuses before the
// engine starts (DESIGN.md "Exit codes": the code env and docker run use).
const RefusedExit = 125

// ExecOptions are the inputs of one `spawn exec`.
type ExecOptions struct {
	// Argv is the engine command as the caller wrote it after `--`:
	// argv[0] must be claude or codex itself (a path or a name on PATH).
	Argv         []string
	Home         string   // hookwarden home (absolute)
	Cwd          string   // working directory of the engine (absolute)
	Env          []string // environment of the call (KEY=VALUE); PATH resolves argv[0]
	ProfilePath  string
	OperatorPath string
	Snapshot     *Snapshot // nil: read the home now
	Tables       fs.FS     // nil: the shipped capability tables
	Stdin        io.Reader
	Stdout       io.Writer
	Stderr       io.Writer
	// SecretNames are the declared names of the redaction table's second
	// part: each such variable of Env enters the table whatever its length
	// (ADR-0134 D7; `spawn exec --secret-name`).
	SecretNames []string
	// MCPProxy is the absolute path of hookwarden-mcp-proxy (beside the
	// hookwarden binary): under a redaction entry each of the caller's MCP
	// servers runs behind it; without it a spawn with MCP servers refuses.
	MCPProxy string
	// Gateway is the absolute path of the program that serves the
	// redaction entry's model-traffic tripwire (`hookwarden-mcp-proxy
	// gateway`; cmd/hookwarden names the one beside itself). Under a
	// redaction entry a run without it refuses (redaction-upstream).
	Gateway string
	// AutoFinish, when not empty, is the continuation's prompt (`spawn
	// exec --auto-finish PROMPT`, Claude only): when the first child's
	// result says the turn limit stopped it, a second child of the same
	// run resumes its session with this prompt (continuation.go).
	AutoFinish string
	// Started, when set, is called with the render and the child's argv
	// once each engine process has started (tests and logging).
	Started func(r *Render, argv []string)
	runID   string   // fixes the run id (tests); "" = random
	contEnv []string // added to the continuation's environment (tests: ADR-0134 A2's new named value)
}

func getenvFrom(env []string, key string) string {
	v, _ := lookupEnvFrom(env, key)
	return v
}

// lookupEnvFrom returns the last value of key in env and whether it is set.
func lookupEnvFrom(env []string, key string) (string, bool) {
	v, set := "", false
	for _, kv := range env {
		if k, val, ok := strings.Cut(kv, "="); ok && k == key {
			v, set = val, true
		}
	}
	return v, set
}

// lookPath resolves name like a shell would with PATH from env, or makes a
// path containing a slash absolute against cwd.
func lookPath(name, cwd string, env []string) (string, error) {
	if strings.Contains(name, "/") {
		p := name
		if !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
		return filepath.Clean(p), nil
	}
	for _, dir := range filepath.SplitList(getenvFrom(env, "PATH")) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue // an empty or relative PATH entry would resolve against cwd: never
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s not found on PATH", name)
}

// flagValue returns the value of a flag at args[i] written as "--name v" or
// "--name=v", how many args it used, and whether args[i] is that flag.
func flagValue(args []string, i int, names ...string) (string, int, bool) {
	a := args[i]
	for _, n := range names {
		if a == n {
			if i+1 < len(args) {
				return args[i+1], 2, true
			}
			return "", 1, true
		}
		if strings.HasPrefix(a, n+"=") {
			return a[len(n)+1:], 1, true
		}
	}
	return "", 0, false
}

// claudePromptFileFlags are Claude Code 2.1.328's flags that name a file
// the engine reads as model input (its --help lists --system-prompt-file
// and --append-system-prompt-file; the bundle also spells
// --append-subagent-system-prompt-file); --agents takes JSON or a file.
var claudePromptFileFlags = []string{"--system-prompt-file", "--append-system-prompt-file", "--append-subagent-system-prompt-file"}

// claudeHookSwitches are Claude Code 2.1.328 options that turn off the
// hooks of --settings: --bare ("skip hooks (those defined in settings …)")
// and --safe-mode ("all customizations (… hooks …) disabled"), per its
// --help; TestRealClaudeHookSwitches saw a --settings PreToolUse hook not
// run under either, nor under claudeSimpleEnv.
var claudeHookSwitches = []string{"--bare", "--safe-mode"}

// claudeHookOffEnv are the variables that stand for those switches
// (Claude Code 2.1.328's bundle reads CLAUDE_CODE_SIMPLE beside --bare and
// CLAUDE_CODE_SAFE_MODE beside --safe-mode, true for 1, true, yes or on);
// set by the caller each turned the render's hooks off
// (TestRealClaudeHookSwitches). Any value but an empty or false one
// ("0", "false", "no", "off") refuses.
var claudeHookOffEnv = []string{"CLAUDE_CODE_SIMPLE", "CLAUDE_CODE_SAFE_MODE"}

// codexHookFeatures are the feature names whose switch turns Codex hooks
// on or off: "hooks" and its legacy alias "codex_hooks" (both listed by
// `codex features list` and switched by `--disable codex_hooks` on
// codex-cli 0.169.0, measured 2026-12-01), and "plugin_hooks" (listed
// there as removed).
var codexHookFeatures = []string{"hooks", "codex_hooks", "plugin_hooks"}

// codexOption returns the value of a Codex (clap) option at args[i] in each
// spelling codex-cli 0.169.0 accepts (measured 2026-12-01 with
// `codex … features list`): "--long V", "--long=V", and when short is not
// 0, "-s V", "-sV" and "-s=V" (clap strips one "=" after a short flag:
// `-c=features.hooks=false` turned the hooks feature off). Long options
// are not abbreviated (`--conf`, `--prof`, `--enab` are "unexpected
// argument" errors there). n is how many args the option used (1 when its
// value is missing at the end).
func codexOption(args []string, i int, short byte, long string) (string, int, bool) {
	if v, n, ok := flagValue(args, i, long); ok {
		return v, n, true
	}
	a := args[i]
	if short == 0 || len(a) < 2 || a[0] != '-' || a[1] != short {
		return "", 0, false
	}
	if len(a) == 2 {
		if i+1 < len(args) {
			return args[i+1], 2, true
		}
		return "", 1, true
	}
	return strings.TrimPrefix(a[2:], "="), 1, true
}

// codexFeatureSwitch is codexOption for Codex's --enable and --disable
// (feature switches; long only in codex-cli 0.169.0's --help).
func codexFeatureSwitch(args []string, i int) (string, int, bool) {
	if v, n, ok := codexOption(args, i, 0, "--enable"); ok {
		return v, n, true
	}
	return codexOption(args, i, 0, "--disable")
}

// codexHookKey returns why a -c/--config override key reaches Codex's
// hooks ("" when it does not): the key is split at dots with spaces and
// quotes trimmed from each part and compared without case (more lenient
// than Codex's own split, so a spelling Codex reads as a hooks key is
// never let through). Refused: hooks and anything under it, profile and
// profiles (a profile layer may carry hooks or features), the whole
// features table, and features.<a hook feature>.
func codexHookKey(key string) string {
	parts := strings.Split(key, ".")
	for i, p := range parts {
		parts[i] = strings.ToLower(strings.Trim(strings.TrimSpace(p), `"'`))
	}
	switch parts[0] {
	case "hooks":
		return "hooks"
	case "profile", "profiles":
		return "a profile layer may carry hooks"
	case "features":
		if len(parts) == 1 || slices.Contains(codexHookFeatures, parts[1]) {
			return "the hooks feature switch"
		}
	}
	return ""
}

// callerArgs inspects the caller's engine arguments: it removes Claude's
// --settings and --setting-sources (handing their values to the compile),
// notes Codex's -C/--cd, and refuses caller hook sources (Claude
// --plugin-dir; Codex -c hooks…, features.hooks, --disable hooks,
// --profile, --dangerously-bypass-hook-trust).
func callerArgs(engine string, args []string, cwd string, o *Options) ([]string, error) {
	var kept []string
	for i := 0; i < len(args); {
		a := args[i]
		if a == "--" {
			kept = append(kept, args[i:]...)
			break
		}
		switch engine {
		case "claude":
			if v, n, ok := flagValue(args, i, "--settings"); ok {
				if strings.HasPrefix(strings.TrimSpace(v), "{") {
					o.CallerSettings = []byte(v)
				} else {
					p := v
					if !filepath.IsAbs(p) {
						p = filepath.Join(cwd, p)
					}
					b, err := readSmall(p)
					if err != nil {
						return nil, refuse(ReasonCallerSettings, "the caller's settings file %s: %v", p, err)
					}
					o.CallerSettings = b
				}
				i += n
				continue
			}
			if v, n, ok := flagValue(args, i, "--setting-sources"); ok {
				o.CallerSettingSources = &v
				i += n
				continue
			}
			if _, _, ok := flagValue(args, i, claudePromptFileFlags...); ok {
				o.PromptFiles = append(o.PromptFiles, strings.SplitN(a, "=", 2)[0])
			}
			if v, _, ok := flagValue(args, i, "--agents"); ok && !strings.HasPrefix(strings.TrimSpace(v), "{") {
				o.PromptFiles = append(o.PromptFiles, "--agents (a file)")
			}
			if _, _, ok := flagValue(args, i, "--plugin-dir"); ok {
				return nil, refuse(ReasonCallerHooks, "the caller passes --plugin-dir; plugins carry hooks")
			}
			if _, _, ok := flagValue(args, i, claudeHookSwitches...); ok {
				return nil, refuse(ReasonCallerHooks, "the caller passes %s, which turns off the hooks the render passes in --settings", strings.SplitN(a, "=", 2)[0])
			}
		case "codex":
			if v, n, ok := codexOption(args, i, 'c', "--config"); ok {
				k, _, _ := strings.Cut(v, "=")
				if why := codexHookKey(k); why != "" {
					return nil, refuse(ReasonCallerHooks, "the caller overrides %q (%s); hooks come from the registry only", strings.TrimSpace(k), why)
				}
				kept = append(kept, args[i:i+n]...)
				i += n
				continue
			}
			if v, n, ok := codexFeatureSwitch(args, i); ok {
				for _, f := range strings.Split(v, ",") {
					if slices.Contains(codexHookFeatures, strings.ToLower(strings.TrimSpace(f))) {
						return nil, refuse(ReasonCallerHooks, "the caller passes %s %s", a, v)
					}
				}
				kept = append(kept, args[i:i+n]...)
				i += n
				continue
			}
			if _, _, ok := codexOption(args, i, 'p', "--profile"); ok {
				return nil, refuse(ReasonCallerHooks, "the caller selects a Codex profile layer, which may carry hooks")
			}
			if strings.HasPrefix(a, "--dangerously-bypass-hook-trust") {
				return nil, refuse(ReasonCallerHooks, "the caller passes --dangerously-bypass-hook-trust; a spawn runs registry hooks through trust records only")
			}
			if v, n, ok := codexOption(args, i, 'C', "--cd"); ok {
				if !filepath.IsAbs(v) {
					v = filepath.Join(cwd, v)
				}
				o.Cwd = filepath.Clean(v)
				kept = append(kept, args[i:i+n]...)
				i += n
				continue
			}
		}
		kept = append(kept, a)
		i++
	}
	return kept, nil
}

// Exec compiles the spawn for the engine named by opts.Argv[0], appends the
// render to that exact binary's argv, sets HOOKWARDEN_HOOKS_REQUIREMENT in
// the child's environment to the requirement it read (or removes it), runs
// the engine with stdio passed through, removes the run's files when it
// exits, and returns the engine's exit code (128+signal when it was killed
// by one). With opts.AutoFinish a Claude run may have a second child, the
// continuation (continuation.go), and the code is the last child's. A run
// under a redaction entry, or a continuation, that fails after a child
// started returns RunFailedExit and the *RunFailure. A refusal returns
// RefusedExit and the *Refusal; no engine process has started then (the
// version probe excepted, which runs `--version` only) and no file the
// call created remains.
func Exec(ctx context.Context, opts ExecOptions) (int, error) {
	if len(opts.Argv) == 0 {
		return 2, errors.New("hookwarden: spawn exec: no engine command after --")
	}
	engine := filepath.Base(opts.Argv[0])
	if !slices.Contains(renderers, engine) {
		return RefusedExit, refuse(ReasonEngineWrapper, "argv[0] %q is not claude or codex; run the engine itself, not through a wrapper", engine)
	}
	bin, err := lookPath(opts.Argv[0], opts.Cwd, opts.Env)
	if err != nil {
		return RefusedExit, refuse(ReasonEngineNotFound, "%v", err)
	}
	reqPath, reqSet := lookupEnvFrom(opts.Env, EnvRequirement)
	if reqSet && reqPath == "" {
		return RefusedExit, refuse(ReasonRequirementInvalid, "%s is set but empty", EnvRequirement)
	}
	co := Options{Engine: engine, Binary: bin, Cwd: opts.Cwd, Home: opts.Home, Runtime: true, Env: opts.Env,
		RequirementPath: reqPath, ProfilePath: opts.ProfilePath,
		OperatorPath: opts.OperatorPath, Snapshot: opts.Snapshot, Tables: opts.Tables, runID: opts.runID}
	args, err := callerArgs(engine, opts.Argv[1:], opts.Cwd, &co)
	if err != nil {
		return RefusedExit, err
	}
	if opts.AutoFinish != "" {
		if err := checkAutoFinish(engine, args, opts.AutoFinish); err != nil {
			return RefusedExit, err
		}
		// SIGINT, SIGTERM or SIGHUP to spawn exec ends the run: relayed to
		// a running child (runEngine) and, through ctx, no continuation
		// starts after it, and one arriving between the children neither
		// kills spawn exec before its cleanup nor lets child 2 start
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
		defer stop()
	}
	for _, k := range claudeHookOffEnv {
		v, _ := lookupEnvFrom(opts.Env, k)
		if engine == "claude" && !slices.Contains([]string{"", "0", "false", "no", "off"}, strings.ToLower(strings.TrimSpace(v))) {
			return RefusedExit, refuse(ReasonCallerHooks, "the caller's environment sets %s, which turns off the hooks the render passes in --settings", k)
		}
	}
	r, err := Compile(ctx, co)
	if err != nil {
		if AsRefusal(err) != nil {
			return RefusedExit, err
		}
		return RefusedExit, refuse(ReasonCompileFailed, "%v", err)
	}
	defer r.Cleanup()
	if opts.Stderr != nil {
		for _, n := range r.Notes {
			fmt.Fprintf(opts.Stderr, "hookwarden: spawn: %s\n", n)
		}
	}
	// the render goes before a caller's "--", after which the engine takes
	// only positional arguments
	at := slices.Index(args, "--")
	if at < 0 {
		at = len(args)
	}
	argv := append([]string{bin}, args[:at]...)
	argv = append(argv, r.Args...)
	argv = append(argv, args[at:]...)
	env := slices.DeleteFunc(slices.Clone(opts.Env), func(kv string) bool {
		return strings.HasPrefix(kv, EnvRequirement+"=")
	})
	if r.RequirementPath != "" {
		env = append(env, EnvRequirement+"="+r.RequirementPath)
	}
	if r.Redaction != nil {
		return execRedacted(ctx, opts, r, bin, args[:at], args[at:], env)
	}
	if opts.AutoFinish != "" {
		return execContinued(ctx, opts, r, bin, args, env)
	}
	code, _, err := runEngine(ctx, opts, r, exec.Cmd{Path: bin, Args: argv, Dir: opts.Cwd, Env: env,
		Stdin: opts.Stdin, Stdout: opts.Stdout, Stderr: opts.Stderr})
	return code, err
}

// engineIODelay bounds how long runEngine waits, after the engine exited,
// for its output pipes to close.
const engineIODelay = 5 * time.Second

// runEngine starts the engine command, passes SIGINT, SIGTERM and SIGHUP on
// to it, sends SIGTERM when ctx ends, and waits. It returns the exit code
// (128+signal when a signal killed it) and the signal's name ("" when it
// exited). A start failure is a refusal (nothing ran).
func runEngine(ctx context.Context, opts ExecOptions, r *Render, cmd exec.Cmd) (int, string, error) {
	return runEngineShown(ctx, opts, r, cmd, cmd.Args)
}

// runEngineShown is runEngine with shown the argv opts.Started receives
// (the engine's own, when cmd runs it under a wrapper such as the
// redaction entry's reaper).
func runEngineShown(ctx context.Context, opts ExecOptions, r *Render, cmd exec.Cmd, shown []string) (int, string, error) {
	if cmd.WaitDelay == 0 {
		// stdout or stderr copied through a pipe (a buffer, or the
		// continuation's result watch) is closed this long after the
		// engine exits, so a process it left holding the pipe cannot
		// keep spawn exec waiting
		cmd.WaitDelay = engineIODelay
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		return RefusedExit, "", refuse(ReasonEngineNotFound, "start %s: %v", cmd.Path, err)
	}
	if opts.Started != nil {
		opts.Started(r, shown)
	}
	done := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-sigs:
				_ = cmd.Process.Signal(s)
			case <-ctx.Done():
				_ = cmd.Process.Signal(syscall.SIGTERM)
				return
			case <-done:
				return
			}
		}
	}()
	werr := cmd.Wait()
	close(done)
	if st, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && st.Signaled() {
		return 128 + int(st.Signal()), st.Signal().String(), nil
	}
	if werr != nil && cmd.ProcessState == nil {
		return 1, "", fmt.Errorf("hookwarden: spawn exec %s: %w", cmd.Path, werr)
	}
	return cmd.ProcessState.ExitCode(), "", nil
}
