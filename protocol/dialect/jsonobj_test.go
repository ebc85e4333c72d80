package dialect

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// referenceParse is the oracle: encoding/json's token walk with the same
// bounds (valid UTF-8, one object, unique names at every depth, 64 levels,
// no trailing data). It returns the document decoded with UseNumber.
func referenceParse(data []byte) (map[string]any, error) {
	if !utf8.Valid(data) {
		return nil, errors.New("utf8")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not an object")
	}
	if err := refObject(dec, 1); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing")
	}
	var out map[string]any
	d2 := json.NewDecoder(bytes.NewReader(data))
	d2.UseNumber()
	if err := d2.Decode(&out); err != nil {
		return nil, err
	}
	return out, nil
}

func refObject(dec *json.Decoder, depth int) error {
	if depth > MaxDepth {
		return errors.New("depth")
	}
	seen := map[string]bool{}
	for {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		if d, ok := tok.(json.Delim); ok && d == '}' {
			return nil
		}
		name, ok := tok.(string)
		if !ok {
			return errors.New("name")
		}
		if seen[name] {
			return errors.New("duplicate")
		}
		seen[name] = true
		if err := refValue(dec, depth); err != nil {
			return err
		}
	}
}

func refValue(dec *json.Decoder, depth int) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return nil
	}
	switch d {
	case '{':
		return refObject(dec, depth+1)
	case '[':
		if depth+1 > MaxDepth {
			return errors.New("depth")
		}
		for dec.More() {
			if err := refValue(dec, depth+1); err != nil {
				return err
			}
		}
		_, err := dec.Token()
		return err
	}
	return errors.New("delim")
}

// scannedTree rebuilds the document from parseObject's raw members with the
// package's own readers (members, elements, unquote), numbers as json.Number.
func scannedTree(raw []byte) any {
	switch jsonType(raw) {
	case "an object":
		m := map[string]any{}
		for _, mb := range members(raw) {
			m[mb.name] = scannedTree(mb.raw)
		}
		return m
	case "an array":
		out := []any{}
		for _, e := range elements(raw) {
			out = append(out, scannedTree(e))
		}
		return out
	case "a string":
		return unquote(raw)
	case "a boolean":
		return raw[0] == 't'
	case "null":
		return nil
	}
	return json.Number(string(raw))
}

// checkScanAgainstReference fails when parseObject and the encoding/json
// oracle disagree on data: one accepts and the other refuses, or both accept
// and read different documents.
func checkScanAgainstReference(t *testing.T, data []byte) {
	t.Helper()
	want, refErr := referenceParse(data)
	o, err := parseObject(data)
	if (err == nil) != (refErr == nil) {
		t.Fatalf("input %q: scanner err = %v, encoding/json err = %v", data, err, refErr)
	}
	if err != nil {
		return
	}
	got := map[string]any{}
	for _, m := range o {
		got[m.name] = scannedTree(m.raw)
	}
	// reflect.DeepEqual first: cmp.Diff's slice edit scripts grow
	// exponentially with nesting depth, so it only explains a mismatch.
	if !reflect.DeepEqual(want, got) {
		t.Fatalf("input %q: documents differ (-encoding/json +scanner):\n%s", data, cmp.Diff(want, got))
	}
}

// TestScanMatchesEncodingJSON replays testdata/json_validity.json: inputs on
// the edges of RFC 8259 (escapes, surrogates, numbers, literals, nesting,
// duplicates after unescaping, whitespace, trailing data). Each case states
// whether it is valid; the scanner and encoding/json must both agree with it.
func TestScanMatchesEncodingJSON(t *testing.T) {
	raw, err := os.ReadFile("testdata/json_validity.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Name  string `json:"name"`
		Input string `json:"input"`
		Nest  int    `json:"input_nest"`
		Valid bool   `json:"valid"`
	}
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 60 {
		t.Fatalf("corpus has %d cases", len(cases))
	}
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			in := tc.Input
			if tc.Nest > 0 {
				in = `{"a":` + strings.Repeat(`[`, tc.Nest) + strings.Repeat(`]`, tc.Nest) + `}`
			}
			_, err := parseObject([]byte(in))
			if (err == nil) != tc.Valid {
				t.Fatalf("valid = %v, scanner err = %v", tc.Valid, err)
			}
			checkScanAgainstReference(t, []byte(in))
		})
	}
}

// FuzzScanMatchesEncodingJSON: on any input the scanner and encoding/json
// agree on validity and on the document read.
func FuzzScanMatchesEncodingJSON(f *testing.F) {
	raw, err := os.ReadFile("testdata/json_validity.json")
	if err != nil {
		f.Fatal(err)
	}
	var cases []struct {
		Input string `json:"input"`
	}
	if err := json.Unmarshal(raw, &cases); err != nil {
		f.Fatal(err)
	}
	for _, c := range cases {
		f.Add([]byte(c.Input))
	}
	for _, p := range []string{
		"../../testdata/clients/claude/2.1.328/pre-tool.json",
		"../../testdata/clients/gemini/0.61.0/pre-tool.json",
	} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkScanAgainstReference(t, data)
	})
}

// largeObject returns a payload whose tool_input has n members named by
// their index in hex; the member at dupAt (if any) repeats the first name.
func largeObject(n, dupAt int) []byte {
	var b strings.Builder
	b.WriteString(`{"hook_event_name":"PreToolUse","tool_input":{`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		k := i
		if i == dupAt {
			k = 0
		}
		fmt.Fprintf(&b, `"%x":1`, k)
	}
	b.WriteString(`}}`)
	return []byte(b.String())
}

// TestScanLargeObjects: an object of 150,000 members parses, and a
// duplicate name anywhere in it (second, middle, last member) is refused.
// That the scan is linear is BenchmarkScanLargeObjects' business (no timed
// assertion in a unit test).
func TestScanLargeObjects(t *testing.T) {
	if _, err := parseObject(largeObject(150_000, -1)); err != nil {
		t.Fatalf("150,000 unique members: %v", err)
	}
	for _, at := range []int{1, 17, 149_999} {
		if _, err := parseObject(largeObject(150_000, at)); err == nil || !strings.Contains(err.Error(), "duplicate member name") {
			t.Fatalf("duplicate at member %d: err = %v", at, err)
		}
	}
}

// BenchmarkScanLargeObjects parses objects of 37,500, 75,000 and 150,000
// members and reports the time per member of each size and the growth of
// the whole parse per doubling of the members: about 2 when the duplicate
// check is linear, 4 when it is quadratic. It fails above 3.5.
//
//	go test ./protocol/dialect -run '^$' -bench ScanLargeObjects -count 3
func BenchmarkScanLargeObjects(b *testing.B) {
	sizes := []int{37_500, 75_000, 150_000}
	docs := make([][]byte, len(sizes))
	for i, n := range sizes {
		docs[i] = largeObject(n, -1)
	}
	best := make([]time.Duration, len(sizes))
	for b.Loop() {
		for i, doc := range docs {
			start := time.Now()
			if _, err := parseObject(doc); err != nil {
				b.Fatalf("%d unique members: %v", sizes[i], err)
			}
			if el := time.Since(start); best[i] == 0 || el < best[i] {
				best[i] = el
			}
		}
	}
	for i, n := range sizes {
		b.ReportMetric(float64(best[i].Nanoseconds())/float64(n), fmt.Sprintf("ns/member@%d", n))
	}
	growth := math.Sqrt(float64(best[2]) / float64(best[0]))
	b.ReportMetric(growth, "growth/doubling")
	if growth > 3.5 {
		b.Fatalf("each doubling of the members multiplied the parse time by %.1f (best of each: %v): not linear", growth, best)
	}
}
