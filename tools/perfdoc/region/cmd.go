package region

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// Main is the perfdoc command (package main in tools/perfdoc calls it): `go run ./tools/perfdoc [-only NAME,…]
// [-check] PAGE`. It takes the arguments after the program name and the
// standard error stream, runs from the module root (the nearest directory
// above the working directory holding go.mod), and returns the exit code:
// 0 done, 1 a region failed (nothing written), 2 usage.
func Main(ctx context.Context, args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("perfdoc", flag.ContinueOnError)
	fs.SetOutput(stderr)
	only := fs.String("only", "", "comma-separated region names to rerun (default: every region)")
	check := fs.Bool("check", false, "only check that no region was edited by hand")
	if err := fs.Parse(args); err != nil || fs.NArg() != 1 {
		fmt.Fprintln(stderr, "usage: perfdoc [-only NAME,…] [-check] PAGE")
		return 2
	}
	page := fs.Arg(0)
	b, err := os.ReadFile(page)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	if *check {
		if err := Check(b); err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", page, err)
			return 1
		}
		return 0
	}
	root, err := moduleRoot()
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	var names []string
	if *only != "" {
		names = strings.Split(*only, ",")
	}
	out, err := Update(ctx, b, root, names, RunCommand, currentMachine)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", page, err)
		return 1
	}
	if err := os.WriteFile(page, out, 0o644); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	return 0
}

// moduleRoot returns the nearest directory at or above the working
// directory that holds go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the working directory")
		}
		dir = parent
	}
}

// currentMachine describes this machine now: the time, runtime.NumCPU and
// the one-minute load average from /proc/loadavg ("unknown" elsewhere).
func currentMachine() Machine {
	load := "unknown"
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(b)); len(f) > 0 {
			load = f[0]
		}
	}
	return Machine{When: time.Now(), CPUs: runtime.NumCPU(), Load: load}
}
