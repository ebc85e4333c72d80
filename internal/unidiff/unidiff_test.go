package unidiff

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
)

type diffCase struct {
	Name       string `json:"name"`
	A          string `json:"a"`
	B          string `json:"b"`
	ALines     int    `json:"a_lines"`     // generate a as "line 1\n"… instead
	ChangeLine int    `json:"change_line"` // with this 0-based line changed in b
	Want       string `json:"want"`
}

func (c diffCase) inputs() (a, b string) {
	if c.ALines == 0 {
		return c.A, c.B
	}
	var sa, sb strings.Builder
	for i := 1; i <= c.ALines; i++ {
		fmt.Fprintf(&sa, "line %d\n", i)
		if i-1 == c.ChangeLine {
			fmt.Fprintf(&sb, "changed %d\n", i)
		} else {
			fmt.Fprintf(&sb, "line %d\n", i)
		}
	}
	return sa.String(), sb.String()
}

// TestCorpus replays testdata/unidiff/cases.json: each diff is exactly the
// one GNU diff -u prints for the same files (headers aside; one case notes an
// equally short alignment GNU picks the other way), and applying it to a
// gives b back byte for byte.
func TestCorpus(t *testing.T) {
	data, err := os.ReadFile("../../testdata/unidiff/cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []diffCase
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 15 {
		t.Fatalf("corpus has %d cases", len(cases))
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			a, b := c.inputs()
			got := Unified("a/f", "b/f", []byte(a), []byte(b))
			if got != c.Want {
				t.Fatalf("diff:\n%s\nwant:\n%s", got, c.Want)
			}
			if back, err := apply(a, got); err != nil || back != b {
				t.Fatalf("applying the diff: err %v, result %q, want %q", err, back, b)
			}
		})
	}
}

// TestRoundTrip: for random pairs of files built from a few repeated lines
// (LF, CRLF, missing final newline, empty files), applying Unified(a, b) to
// a gives b, and equal files give "".
func TestRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"a\n", "b\n", "c\r\n", "{\n", "}\n", "  \"x\": 1,\n", "\n"}
	gen := func() string {
		var sb strings.Builder
		for n := r.IntN(30); n > 0; n-- {
			sb.WriteString(pieces[r.IntN(len(pieces))])
		}
		s := sb.String()
		if len(s) > 0 && r.IntN(4) == 0 {
			s = strings.TrimSuffix(s, "\n")
		}
		return s
	}
	for i := 0; i < 3000; i++ {
		a, b := gen(), gen()
		if r.IntN(3) == 0 {
			b = a[:len(a)/2] + "z\n" + a[len(a)/2:]
		}
		d := Unified("a/f", "b/f", []byte(a), []byte(b))
		if a == b {
			if d != "" {
				t.Fatalf("equal inputs gave a diff:\n%s", d)
			}
			continue
		}
		back, err := apply(a, d)
		if err != nil || back != b {
			t.Fatalf("a %q\nb %q\ndiff:\n%s\napplied: %q, err %v", a, b, d, back, err)
		}
	}
}

// TestLargeMiddle: when the changed middle is beyond Cells, the diff is one
// hunk replacing it, and still applies.
func TestLargeMiddle(t *testing.T) {
	var sa, sb strings.Builder
	for i := 0; i < 2100; i++ {
		fmt.Fprintf(&sa, "a%d\n", i)
		fmt.Fprintf(&sb, "b%d\n", i)
	}
	a, b := "same\n"+sa.String()+"end\n", "same\n"+sb.String()+"end\n"
	d := Unified("a/f", "b/f", []byte(a), []byte(b))
	if strings.Count(d, "@@ -") != 1 {
		t.Fatalf("want one hunk, got %d", strings.Count(d, "@@ -"))
	}
	if back, err := apply(a, d); err != nil || back != b {
		t.Fatalf("applying the diff failed: %v", err)
	}
}

// apply is a minimal patch(1) for the tests: it applies a unified diff made
// by Unified to a and returns the result.
func apply(a, diff string) (string, error) {
	aLines := splitKeep(a)
	var out []string
	lines := strings.SplitAfter(diff, "\n")
	pos := 0 // next unconsumed line of a
	for i := 2; i < len(lines) && lines[i] != ""; {
		h := lines[i]
		if !strings.HasPrefix(h, "@@ -") {
			return "", fmt.Errorf("line %d: want a hunk header, got %q", i, h)
		}
		start := h[4 : strings.IndexAny(h[4:], ", ")+4]
		n, err := strconv.Atoi(start)
		if err != nil {
			return "", err
		}
		if strings.HasPrefix(h[4+len(start):], ",0 ") {
			n++ // "-k,0": the hunk inserts after line k
		}
		for pos < n-1 {
			out = append(out, aLines[pos])
			pos++
		}
		i++
		for i < len(lines) && lines[i] != "" && !strings.HasPrefix(lines[i], "@@") {
			l := lines[i]
			text := l[1:]
			noEOL := i+1 < len(lines) && strings.HasPrefix(lines[i+1], "\\ No newline")
			if noEOL {
				text = strings.TrimSuffix(text, "\n")
			}
			switch l[0] {
			case ' ':
				out = append(out, text)
				pos++
			case '-':
				pos++
			case '+':
				out = append(out, text)
			default:
				return "", fmt.Errorf("line %d: %q", i, l)
			}
			i++
			if noEOL {
				i++
			}
		}
	}
	out = append(out, aLines[pos:]...)
	return strings.Join(out, ""), nil
}

func splitKeep(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}
