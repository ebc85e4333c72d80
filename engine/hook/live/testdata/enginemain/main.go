// Command enginemain is a measurement aid for BenchmarkHookProcess: the hook
// path alone (engine/hook/live) without the rest of the hookwarden CLI, to
// separate the engine's own process cost from that of the other verbs'
// packages. Usage: enginemain CLIENT EVENT < payload.
//
// With the single argument -start-only it does what the trivial program of
// the benchmark does (read stdin, decode it as JSON, write a line) and
// nothing of the hook: the same binary, so the same packages initialised and
// the same size mapped, with no hook work (the code stays linked because the
// other branch calls it).
package main

import (
	"context"
	"encoding/json"
	"os"
	"os/signal"
	"syscall"

	"github.com/hookwarden/hookwarden/engine/hook"
	"github.com/hookwarden/hookwarden/engine/hook/live"
	// As in cmd/hookwarden: one early stack growth (see the package doc).
	_ "github.com/hookwarden/hookwarden/internal/stackwarm"
)

func main() {
	if len(os.Args) == 2 && os.Args[1] == "-start-only" {
		var v map[string]any
		if err := json.NewDecoder(os.Stdin).Decode(&v); err != nil {
			os.Exit(1)
		}
		os.Stdout.WriteString("{}\n")
		return
	}
	deps, err := live.Deps()
	if err != nil || len(os.Args) != 3 {
		os.Exit(2)
	}
	signal.Ignore(syscall.SIGPIPE)
	resp := hook.Run(context.Background(), deps, hook.Request{Client: os.Args[1], Event: os.Args[2],
		Stdin: os.Stdin, LookupEnv: os.LookupEnv, Getwd: os.Getwd})
	os.Exit(hook.Emit(resp, os.Args[1], os.Stdout, os.Stderr))
}
