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

// spawnLayers are the layer files spawn compile and spawn exec read after
// the registry: --profile and --operator.
type spawnLayers struct {
	Profile  string
	Operator string
}

// flags returns --profile and --operator bound to l's fields.
func (l *spawnLayers) flags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "profile", Destination: &l.Profile, Usage: "profile layer file (attachments added after the registry)"},
		&cli.StringFlag{Name: "operator", Destination: &l.Operator, Usage: "operator layer file (attachments added last)"},
	}
}

// spawnCompileOptions is what spawn compile runs with: each flag's value.
type spawnCompileOptions struct {
	IO     *ioStreams
	Engine string
	Binary string
	Cwd    string
	JSON   bool
	spawnLayers
}

// spawnExecOptions is what spawn exec runs with: the engine's command line
// (Argv), each flag's value, and whether --auto-finish was given.
type spawnExecOptions struct {
	IO            *ioStreams
	Argv          []string
	SecretNames   []string
	AutoFinish    string
	AutoFinishSet bool
	spawnLayers
}

// spawnCommand is `hookwarden spawn compile|exec` (issue 8): compile one
// spawn's hooks from the registry in HOOKWARDEN_HOME, or compile and run
// the engine with them. A refusal exits 125 from exec (DESIGN.md exit codes)
// and 1 from compile.
func spawnCommand(streams *ioStreams) *cli.Command {
	co := &spawnCompileOptions{IO: streams}
	eo := &spawnExecOptions{IO: streams}
	return &cli.Command{
		Name:  "spawn",
		Usage: "compile the registry's hooks for one claude -p / codex exec spawn, isolated from every other hook source",
		Commands: []*cli.Command{
			{
				Name:  "compile",
				Usage: "print the render (argv additions, run files, hooks) or the refusal",
				Flags: append([]cli.Flag{
					&cli.StringFlag{Name: "engine", Required: true, Destination: &co.Engine, Usage: "claude or codex"},
					&cli.StringFlag{Name: "binary", Destination: &co.Binary, Usage: "engine binary (default: the engine's name on PATH)"},
					&cli.StringFlag{Name: "cwd", Destination: &co.Cwd, Usage: "working directory of the spawn (default: the current one)"},
					&cli.BoolFlag{Name: "json", Destination: &co.JSON, Usage: "print the render or refusal as JSON"},
				}, co.spawnLayers.flags()...),
				Action: func(ctx context.Context, c *cli.Command) error { return runSpawnCompile(ctx, co) },
			},
			{
				Name:      "exec",
				Usage:     "compile, then run the engine with the render appended; exits with the engine's code (the continuation's with --auto-finish), 125 on a refusal, 123 when a run under a redaction entry or a continuation failed",
				ArgsUsage: "-- claude -p … | -- codex exec …",
				Flags: append([]cli.Flag{
					&cli.StringSliceFlag{Name: "secret-name", Destination: &eo.SecretNames, Usage: "a declared secret variable name: under a redaction entry its value enters the run's table whatever its length (repeatable)"},
					&cli.StringFlag{Name: "auto-finish", Destination: &eo.AutoFinish, Usage: "continuation prompt (claude -p with --output-format json or stream-json): when the first child's result is error_max_turns, a second child resumes its session with this prompt under the same render"},
				}, eo.spawnLayers.flags()...),
				// The engine's command line is the engine's: flags end at
				// its first word (a trailing --profile is codex's, not ours).
				StopOnNthArg: new(1),
				Action: func(ctx context.Context, c *cli.Command) error {
					eo.Argv, eo.AutoFinishSet = c.Args().Slice(), c.IsSet("auto-finish")
					return runSpawnExec(ctx, eo)
				},
			},
		},
	}
}

// refusalExit returns the exit error of a spawn refusal (err holds a
// spawn.Refusal) with code, having written it to w as JSON when asJSON; an
// error that is not a refusal exits 2.
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

// runSpawnCompile compiles the spawn o describes and writes the render (or,
// with --json, the render or refusal as JSON) to o.IO.Out. Exit 0, 1 on a
// refusal, 2 on an unusable HOOKWARDEN_HOME or --cwd.
func runSpawnCompile(ctx context.Context, o *spawnCompileOptions) error {
	home, err := spawn.Home(o.IO.getenv)
	if err != nil {
		return cli.Exit("hookwarden: spawn: "+err.Error(), 2)
	}
	cwd := o.Cwd
	if cwd == "" {
		cwd, err = o.IO.Getwd()
	} else {
		cwd, err = filepath.Abs(cwd)
	}
	if err != nil {
		return cli.Exit("hookwarden: spawn: cwd: "+err.Error(), 2)
	}
	bin := o.Binary
	if bin == "" {
		bin = o.Engine
	}
	if !strings.Contains(bin, "/") {
		p, err := exec.LookPath(bin)
		if err != nil {
			// A bare name resolves on PATH only, never against the cwd.
			return refusalExit(&spawn.Refusal{Reason: spawn.ReasonEngineNotFound, Detail: bin + " not found on PATH"}, 1, o.IO.Out, o.JSON)
		}
		bin = p
	}
	if !filepath.IsAbs(bin) {
		bin = filepath.Join(cwd, bin)
	}
	req, set := o.IO.LookupEnv(spawn.EnvRequirement)
	if set && req == "" {
		req = "(set but empty)" // ReadRequirement refuses it as not absolute
	}
	r, err := spawn.Compile(ctx, spawn.Options{Engine: o.Engine, Binary: bin, Cwd: cwd, Home: home,
		RequirementPath: req, ProfilePath: o.Profile, OperatorPath: o.Operator})
	if err != nil {
		return refusalExit(err, 1, o.IO.Out, o.JSON)
	}
	if o.JSON {
		out, _ := json.MarshalIndent(r, "", "  ")
		_, err = fmt.Fprintln(o.IO.Out, string(out))
	} else {
		err = r.WriteText(o.IO.Out)
	}
	if err != nil {
		return cli.Exit("hookwarden: spawn: "+err.Error(), 2)
	}
	return nil
}

// runSpawnExec compiles the spawn and runs the engine o.Argv names with
// o.IO's streams and environment. It exits with the engine's code (the
// continuation's with --auto-finish), 125 on a refusal (written to
// o.IO.ErrOut), 123 when a run under a redaction entry or a continuation
// failed.
func runSpawnExec(ctx context.Context, o *spawnExecOptions) error {
	home, err := spawn.Home(o.IO.getenv)
	if err != nil {
		return cli.Exit("hookwarden: spawn refused: "+err.Error(), spawn.RefusedExit)
	}
	cwd, err := o.IO.Getwd()
	if err != nil {
		return cli.Exit("hookwarden: spawn refused: cwd: "+err.Error(), spawn.RefusedExit)
	}
	proxy := ""
	if self, err := os.Executable(); err == nil {
		if self, err = filepath.EvalSymlinks(self); err == nil {
			proxy = filepath.Join(filepath.Dir(self), spawn.MCPProxyName)
		}
	}
	if o.AutoFinishSet && strings.TrimSpace(o.AutoFinish) == "" {
		return refusalExit(&spawn.Refusal{Reason: spawn.ReasonAutoFinish, Detail: "the continuation's prompt is empty"}, spawn.RefusedExit, o.IO.ErrOut, false)
	}
	code, err := spawn.Exec(ctx, spawn.ExecOptions{Argv: o.Argv, Home: home, Cwd: cwd,
		Env: o.IO.Environ, ProfilePath: o.Profile, OperatorPath: o.Operator,
		SecretNames: o.SecretNames, MCPProxy: proxy, Gateway: proxy, AutoFinish: o.AutoFinish,
		Stdin: o.IO.In, Stdout: o.IO.Out, Stderr: o.IO.ErrOut})
	if err != nil {
		if spawn.AsRefusal(err) != nil {
			return refusalExit(err, spawn.RefusedExit, o.IO.ErrOut, false)
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
