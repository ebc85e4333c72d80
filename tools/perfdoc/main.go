// Command perfdoc rewrites the generated benchmark figures of a page:
//
//	go run ./tools/perfdoc [-only NAME,…] [-check] docs/performance.md
//
// See package tools/perfdoc/region for the region format.
package main

import (
	"context"
	"os"
	"os/signal"

	"github.com/hookwarden/hookwarden/tools/perfdoc/region"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := region.Main(ctx, os.Args[1:], os.Stderr)
	stop()
	os.Exit(code)
}
