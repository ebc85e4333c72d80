package clientjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gen builds random valid client files with varied formatting: indent unit,
// line endings, separators, one-line or expanded containers, BOM, final
// newline, number literals and escapes, foreign hook rows, and (Gemini)
// comments. Containers inside "hooks" are never empty: an empty "hooks"
// object or event list that only ever held our row is documented to be
// removed with it, so retract would not give those bytes back.
type gen struct {
	r      *rand.Rand
	jsonc  bool
	unit   string
	nl     string
	colon  string
	comma  string
	oneAll bool // the whole file on one line
}

type gval struct {
	keys []string
	vals []*gval
	arr  []*gval
	isA  bool
	lit  string
	one  bool // written on one line
}

func (g *gen) pick(xs ...string) string { return xs[g.r.Intn(len(xs))] }

func (g *gen) scalar() *gval {
	return &gval{lit: g.pick(`"opus"`, `"\/usr\/local\/bin"`, `"caf\u00e9"`, `"tab\there"`, `1e3`, `15.0`, `-0`, `42`, `true`, `false`, `null`, `"a \"quoted\" word"`, `"ünïcödé"`, `""`)}
}

func (g *gen) object(depth int, keys ...string) *gval {
	v := &gval{one: g.oneAll || g.r.Intn(4) == 0}
	n := 1 + g.r.Intn(3)
	if len(keys) == 0 {
		for i := 0; i < n; i++ {
			keys = append(keys, fmt.Sprintf("%s%d", g.pick("model", "env", "permissions", "allow", "x-key", "statusLine", "ui"), i))
		}
	}
	for _, k := range keys {
		v.keys = append(v.keys, k)
		v.vals = append(v.vals, g.any(depth+1))
	}
	return v
}

func (g *gen) any(depth int) *gval {
	if depth > 3 {
		return g.scalar()
	}
	switch g.r.Intn(5) {
	case 0:
		return g.object(depth)
	case 1:
		a := &gval{isA: true, one: g.oneAll || g.r.Intn(2) == 0}
		for i := g.r.Intn(3); i > 0; i-- {
			a.arr = append(a.arr, g.scalar())
		}
		return a
	}
	return g.scalar()
}

var genMatchers = []string{"", "Bash", "^Bash$", "*", ".*", "Bash.*", "Bash|Edit", "Edit|Write", "mcp__.*", "run_shell_command", "^run_shell_command$", "write_file"}

func (g *gen) hooks(events []string) *gval {
	h := &gval{one: g.oneAll || g.r.Intn(5) == 0}
	for _, ev := range events {
		list := &gval{isA: true, one: h.one || g.r.Intn(4) == 0}
		for i := 1 + g.r.Intn(2); i > 0; i-- {
			grp := &gval{one: list.one || g.r.Intn(3) == 0}
			if m := genMatchers[g.r.Intn(len(genMatchers))]; m != "" {
				grp.keys = append(grp.keys, "matcher")
				grp.vals = append(grp.vals, &gval{lit: quote(m)})
			}
			hs := &gval{isA: true, one: grp.one || g.r.Intn(3) == 0}
			for j := 1 + g.r.Intn(2); j > 0; j-- {
				hd := &gval{one: hs.one || g.r.Intn(2) == 0, keys: []string{"type", "command"},
					vals: []*gval{{lit: `"command"`}, {lit: quote(g.pick("./scripts/lint.sh", "npx prettier --write", "say done", `echo "\/tmp"`))}}}
				if g.r.Intn(2) == 0 {
					hd.keys = append(hd.keys, "timeout")
					hd.vals = append(hd.vals, &gval{lit: g.pick("5", "15.0", "1e1", "600")})
				}
				hs.arr = append(hs.arr, hd)
			}
			grp.keys = append(grp.keys, "hooks")
			grp.vals = append(grp.vals, hs)
			list.arr = append(list.arr, grp)
		}
		h.keys = append(h.keys, ev)
		h.vals = append(h.vals, list)
	}
	return h
}

func (g *gen) comment(sameLine bool) string {
	if !g.jsonc || g.r.Intn(4) != 0 {
		return ""
	}
	if sameLine || g.r.Intn(2) == 0 {
		return " /* note */"
	}
	return " // note" + g.nl
}

func (g *gen) write(b *strings.Builder, v *gval, base string) {
	if v.lit != "" {
		b.WriteString(v.lit)
		return
	}
	open, close, n := "{", "}", len(v.keys)
	if v.isA {
		open, close, n = "[", "]", len(v.arr)
	}
	b.WriteString(open)
	child := base + g.unit
	for i := 0; i < n; i++ {
		if i > 0 {
			if v.one {
				b.WriteString(g.comma)
			} else {
				b.WriteString(",")
			}
		}
		if !v.one {
			if c := g.comment(false); strings.HasSuffix(c, g.nl) {
				b.WriteString(c)
				b.WriteString(child)
			} else {
				b.WriteString(c)
				b.WriteString(g.nl)
				b.WriteString(child)
			}
		} else {
			b.WriteString(g.comment(true))
		}
		if v.isA {
			g.write(b, v.arr[i], child)
		} else {
			b.WriteString(quote(v.keys[i]))
			b.WriteString(g.colon)
			g.write(b, v.vals[i], child)
		}
	}
	if !v.one && n > 0 {
		b.WriteString(g.nl)
		b.WriteString(base)
	}
	b.WriteString(close)
}

// doc returns a random valid file for client and the event of the row we
// will merge.
func (g *gen) doc(client string) []byte {
	g.jsonc = client == "gemini"
	g.unit = g.pick("  ", "    ", "\t", "   ")
	g.nl = g.pick("\n", "\r\n")
	g.colon = g.pick(": ", ":")
	g.comma = g.pick(", ", ",")
	g.oneAll = g.r.Intn(6) == 0
	events := []string{"PreToolUse", "PostToolUse", "Stop", "Notification"}
	if client == "gemini" {
		events = []string{"BeforeTool", "AfterTool", "AfterAgent"}
	}
	root := g.object(0)
	switch g.r.Intn(3) {
	case 0: // no hooks
	default:
		var evs []string
		for _, e := range events {
			if g.r.Intn(2) == 0 {
				evs = append(evs, e)
			}
		}
		if len(evs) == 0 {
			evs = events[:1]
		}
		at := g.r.Intn(len(root.keys) + 1)
		root.keys = append(root.keys[:at], append([]string{"hooks"}, root.keys[at:]...)...)
		root.vals = append(root.vals[:at], append([]*gval{g.hooks(evs)}, root.vals[at:]...)...)
	}
	root.one = g.oneAll || g.r.Intn(8) == 0
	var b strings.Builder
	if client == "claude" && g.r.Intn(8) == 0 { // only Claude Code reads a BOM
		b.WriteString("\xef\xbb\xbf")
	}
	if g.jsonc && g.r.Intn(3) == 0 {
		b.WriteString("// settings" + g.nl)
	}
	g.write(&b, root, "")
	if g.r.Intn(4) != 0 {
		b.WriteString(g.nl)
	}
	return []byte(b.String())
}

var propRows = map[string][]Handler{
	"claude": {
		{NativeEvent: "PreToolUse", Matcher: "^Bash$", Command: ".hookwarden/hook.py claude pre-tool", Timeout: 15},
		{NativeEvent: "Stop", Matcher: "", Command: ".hookwarden/hook.py claude stop", Timeout: 30},
	},
	"codex": {
		{NativeEvent: "PreToolUse", Matcher: "^Bash$", Command: ".hookwarden/hook.py codex pre-tool", Timeout: 15},
		{NativeEvent: "Stop", Matcher: "", Command: ".hookwarden/hook.py codex stop", Timeout: 30},
	},
	"gemini": {
		{NativeEvent: "BeforeTool", Matcher: "^run_shell_command$", Command: ".hookwarden/hook.py gemini pre-tool", Timeout: 15000},
		{NativeEvent: "AfterAgent", Matcher: "", Command: ".hookwarden/hook.py gemini stop", Timeout: 30000},
	},
}

// insertedRuns reports whether out is in with at most two runs of bytes
// inserted, and returns those runs. It tries one run (common prefix and
// suffix covering all of in) and then two runs (the remaining middle of in
// found in between).
func insertedRuns(in, out []byte) ([][]byte, bool) {
	if len(out) < len(in) {
		return nil, false
	}
	p := 0
	for p < len(in) && in[p] == out[p] {
		p++
	}
	s := 0
	for s < len(in)-p && in[len(in)-1-s] == out[len(out)-1-s] {
		s++
	}
	if p+s >= len(in) {
		return [][]byte{out[p : len(out)-(len(in)-p)]}, true
	}
	mid := in[p : len(in)-s]
	window := out[p : len(out)-s]
	for k := 0; k <= len(window)-len(mid); k++ {
		if bytes.Equal(window[k:k+len(mid)], mid) {
			return [][]byte{window[:k], window[k+len(mid):]}, true
		}
	}
	return nil, false
}

// checkMergeProperties asserts, for one valid document and one wanted row
// that the document does not carry yet: the output parses; the row is
// registered exactly once; the output is the input with the row's bytes
// inserted as one contiguous run (two for a JSONC file where a comment
// follows the last item: a lone "," and the row); merging again changes
// nothing; retracting gives the input back.
func checkMergeProperties(t *testing.T, client string, src []byte, w Handler) {
	t.Helper()
	path := "prop/" + client
	res, err := Merge(path, src, client, []Handler{w}, Options{Owner: testOwner(t, client, nil)})
	if err != nil {
		t.Fatalf("Merge: %v\n%s", err, src)
	}
	if len(res.Changes) != 1 || res.Changes[0].Kind != "added" {
		t.Fatalf("changes %+v, want one added", res.Changes)
	}
	found, err := Registered(path, res.Out, client, testOwner(t, client, nil))
	found = ourFound(found)
	if err != nil {
		t.Fatalf("output does not parse: %v\n%s", err, res.Out)
	}
	if len(found) != 1 || found[0].NativeEvent != w.NativeEvent || found[0].Command != w.Command || found[0].Timeout != w.Timeout || !Equivalent(client, found[0].Matcher, w.Matcher) {
		t.Fatalf("registered %+v, want exactly our row\n%s", found, res.Out)
	}
	if client != "gemini" {
		if !json.Valid(bytes.TrimPrefix(res.Out, bom)) {
			t.Fatalf("output is not strict JSON\n%s", res.Out)
		}
	}
	runs, ok := insertedRuns(src, res.Out)
	if !ok || len(runs) > 2 || (len(runs) == 2 && (string(runs[0]) != "," || client != "gemini")) {
		t.Fatalf("output is not the input plus one inserted run (runs %q)\n--- in\n%s\n--- out\n%s", runs, src, res.Out)
	}
	again, err := Merge(path, res.Out, client, []Handler{w}, Options{Owner: testOwner(t, client, nil)})
	if err != nil || !bytes.Equal(again.Out, res.Out) {
		t.Fatalf("merge is not idempotent: %v\n%s", err, again.Out)
	}
	back, err := Merge(path, res.Out, client, nil, Options{Owner: testOwner(t, client, nil), Retract: true})
	if err != nil || !bytes.Equal(back.Out, src) {
		t.Fatalf("retract(merge(x)) != x: %v\n--- in\n%q\n--- back\n%q", err, src, back.Out)
	}
}

func TestMergeProperties(t *testing.T) {
	r := rand.New(rand.NewSource(20261129))
	const perClient = 400
	for _, client := range []string{"claude", "codex", "gemini"} {
		g := &gen{r: r}
		for i := 0; i < perClient; i++ {
			src := g.doc(client)
			w := propRows[client][r.Intn(2)]
			t.Run(fmt.Sprintf("%s/%d", client, i), func(t *testing.T) {
				checkMergeProperties(t, client, src, w)
			})
		}
	}
}

// TestMergeBothRowsProperties merges two rows at once into random files and
// checks the output holds each exactly once and retracts to the input.
func TestMergeBothRowsProperties(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for _, client := range []string{"claude", "codex", "gemini"} {
		g := &gen{r: r}
		for i := 0; i < 100; i++ {
			src := g.doc(client)
			want := propRows[client]
			res, err := Merge("p", src, client, want, Options{Owner: testOwner(t, client, nil)})
			if err != nil {
				t.Fatalf("%s: %v", client, err)
			}
			found, _ := Registered("p", res.Out, client, testOwner(t, client, nil))
			found = ourFound(found)
			if len(found) != 2 {
				t.Fatalf("%s: %d rows registered, want 2\n%s", client, len(found), res.Out)
			}
			back, err := Merge("p", res.Out, client, nil, Options{Owner: testOwner(t, client, nil), Retract: true})
			if err != nil || !bytes.Equal(back.Out, src) {
				t.Fatalf("%s: retract(merge(x)) != x: %v\n%q\n%q", client, err, src, back.Out)
			}
		}
	}
}

// FuzzMerge feeds arbitrary bytes to Merge for each client. It checks: no
// panic; an error is a *ParseError naming the path (or the blank-file case
// never errs); on success with a non-blank input, the input is a subsequence
// of the output made by inserting at most two runs of bytes for the one
// wanted row, the second run only for a Gemini file and the first then a
// lone ","; the output parses again and merging it again changes nothing.
func FuzzMerge(f *testing.F) {
	seeds, _ := filepath.Glob("../testdata/clientjson/*/before.json")
	for _, p := range seeds {
		b, err := os.ReadFile(p)
		if err == nil {
			f.Add(b, uint8(0))
			f.Add(b, uint8(1))
			f.Add(b, uint8(2))
		}
	}
	f.Add([]byte(`{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[]}]}}`), uint8(3))
	f.Fuzz(func(t *testing.T, src []byte, sel uint8) {
		clients := []string{"claude", "codex", "gemini"}
		client := clients[int(sel)%3]
		w := propRows[client][int(sel/3)%2]
		res, err := Merge("fuzz.json", src, client, []Handler{w}, Options{Owner: testOwner(t, client, nil)})
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Path != "fuzz.json" || pe.Line < 1 || pe.Col < 1 {
				t.Fatalf("error is not a positioned *ParseError: %v", err)
			}
			return
		}
		blank := len(bytes.TrimSpace(bytes.TrimPrefix(src, bom))) == 0
		added := len(res.Changes) == 1 && res.Changes[0].Kind == "added"
		switch {
		case blank:
		case !added:
			if !bytes.Equal(res.Out, src) {
				t.Fatalf("served but changed")
			}
		default:
			runs, ok := insertedRuns(src, res.Out)
			if !ok || len(runs) > 2 || (len(runs) == 2 && (string(runs[0]) != "," || client != "gemini")) {
				t.Fatalf("bytes outside the inserted span changed (runs %q)\n--- in\n%q\n--- out\n%q", runs, src, res.Out)
			}
		}
		again, err := Merge("fuzz.json", res.Out, client, []Handler{w}, Options{Owner: testOwner(t, client, nil)})
		if err != nil {
			t.Fatalf("merged output does not parse: %v\n%q", err, res.Out)
		}
		if !bytes.Equal(again.Out, res.Out) {
			t.Fatalf("second merge changed the file\n%q\n%q", res.Out, again.Out)
		}
	})
}
