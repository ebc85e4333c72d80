package main

import "github.com/urfave/cli/v2"

func hookCommand() *cli.Command {
	return &cli.Command{Name: "hook", Usage: "(not built yet)", Action: notBuilt("hook")}
}
