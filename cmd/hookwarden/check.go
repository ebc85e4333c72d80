package main

import "github.com/urfave/cli/v2"

func checkCommand() *cli.Command {
	return &cli.Command{Name: "check", Usage: "(not built yet)", Action: notBuilt("check")}
}
