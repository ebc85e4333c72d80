package main

import "github.com/urfave/cli/v2"

func clientsCommand() *cli.Command {
	return &cli.Command{Name: "clients", Usage: "(not built yet)", Action: notBuilt("clients")}
}
