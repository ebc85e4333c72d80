package region

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

const page = "# Performance\n\nprose before\n\n" +
	"<!-- perfdoc hook: go test ./engine/hook/live -run '^$' -bench 'HookProcess|HookRun' -benchtime 300x -->\n" +
	"old body\n" +
	"<!-- /perfdoc hook sha256=0000000000000000000000000000000000000000000000000000000000000000 -->\n" +
	"\nprose after\n"

func fixedMachine() Machine {
	return Machine{When: time.Date(2026, 12, 5, 5, 30, 0, 0, time.UTC), CPUs: 2, Load: "1.02"}
}

// fixtureRunner answers every command with the recorded benchmark output of
// testdata/hookprocess.txt and remembers the commands it was given.
func fixtureRunner(t *testing.T, ran *[]string) Runner {
	out, err := os.ReadFile("testdata/hookprocess.txt")
	if err != nil {
		t.Fatal(err)
	}
	return func(_ context.Context, _ string, command string) ([]byte, error) {
		*ran = append(*ran, command)
		return out, nil
	}
}

// TestUpdateWritesTableAndHash: the region's command runs, its output
// becomes a table with one row per benchmark (GOMAXPROCS suffix dropped) and
// one column per unit, the caption names the command, date and machine, the
// closing marker records the body's hash, and every byte outside the body
// and the marker stays.
func TestUpdateWritesTableAndHash(t *testing.T) {
	var ran []string
	got, err := Update(context.Background(), []byte(page), "/repo", nil, fixtureRunner(t, &ran), fixedMachine)
	if err != nil {
		t.Fatal(err)
	}
	if len(ran) != 1 || ran[0] != "go test ./engine/hook/live -run '^$' -bench 'HookProcess|HookRun' -benchtime 300x" {
		t.Fatalf("ran %q", ran)
	}
	for _, want := range []string{
		"`go test ./engine/hook/live -run '^$' -bench 'HookProcess|HookRun' -benchtime 300x`, 2026-12-05 05:30 UTC, linux/amd64, Oxide Virtual Turin-like Processor, 2 CPUs, load 1.02 at the start:",
		"| benchmark | iterations | ms/op | median-ms | trivial-median-ms | x-trivial | B/op | allocs/op |",
		"| HookProcess | 300 | 2.412 | 2.31 | 1.38 | 1.674 | | |",
		"| HookRun | 10000 | 0.07123 | | | | 21234 | 548 |",
	} {
		if !strings.Contains(string(got), want) {
			t.Errorf("updated page lacks %q:\n%s", want, got)
		}
	}
	if !strings.HasPrefix(string(got), "# Performance\n\nprose before\n\n<!-- perfdoc hook: ") || !strings.HasSuffix(string(got), " -->\n\nprose after\n") {
		t.Errorf("bytes outside the region changed:\n%s", got)
	}
	if err := Check(got); err != nil {
		t.Errorf("Check of the page Update wrote: %v", err)
	}
}

// TestCheckCatchesAHandEdit: a figure changed by hand after the tool wrote
// it fails Check, naming the region and the command that rewrites it.
func TestCheckCatchesAHandEdit(t *testing.T) {
	var ran []string
	got, err := Update(context.Background(), []byte(page), "/repo", nil, fixtureRunner(t, &ran), fixedMachine)
	if err != nil {
		t.Fatal(err)
	}
	edited := bytes.Replace(got, []byte("| 1.674 |"), []byte("| 1.29 |"), 1)
	if bytes.Equal(edited, got) {
		t.Fatal("the fixture's ratio is not in the table")
	}
	err = Check(edited)
	if err == nil || !strings.Contains(err.Error(), "region hook was edited by hand") || !strings.Contains(err.Error(), "-only hook") {
		t.Errorf("Check of a hand edit = %v", err)
	}
}

// TestRegionsRefuseMalformedPages: unpaired or misnamed markers, repeated
// names and commands that are not `go test ./PKG … -bench …` are errors, so
// a region cannot silently stop being checked.
func TestRegionsRefuseMalformedPages(t *testing.T) {
	h := strings.Repeat("0", 64)
	for name, p := range map[string]string{
		"unclosed":    "<!-- perfdoc a: go test ./x -bench . -->\nbody\n",
		"misnamed":    "<!-- perfdoc a: go test ./x -bench . -->\nb\n<!-- /perfdoc b sha256=" + h + " -->\n",
		"twice":       "<!-- perfdoc a: go test ./x -bench . -->\nb\n<!-- /perfdoc a sha256=" + h + " -->\n<!-- perfdoc a: go test ./x -bench . -->\nb\n<!-- /perfdoc a sha256=" + h + " -->\n",
		"not a bench": "<!-- perfdoc a: sh -c 'echo 1.0x' -->\nb\n<!-- /perfdoc a sha256=" + h + " -->\n",
		"no -bench":   "<!-- perfdoc a: go test ./x -run Y -->\nb\n<!-- /perfdoc a sha256=" + h + " -->\n",
	} {
		if _, err := Regions([]byte(p)); err == nil {
			t.Errorf("%s: Regions accepted %q", name, p)
		}
	}
}

// TestUpdateFailsWithoutWriting: a command that fails, output without a
// benchmark result, or an -only name the page lacks returns an error and no
// page.
func TestUpdateFailsWithoutWriting(t *testing.T) {
	failing := func(context.Context, string, string) ([]byte, error) { return nil, errors.New("exit status 1") }
	empty := func(context.Context, string, string) ([]byte, error) { return []byte("PASS\nok x 0.1s\n"), nil }
	for name, tc := range map[string]struct {
		run  Runner
		only []string
	}{
		"command fails": {failing, nil},
		"no results":    {empty, nil},
		"unknown only":  {empty, []string{"nope"}},
	} {
		got, err := Update(context.Background(), []byte(page), "/repo", tc.only, tc.run, fixedMachine)
		if err == nil || got != nil {
			t.Errorf("%s: Update = %q, %v; want an error and no page", name, got, err)
		}
	}
}
