package jsonstr

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestMatchesGo: Style{HTML: true} writes what Go's encoding/json writes
// and Style{} what it writes with SetEscapeHTML(false), for text holding
// every escape class (Go writes U+2028/2029 escaped in both; Style{} keeps
// them, as serde_json and JSON.stringify do, so they are left out here).
func TestMatchesGo(t *testing.T) {
	s := "a\"b\\c\n\r\t\b\f\x01\x1f</>&é🔑"
	for _, html := range []bool{true, false} {
		var want bytes.Buffer
		e := json.NewEncoder(&want)
		e.SetEscapeHTML(html)
		e.Encode(s)
		var got strings.Builder
		got.WriteByte('"')
		Append(&got, s, Style{HTML: html})
		got.WriteString("\"\n")
		if got.String() != want.String() {
			t.Errorf("html=%v: got %s want %s", html, got.String(), want.String())
		}
	}
}
