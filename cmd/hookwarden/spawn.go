package main

import "github.com/urfave/cli/v2"

func spawnCommand() *cli.Command {
	return &cli.Command{Name: "spawn", Usage: "(not built yet)", Action: notBuilt("spawn")}
}
