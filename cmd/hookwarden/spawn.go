package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/hookwarden/hookwarden/spawn"
)

// spawnCommand is `hookwarden spawn compile|exec` (issue 8): compile one
// spawn's hooks from the registry in HOOKWARDEN_HOME, or compile and run
// the engine with them. A refusal exits 125 from exec (DESIGN.md exit codes)
// and 1 from compile.
func spawnCommand() *cli.Command {
	layerFlags := []cli.Flag{
		&cli.StringFlag{Name: "profile", Usage: "profile layer file (attachments added after the registry)"},
		&cli.StringFlag{Name: "operator", Usage: "operator layer file (attachments added last)"},
	}
	return &cli.Command{
		Name:  "spawn",
		Usage: "compile the registry's hooks for one claude -p / codex exec spawn, isolated from every other hook source",
		Commands: []*cli.Command{
			{
				Name:  "compile",
				Usage: "print the render (argv additions, run files, hooks) or the refusal",
				Flags: append([]cli.Flag{
					&cli.StringFlag{Name: "engine", Required: true, Usage: "claude or codex"},
					&cli.StringFlag{Name: "binary", Usage: "engine binary (default: the engine's name on PATH)"},
					&cli.StringFlag{Name: "cwd", Usage: "working directory of the spawn (default: the current one)"},
					&cli.BoolFlag{Name: "json", Usage: "print the render or refusal as JSON"},
				}, layerFlags...),
				Action: spawnCompile,
			},
			{
				Name:      "exec",
				Usage:     "compile, then run the engine with the render appended; exits with the engine's code (the continuation's with --auto-finish), 125 on a refusal, 123 when a run under a redaction entry or a continuation failed",
				ArgsUsage: "-- claude -p … | -- codex exec …",
				Flags: append([]cli.Flag{
					&cli.StringSliceFlag{Name: "secret-name", Usage: "a declared secret variable name: under a redaction entry its value enters the run's table whatever its length (repeatable)"},
					&cli.StringFlag{Name: "auto-finish", Usage: "continuation prompt (claude -p with --output-format json or stream-json): when the first child's result is error_max_turns, a second child resumes its session with this prompt under the same render"},
				}, layerFlags...),
				// The engine's command line is the engine's: flags end at
				// its first word (a trailing --profile is codex's, not ours).
				StopOnNthArg: new(1),
				Action:       spawnExec,
			},
		},
	}
}

func absCwd(dir string) (string, error) {
	if dir == "" {
		return os.Getwd()
	}
	return filepath.Abs(dir)
}

func refusalExit(err error, code int, w io.Writer, asJSON bool) error {
	r := spawn.AsRefusal(err)
	if r == nil {
		return cli.Exit("hookwarden: spawn: "+err.Error(), 2)
	}
	if asJSON {
		b, _ := json.MarshalIndent(map[string]any{"refused": map[string]string{"reason": string(r.Reason), "detail": r.Detail}}, "", "  ")
		fmt.Fprintln(w, string(b))
	}
	return cli.Exit("hookwarden: spawn refused: "+r.Error(), code)
}

func spawnCompile(ctx context.Context, c *cli.Command) error {
	home, err := spawn.Home(os.Getenv)
	if err != nil {
		return cli.Exit("hookwarden: spawn: "+err.Error(), 2)
	}
	cwd, err := absCwd(c.String("cwd"))
	if err != nil {
		return cli.Exit("hookwarden: spawn: cwd: "+err.Error(), 2)
	}
	engine := c.String("engine")
	bin := c.String("binary")
	if bin == "" {
		bin = engine
	}
	if !strings.Contains(bin, "/") {
		p, err := exec.LookPath(bin)
		if err != nil {
			// A bare name resolves on PATH only, never against the cwd.
			return refusalExit(&spawn.Refusal{Reason: spawn.ReasonEngineNotFound, Detail: bin + " not found on PATH"}, 1, os.Stdout, c.Bool("json"))
		}
		bin = p
	}
	if !filepath.IsAbs(bin) {
		bin = filepath.Join(cwd, bin)
	}
	req, set := os.LookupEnv(spawn.EnvRequirement)
	if set && req == "" {
		req = "(set but empty)" // ReadRequirement refuses it as not absolute
	}
	r, err := spawn.Compile(context.Background(), spawn.Options{Engine: engine, Binary: bin, Cwd: cwd, Home: home,
		RequirementPath: req, ProfilePath: c.String("profile"), OperatorPath: c.String("operator")})
	if err != nil {
		return refusalExit(err, 1, os.Stdout, c.Bool("json"))
	}
	if c.Bool("json") {
		b, _ := json.MarshalIndent(r, "", "  ")
		fmt.Println(string(b))
		return nil
	}
	fmt.Printf("engine: %s %s (%s)\nrun id: %s\nsnapshot: %s\n", r.Engine, r.Version, r.Binary, r.RunID, r.SnapshotDigest)
	if r.RequirementPath != "" {
		fmt.Printf("requirement: %s\n", r.RequirementPath)
	} else {
		fmt.Println("requirement: none")
	}
	fmt.Printf("args: %s\n", spawn.ShellQuote(r.Args))
	for _, f := range r.Files {
		fmt.Printf("file (remove when the spawn ends): %s\n", f)
	}
	for _, h := range r.Hooks {
		fmt.Printf("hook: %s %s on %s (%s) argv %s\n", h.Layer, h.Hook, h.Event, h.Native, h.ArgvHash[:16])
	}
	for _, n := range r.Notes {
		fmt.Printf("note: %s\n", n)
	}
	return nil
}

func spawnExec(ctx context.Context, c *cli.Command) error {
	home, err := spawn.Home(os.Getenv)
	if err != nil {
		return cli.Exit("hookwarden: spawn refused: "+err.Error(), spawn.RefusedExit)
	}
	cwd, err := os.Getwd()
	if err != nil {
		return cli.Exit("hookwarden: spawn refused: cwd: "+err.Error(), spawn.RefusedExit)
	}
	proxy := ""
	if self, err := os.Executable(); err == nil {
		if self, err = filepath.EvalSymlinks(self); err == nil {
			proxy = filepath.Join(filepath.Dir(self), spawn.MCPProxyName)
		}
	}
	if c.IsSet("auto-finish") && strings.TrimSpace(c.String("auto-finish")) == "" {
		return refusalExit(&spawn.Refusal{Reason: spawn.ReasonAutoFinish, Detail: "the continuation's prompt is empty"}, spawn.RefusedExit, os.Stderr, false)
	}
	code, err := spawn.Exec(context.Background(), spawn.ExecOptions{Argv: c.Args().Slice(), Home: home, Cwd: cwd,
		Env: os.Environ(), ProfilePath: c.String("profile"), OperatorPath: c.String("operator"),
		SecretNames: c.StringSlice("secret-name"), MCPProxy: proxy, Gateway: proxy, AutoFinish: c.String("auto-finish"),
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr})
	if err != nil {
		if spawn.AsRefusal(err) != nil {
			return refusalExit(err, spawn.RefusedExit, os.Stderr, false)
		}
		if f := spawn.AsRunFailure(err); f != nil {
			return cli.Exit("hookwarden: spawn run failed: "+f.Error(), code)
		}
		return cli.Exit(err.Error(), code)
	}
	if code != 0 {
		return cli.Exit("", code)
	}
	return nil
}
