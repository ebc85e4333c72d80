package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v3"
)

// parsed is what a verb's action saw: its positional arguments and the
// value of every flag the command line set.
type parsed struct {
	args  []string
	flags map[string]string
}

// leaves returns every runnable verb below cmd with its path of names
// ("adopt", "spawn exec", …), except hook (SkipFlagParsing: its operands
// are the engine's).
func leaves(cmd *cli.Command, prefix []string) map[string]*cli.Command {
	out := map[string]*cli.Command{}
	for _, sub := range cmd.Commands {
		name := append(slices.Clone(prefix), sub.Name)
		if len(sub.Commands) > 0 {
			for k, v := range leaves(sub, name) {
				out[k] = v
			}
			continue
		}
		if !sub.SkipFlagParsing {
			out[strings.Join(name, " ")] = sub
		}
	}
	return out
}

// flagWords returns the command-line words that set f to a sample value,
// and that value as the action reads it back.
func flagWords(t *testing.T, f cli.Flag) ([]string, string) {
	name := "--" + f.Names()[0]
	switch f.(type) {
	case *cli.BoolFlag:
		return []string{name}, "true"
	case *cli.IntFlag:
		return []string{name, "3"}, "3"
	case *cli.StringSliceFlag:
		return []string{name, "x"}, "[x]"
	case *cli.StringFlag:
		return []string{name, "v"}, "v"
	case *cli.DurationFlag:
		return []string{name, "3s"}, "3s"
	}
	t.Fatalf("flag %s: type %T has no sample value in this test", name, f)
	return nil, ""
}

// record runs verb (a path of command names) with words through a fresh
// app whose verb's action only records what it was given.
func record(t *testing.T, verb string, words []string) (parsed, error) {
	t.Helper()
	app := newApp(systemIO())
	var got parsed
	leaf := leaves(app, nil)[verb]
	leaf.Action = func(_ context.Context, c *cli.Command) error {
		got = parsed{args: c.Args().Slice(), flags: map[string]string{}}
		for _, f := range c.Flags {
			n := f.Names()[0]
			if c.IsSet(n) {
				got.flags[n] = fmt.Sprint(c.Value(n))
			}
		}
		return nil
	}
	app.ExitErrHandler = func(context.Context, *cli.Command, error) {}
	app.Writer, app.ErrWriter = &strings.Builder{}, &strings.Builder{}
	args := append([]string{"hookwarden"}, strings.Fields(verb)...)
	err := app.Run(context.Background(), append(args, words...))
	return got, err
}

// TestFlagsBeforeOrAfterArguments holds DESIGN.md's convention for every
// verb and every one of its flags: the flag means the same first or last
// on the command line (issue 15: `adopt ./repo --dry-run` used to write
// eleven files and then fail on a repository named "--dry-run"); after
// "--" a flag's spelling is an argument; spawn exec and admit, whose
// arguments are another program's command line, leave a flag after its
// first word to that program.
func TestFlagsBeforeOrAfterArguments(t *testing.T) {
	verbs := leaves(newApp(systemIO()), nil)
	for _, want := range []string{"adopt", "conform", "audit", "check", "codex-trust", "compile-context", "clients", "spawn compile", "spawn exec", "trust list", "trust approve", "trust revoke", "admit"} {
		if verbs[want] == nil {
			t.Fatalf("verb %q not found among %v", want, slices.Sorted(func(yield func(string) bool) {
				for k := range verbs {
					if !yield(k) {
						return
					}
				}
			}))
		}
	}
	for verb, cmd := range verbs {
		var required []string
		for _, f := range cmd.Flags {
			if rf, ok := f.(cli.RequiredFlag); ok && rf.IsRequired() {
				w, _ := flagWords(t, f)
				required = append(required, w...)
			}
		}
		for _, f := range cmd.Flags {
			words, val := flagWords(t, f)
			name := f.Names()[0]
			t.Run(verb+"/"+name, func(t *testing.T) {
				first, err := record(t, verb, slices.Concat(required, words, []string{"p1", "p2"}))
				if err != nil {
					t.Fatalf("flag first: %v", err)
				}
				if first.flags[name] != val || !slices.Equal(first.args, []string{"p1", "p2"}) {
					t.Fatalf("flag first: got %+v, want %s=%s and arguments [p1 p2]", first, name, val)
				}
				last, err := record(t, verb, slices.Concat(required, []string{"p1", "p2"}, words))
				if verb == "spawn exec" || verb == "admit" {
					if _, set := last.flags[name]; err != nil || set || !slices.Equal(last.args, slices.Concat([]string{"p1", "p2"}, words)) {
						t.Fatalf("%s: a flag after the step's first word must be the step's: got %+v, %v", verb, last, err)
					}
					return
				}
				if err != nil {
					t.Fatalf("flag last: %v", err)
				}
				if !equalParsed(first, last) {
					t.Fatalf("flag last: got %+v, want %+v (as with the flag first)", last, first)
				}
				dashed, err := record(t, verb, slices.Concat(required, []string{"--", "p1"}, words))
				if err != nil {
					t.Fatalf("after --: %v", err)
				}
				if _, set := dashed.flags[name]; set && !slices.Contains(required, "--"+name) || !slices.Equal(dashed.args, slices.Concat([]string{"p1"}, words)) {
					t.Fatalf("after --: got %+v, want %v as arguments and the flag unset", dashed, words)
				}
			})
		}
	}
}

func equalParsed(a, b parsed) bool {
	if !slices.Equal(a.args, b.args) || len(a.flags) != len(b.flags) {
		return false
	}
	for k, v := range a.flags {
		if b.flags[k] != v {
			return false
		}
	}
	return true
}
