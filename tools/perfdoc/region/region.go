// Package region keeps the benchmark figures of docs/performance.md written
// by the benchmark tooling instead of by hand.
//
// A figure lives in a region of the page:
//
//	<!-- perfdoc NAME: go test ./PKG -run '^$' -bench 'REGEXP' -benchtime 100x -->
//	(the generated table and its caption)
//	<!-- /perfdoc NAME sha256=HEX -->
//
// Update runs each region's command in the module root, reads its output in
// the Go benchmark format (golang.org/x/perf/benchfmt) and rewrites the body
// with one table row per benchmark and one column per unit, a caption naming
// the command, the date and the machine, and the SHA-256 of the body in the
// closing marker. Check recomputes that hash, so a figure edited by hand
// fails the docs tests.
package region

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/perf/benchfmt"
)

// Region is one generated figure of a page: its name, the command that
// produces it, and the byte offsets of its body (between the end of the
// opening marker's line and the start of the closing marker) in the page.
type Region struct {
	// Name is the region's name, unique within the page ([a-z0-9-]+).
	Name string
	// Command is the benchmark command, run by `sh -c` in the module root.
	Command string
	// Hash is the hex SHA-256 the closing marker records for the body.
	Hash string
	// Start and End delimit the body: page[Start:End].
	Start, End int
	// closeStart and closeEnd delimit the closing marker line.
	closeStart, closeEnd int
}

var (
	openMarker  = regexp.MustCompile(`(?m)^<!-- perfdoc ([a-z0-9-]+): (.+) -->\n`)
	closeMarker = regexp.MustCompile(`(?m)^<!-- /perfdoc ([a-z0-9-]+) sha256=([0-9a-f]{64}) -->$`)
	// benchCommand is the form a region's command must have: the Go
	// toolchain's own benchmark runner on a package of this module.
	benchCommand = regexp.MustCompile(`^go test (\./[A-Za-z0-9_./-]+ )+.*-bench `)
)

// Regions returns the regions of page in order. It fails when a marker is
// unpaired, a name repeats, regions nest, or a command is not a
// `go test ./PKG … -bench …` command.
func Regions(page []byte) ([]Region, error) {
	opens := openMarker.FindAllSubmatchIndex(page, -1)
	closes := closeMarker.FindAllSubmatchIndex(page, -1)
	if len(opens) != len(closes) {
		return nil, fmt.Errorf("%d perfdoc opening markers and %d closing markers", len(opens), len(closes))
	}
	seen := map[string]bool{}
	var out []Region
	for i, o := range opens {
		c := closes[i]
		name := string(page[o[2]:o[3]])
		if c[0] < o[1] || (i+1 < len(opens) && opens[i+1][0] < c[1]) {
			return nil, fmt.Errorf("perfdoc region %s: its closing marker is not the next marker", name)
		}
		if got := string(page[c[2]:c[3]]); got != name {
			return nil, fmt.Errorf("perfdoc region %s closed as %s", name, got)
		}
		if seen[name] {
			return nil, fmt.Errorf("perfdoc region %s appears twice", name)
		}
		seen[name] = true
		cmd := string(page[o[4]:o[5]])
		if !benchCommand.MatchString(cmd) {
			return nil, fmt.Errorf("perfdoc region %s: command %q is not `go test ./PKG … -bench …`", name, cmd)
		}
		out = append(out, Region{Name: name, Command: cmd, Hash: string(page[c[4]:c[5]]),
			Start: o[1], End: c[0], closeStart: c[0], closeEnd: c[1]})
	}
	return out, nil
}

// BodyHash returns the hex SHA-256 of a region body.
func BodyHash(body []byte) string {
	sum := sha256.Sum256(body)
	return hex.EncodeToString(sum[:])
}

// Check returns one error per region of page whose body no longer has the
// hash its closing marker records (edited by hand), joined; nil when every
// region is as the tool wrote it.
func Check(page []byte) error {
	regions, err := Regions(page)
	if err != nil {
		return err
	}
	var errs []error
	for _, r := range regions {
		if BodyHash(page[r.Start:r.End]) != r.Hash {
			errs = append(errs, fmt.Errorf("perfdoc region %s was edited by hand: rerun `go run ./tools/perfdoc -only %s docs/performance.md`", r.Name, r.Name))
		}
	}
	return errors.Join(errs...)
}

// Machine describes where a figure was measured, for the caption: the time
// (UTC), the number of CPUs and the one-minute load average at the start.
type Machine struct {
	When time.Time
	CPUs int
	Load string
}

// Render turns the output of a benchmark command into a region body: a
// caption line (command, date, platform, CPU model, CPUs, load) and a
// Markdown table with one row per benchmark result (named as benchfmt names
// it: no Benchmark prefix, no GOMAXPROCS suffix) and one column per unit in
// order of first appearance (ns/op shown as ms/op). It fails
// when the output holds no benchmark result or a line benchfmt cannot read.
func Render(command string, out io.Reader, m Machine) ([]byte, error) {
	rd := benchfmt.NewReader(out, "output")
	type row struct {
		name   string
		iters  int
		values map[string]float64
	}
	var rows []row
	var units []string
	config := map[string]string{}
	for rd.Scan() {
		switch rec := rd.Result().(type) {
		case *benchfmt.Result:
			for _, c := range rec.Config {
				config[c.Key] = string(c.Value)
			}
			r := row{name: gomaxprocsSuffix.ReplaceAllString(string(rec.Name.Full()), ""), iters: rec.Iters, values: map[string]float64{}}
			for _, v := range rec.Values {
				unit, value := v.Unit, v.Value
				if unit == "sec/op" { // benchfmt's name for ns/op, in seconds
					unit, value = "ms/op", value*1e3
				}
				if !slices.Contains(units, unit) {
					units = append(units, unit)
				}
				r.values[unit] = value
			}
			rows = append(rows, r)
		case *benchfmt.SyntaxError:
			return nil, fmt.Errorf("benchmark output: %w", rec)
		}
	}
	if err := rd.Err(); err != nil {
		return nil, fmt.Errorf("benchmark output: %w", err)
	}
	if len(rows) == 0 {
		return nil, errors.New("benchmark output holds no result")
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "\n`%s`, %s, %s/%s, %s, %d CPUs, load %s at the start:\n\n",
		command, m.When.UTC().Format("2006-01-02 15:04 UTC"), config["goos"], config["goarch"], strings.TrimSpace(config["cpu"]), m.CPUs, m.Load)
	b.WriteString("| benchmark | iterations |")
	for _, u := range units {
		fmt.Fprintf(&b, " %s |", u)
	}
	b.WriteString("\n|---|---:|" + strings.Repeat("---:|", len(units)) + "\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %d |", r.name, r.iters)
		for _, u := range units {
			v, ok := r.values[u]
			if !ok {
				b.WriteString(" |")
				continue
			}
			fmt.Fprintf(&b, " %s |", formatValue(v))
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
	return b.Bytes(), nil
}

var gomaxprocsSuffix = regexp.MustCompile(`-[0-9]+$`)

// formatValue prints a measurement for a reader: whole numbers as they are,
// others to four significant digits without an exponent.
func formatValue(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	s := strconv.FormatFloat(v, 'g', 4, 64)
	if strings.ContainsAny(s, "e") {
		f, _ := strconv.ParseFloat(s, 64)
		s = strconv.FormatFloat(f, 'f', -1, 64)
	}
	return s
}

// Runner runs one region command in dir and returns its standard output;
// the real one is RunCommand.
type Runner func(ctx context.Context, dir, command string) ([]byte, error)

// RunCommand runs command with `sh -c` in dir and returns its standard
// output; a failing command's error carries its standard error.
func RunCommand(ctx context.Context, dir, command string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("%s: %w\n%s%s", command, err, out, stderr.Bytes())
	}
	return out, nil
}

// Update reruns the regions of page named in only (every region when only
// is empty) with run in dir, machine describing each run, and returns the
// page with those bodies and hashes rewritten; every other byte stays. It
// fails on a name in only that the page has no region for, or on the first
// command or render that fails (the page is then not returned).
func Update(ctx context.Context, page []byte, dir string, only []string, run Runner, machine func() Machine) ([]byte, error) {
	regions, err := Regions(page)
	if err != nil {
		return nil, err
	}
	for _, name := range only {
		if !slices.ContainsFunc(regions, func(r Region) bool { return r.Name == name }) {
			return nil, fmt.Errorf("the page has no perfdoc region %s", name)
		}
	}
	var out bytes.Buffer
	last := 0
	for _, r := range regions {
		if len(only) > 0 && !slices.Contains(only, r.Name) {
			continue
		}
		m := machine()
		output, err := run(ctx, dir, r.Command)
		if err != nil {
			return nil, fmt.Errorf("perfdoc region %s: %w", r.Name, err)
		}
		body, err := Render(r.Command, bytes.NewReader(output), m)
		if err != nil {
			return nil, fmt.Errorf("perfdoc region %s: %w", r.Name, err)
		}
		out.Write(page[last:r.Start])
		out.Write(body)
		fmt.Fprintf(&out, "<!-- /perfdoc %s sha256=%s -->", r.Name, BodyHash(body))
		last = r.closeEnd
	}
	out.Write(page[last:])
	return out.Bytes(), nil
}
