package main

import "github.com/urfave/cli/v2"

func adoptCommand() *cli.Command {
	return &cli.Command{Name: "adopt", Usage: "(not built yet)", Action: notBuilt("adopt")}
}
