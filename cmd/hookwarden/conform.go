package main

import "github.com/urfave/cli/v2"

func conformCommand() *cli.Command {
	return &cli.Command{Name: "conform", Usage: "(not built yet)", Action: notBuilt("conform")}
}
