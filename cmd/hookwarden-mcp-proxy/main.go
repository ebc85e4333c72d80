// Command hookwarden-mcp-proxy is the redaction entry's MCP route (issue
// 18): `hookwarden-mcp-proxy --engine claude --server NAME --mcp-config
// FILE`, the stdio MCP server `spawn exec` puts in the engine's MCP
// configuration for each of the caller's servers; the logic is
// spawn/mcpproxy's. It is a binary of its own, installed beside
// hookwarden, because the MCP SDK links encoding/gob, net/http and a JSON
// Schema validator whose initialisation every hook process would pay
// (cmd/hookwarden's TestBinaryImports bans encoding/gob; measured with
// GODEBUG=inittrace=1 on 2026-12-01: +0.6 ms median per process and a
// binary 9 MB larger). Exit 0 when the session ends, 1 when the proxy
// cannot serve (no table, no configuration, an unreachable upstream), 2 on
// a usage error; diagnostics on stderr never hold a table value.
//
// `hookwarden-mcp-proxy gateway --upstream URL` is the redaction entry's
// model-traffic tripwire (issue 30, spawn/gateway RunSidecar),
// which spawn exec starts for each run under the entry: a loopback HTTP
// gateway, in this binary for the same reason (net/http), speaking the
// sidecar protocol on stdin and stdout until stdin closes.
//
// `hookwarden-mcp-proxy reap --report FILE -- ENGINE ARGS…` is the
// entry's process reaper (spawn/reap): it runs the engine, then
// ends everything the engine left running before spawn exec scans the
// client's files; it exits as the engine did.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"syscall"

	"github.com/hookwarden/hookwarden/internal/buildinfo"
	"github.com/hookwarden/hookwarden/spawn/gateway"
	"github.com/hookwarden/hookwarden/spawn/mcpproxy"
	"github.com/hookwarden/hookwarden/spawn/reap"
	"github.com/hookwarden/hookwarden/spawn/redact"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "gateway" {
		os.Exit(gatewayMain(os.Args[2:]))
	}
	if len(os.Args) > 1 && os.Args[1] == "reap" {
		os.Exit(reapMain(os.Args[2:]))
	}
	fs := flag.NewFlagSet("hookwarden-mcp-proxy", flag.ContinueOnError)
	engine := fs.String("engine", "", "claude or codex")
	server := fs.String("server", "", "the server's name in the run's proxy configuration")
	config := fs.String("mcp-config", "", `the run's proxy configuration {"version":1,"servers":{…}} (absolute, mode 0600)`)
	version := fs.Bool("version", false, "print the version")
	if err := fs.Parse(os.Args[1:]); err != nil {
		os.Exit(2)
	}
	if *version {
		fmt.Println("hookwarden-mcp-proxy", buildinfo.Current())
		return
	}
	if !slices.Contains([]string{"claude", "codex"}, *engine) || *server == "" || *config == "" || fs.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "hookwarden-mcp-proxy: usage: hookwarden-mcp-proxy --engine claude|codex --server NAME --mcp-config FILE")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	e := redact.Env{Engine: *engine, Getenv: os.Getenv, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
	if err := mcpproxy.Run(ctx, e, *server, *config, buildinfo.Current()); err != nil {
		fmt.Fprintln(os.Stderr, "hookwarden-mcp-proxy:", err)
		os.Exit(1)
	}
}

// gatewayMain runs `gateway --upstream URL`: 0 when stdin closed, 1 when
// the gateway could not serve, 2 on a usage error.
func gatewayMain(args []string) int {
	fs := flag.NewFlagSet("hookwarden-mcp-proxy gateway", flag.ContinueOnError)
	upstream := fs.String("upstream", "", "the model API base URL the engine would use (http or https)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *upstream == "" || fs.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "hookwarden-mcp-proxy: usage: hookwarden-mcp-proxy gateway --upstream URL")
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := gateway.RunSidecar(ctx, *upstream, os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "hookwarden-mcp-proxy gateway:", err)
		return 1
	}
	return 0
}

// reapMain runs `reap --report FILE -- ENGINE ARGS…`: the engine's own
// exit (or signal) once everything it left is ended; 125 when the engine
// did not start or the report could not be written, 2 on a usage error.
func reapMain(args []string) int {
	fs := flag.NewFlagSet("hookwarden-mcp-proxy reap", flag.ContinueOnError)
	report := fs.String("report", "", "the file the reaper writes \"killed N survived M\" to")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *report == "" || fs.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "hookwarden-mcp-proxy: usage: hookwarden-mcp-proxy reap --report FILE -- ENGINE ARGS…")
		return 2
	}
	ws, err := reap.Run(fs.Args(), *report)
	if err != nil {
		fmt.Fprintln(os.Stderr, "hookwarden-mcp-proxy reap:", err)
		return 125
	}
	reap.Exit(ws)
	return 0
}
