package main

import "github.com/urfave/cli/v2"

func trustCommand() *cli.Command {
	return &cli.Command{Name: "trust", Usage: "(not built yet)", Action: notBuilt("trust")}
}
