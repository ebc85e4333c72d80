package redact

import (
	"encoding/base64"
	"encoding/hex"
	"math/rand/v2"
	"net/url"
	"strings"
	"testing"
)

// wireValues are values that do not contain one another (fixtureValues'
// overlapping pair would make First report the shorter one).
var wireValues = map[string]string{
	"[GH_TOKEN]": "ghp_abcdefgh12345678",
	"[DB_PASS]":  `pa"ss\word/<&>`,
	"[MULTI]":    "line1\nline2\tend",
	"[UNICODE]":  "clé-secrète-🔑",
	"[PIN8]":     "k9#Lm2@Q",
}

// TestWireMatcherEncodings: every value of a table is found by a
// wire matcher, under its own token, when it sits at any of the three byte
// alignments inside a longer input encoded in base64 (standard and URL
// alphabet, padded or not), in hex of either case, percent-encoded, and
// as written; ordinary text and random base64 hold none.
func TestWireMatcherEncodings(t *testing.T) {
	m, err := NewWireMatcher(wireValues)
	if err != nil {
		t.Fatal(err)
	}
	encs := map[string]func([]byte) string{
		"std":     base64.StdEncoding.EncodeToString,
		"raw-url": base64.RawURLEncoding.EncodeToString,
		"hex":     hex.EncodeToString,
		"HEX":     func(b []byte) string { return strings.ToUpper(hex.EncodeToString(b)) },
		"query":   func(b []byte) string { return url.QueryEscape(string(b)) },
	}
	for tok, raw := range wireValues {
		for name, enc := range encs {
			for pre := 0; pre < 6; pre++ {
				in := strings.Repeat("x", pre) + raw + "tail\n"
				text := []byte(`{"content":"` + enc([]byte(in)) + `"}`)
				got, ok := m.First(text)
				if !ok || got.Token != tok {
					t.Errorf("%s after %d bytes, %s: got %+v %v", tok, pre, name, got, ok)
				}
			}
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	blob := make([]byte, 1<<20)
	for i := range blob {
		blob[i] = byte(rng.Uint32())
	}
	for _, text := range []string{base64.StdEncoding.EncodeToString(blob), hex.EncodeToString(blob[:4096]),
		"an ordinary prompt about ghp_ tokens and postgres URLs"} {
		if got, ok := m.First([]byte(text)); ok {
			t.Errorf("a chance hit in %d bytes: %+v", len(text), got)
		}
	}
}

// TestWireEncodingsShortValue: a 4-byte value (MinValueBytes) is searched
// for in hex and as written; base64 runs shorter than MinEncodedRun are
// left out rather than matched by chance.
func TestWireEncodingsShortValue(t *testing.T) {
	for _, e := range WireEncodings("abcd") {
		if e.Form == FormBase64 && len(e.Text) < MinEncodedRun {
			t.Errorf("base64 run %q shorter than %d", e.Text, MinEncodedRun)
		}
	}
	m, err := NewWireMatcher(map[string]string{"[PIN]": "abcd"})
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := m.First([]byte("x 61626364 y")); !ok || got.Form != FormHex {
		t.Errorf("hex of a 4-byte value: %+v %v", got, ok)
	}
}
