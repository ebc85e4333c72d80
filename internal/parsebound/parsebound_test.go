package parsebound

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
	"github.com/tailscale/hujson"
	"go.yaml.in/yaml/v3"
)

// shapes are the worst inputs of each format: the attack past the bound
// (must be refused) and the largest shape of the same kind inside it (must
// pass, and its parse is what BenchmarkWorstAccepted times).
type shape struct {
	name   string
	format string
	src    string
	refuse bool
}

func flatTOML(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "k%d = 1\n", i)
	}
	return b.String() + "[features]\nhooks = false\n"
}

func flatYAML(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "k%d: 1\n", i)
	}
	return b.String()
}

func flatJSON(n int) string {
	var b strings.Builder
	b.WriteString("{")
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, "\"k%d\":1", i)
	}
	return b.String() + "}"
}

func shapes() []shape {
	return []shape{
		{"json arrays 400000 deep", "json", strings.Repeat("[", 400000) + strings.Repeat("]", 400000), true},
		{"json objects 50000 deep", "json", strings.Repeat(`{"a":`, 50000) + "1" + strings.Repeat("}", 50000), true},
		{"json objects at the depth bound", "json", strings.Repeat(`{"a":`, MaxDepth) + "1" + strings.Repeat("}", MaxDepth), false},
		{"json 100000 members", "json", flatJSON(100000), true},
		{"json members at the value bound", "json", flatJSON(MaxJSONValues), false},
		{"json duplicate disableAllHooks", "json", `{"disableAllHooks": false, "disableAllHooks": true}`, true},
		{"json duplicate spelt with an escape", "json", `{"a":{"disableAllHooks": false, "disableAll\u0048ooks": true}}`, true},
		{"jsonc same name in two objects", "json", "{\"a\":{\"x\":1},/* \"a\" */ \"b\":{\"x\":1,},}", false},
		{"jsonc quote inside a comment and string", "json", "{\"a\":\"\\\"}\", // \"\n \"b\":1}", false},
		{"toml 40000 keys", "toml", flatTOML(40000), true},
		{"toml keys at the bound", "toml", flatTOML(MaxTOMLKeys - 2), false},
		{"toml 20000 tables", "toml", strings.Repeat("[t]\n", 1) + func() string {
			var b strings.Builder
			for i := 0; i < 20000; i++ {
				fmt.Fprintf(&b, "[t%d]\n", i)
			}
			return b.String()
		}(), true},
		{"toml inline tables 10000 deep", "toml", "a = " + strings.Repeat("{b=", 10000) + "1" + strings.Repeat("}", 10000), true},
		{"toml 100000 array elements", "toml", "a = [" + strings.Repeat("1,", 100000) + "]", true},
		{"yaml 60000 keys", "yaml", flatYAML(60000), true},
		{"yaml keys at the mapping bound", "yaml", flatYAML(MaxYAMLMappingKeys), false},
		{"yaml flow 5000 deep", "yaml", strings.Repeat("[", 5000) + strings.Repeat("]", 5000), true},
		{"yaml at the depth bound", "yaml", strings.Repeat("[", MaxDepth-1) + strings.Repeat("]", MaxDepth-1), false},
	}
}

func check(format string, src []byte) error {
	switch format {
	case "json":
		return JSON(src)
	case "toml":
		return TOML(src)
	}
	return YAML(src)
}

func parse(format string, src []byte) error {
	switch format {
	case "json":
		_, err := hujson.Parse(src)
		return err
	case "toml":
		var m map[string]any
		return toml.Unmarshal(src, &m)
	}
	var m any
	return yaml.Unmarshal(src, &m)
}

func TestShapes(t *testing.T) {
	for _, s := range shapes() {
		err := check(s.format, []byte(s.src))
		if (err != nil) != s.refuse || (err != nil && !IsBound(err)) {
			t.Errorf("%s: err %v, want refused=%v", s.name, err, s.refuse)
		}
	}
}

// TestDuplicateLastWins pins the client fact the duplicate refusal rests on
// for encoding/json as well: it also keeps the last member, like JSON.parse.
func TestDuplicateLastWins(t *testing.T) {
	var m map[string]bool
	if err := json.Unmarshal([]byte(`{"disableAllHooks": false, "disableAllHooks": true}`), &m); err != nil || !m["disableAllHooks"] {
		t.Fatalf("encoding/json kept %v (%v)", m, err)
	}
}

// BenchmarkRefused times the check on each shape past its bound; go test
// ./internal/parsebound -run '^$' -bench . shows each answered in
// milliseconds (the pre-edit budget is 5 s).
func BenchmarkRefused(b *testing.B) {
	for _, s := range shapes() {
		if !s.refuse {
			continue
		}
		src := []byte(s.src)
		b.Run(strings.ReplaceAll(s.name, " ", "_"), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if check(s.format, src) == nil {
					b.Fatal("not refused")
				}
			}
		})
	}
}

// BenchmarkWorstAccepted times the check plus the real parser on the
// largest shape of each kind inside the bounds.
func BenchmarkWorstAccepted(b *testing.B) {
	for _, s := range shapes() {
		if s.refuse {
			continue
		}
		src := []byte(s.src)
		b.Run(strings.ReplaceAll(s.name, " ", "_"), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if err := check(s.format, src); err != nil {
					b.Fatal(err)
				}
				_ = parse(s.format, src)
			}
		})
	}
}
