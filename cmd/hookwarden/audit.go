package main

import "github.com/urfave/cli/v2"

func auditCommand() *cli.Command {
	return &cli.Command{Name: "audit", Usage: "(not built yet)", Action: notBuilt("audit")}
}
