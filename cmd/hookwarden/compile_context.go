package main

import "github.com/urfave/cli/v2"

func compileContextCommand() *cli.Command {
	return &cli.Command{Name: "compile-context", Usage: "(not built yet)", Action: notBuilt("compile-context")}
}
