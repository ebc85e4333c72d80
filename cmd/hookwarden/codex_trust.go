package main

import "github.com/urfave/cli/v2"

func codexTrustCommand() *cli.Command {
	return &cli.Command{Name: "codex-trust", Usage: "(not built yet)", Action: notBuilt("codex-trust")}
}
