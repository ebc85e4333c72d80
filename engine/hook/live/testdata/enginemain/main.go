// Command enginemain is a measurement aid for BenchmarkHookProcess: the hook
// path alone (engine/hook/live) without the rest of the hookwarden CLI, to
// separate the engine's own process cost from that of the other verbs'
// package initialisation. Usage: enginemain CLIENT EVENT < payload.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/hookwarden/hookwarden/engine/hook"
	"github.com/hookwarden/hookwarden/engine/hook/live"
	// As in cmd/hookwarden: one early stack growth (see the package doc).
	_ "github.com/hookwarden/hookwarden/internal/stackwarm"
)

func main() {
	deps, err := live.Deps()
	if err != nil || len(os.Args) != 3 {
		os.Exit(2)
	}
	signal.Ignore(syscall.SIGPIPE)
	resp := hook.Run(context.Background(), deps, hook.Request{Client: os.Args[1], Event: os.Args[2],
		Stdin: os.Stdin, LookupEnv: os.LookupEnv, Getwd: os.Getwd})
	os.Exit(hook.Emit(resp, os.Args[1], os.Stdout, os.Stderr))
}
