package stopgate

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"
)

// FuzzProseQuestion checks, from the corpus messages as seeds, that the
// check never panics and that removed material added after the message
// cannot change its answer: a trailing unclosed fence or blockquote holding
// a question is never prose.
func FuzzProseQuestion(f *testing.F) {
	raw, err := os.ReadFile("../../testdata/stopgate/questions.json")
	if err != nil {
		f.Fatal(err)
	}
	var c questionCorpus
	if err := json.Unmarshal(raw, &c); err != nil {
		f.Fatal(err)
	}
	for _, tc := range c.Cases {
		f.Add(tc.Message)
	}
	f.Fuzz(func(t *testing.T, msg string) {
		got := proseQuestion(msg)
		if proseQuestion(msg+"\n\n```go\nIs this code?\n") != got {
			t.Errorf("a trailing unclosed fence changed the answer for %q", msg)
		}
		if proseQuestion(msg+"\n\n> Is this quoted?\n") != got {
			t.Errorf("a trailing blockquote changed the answer for %q", msg)
		}
	})
}

// TestProseQuestionLargeInputs: pathological messages (many unmatched
// backtick runs, many unclosed link destinations, a huge single paragraph)
// are judged in well under the stop budget.
func TestProseQuestionLargeInputs(t *testing.T) {
	var runs strings.Builder
	for i := range 2000 {
		runs.WriteString(strings.Repeat("`", i%300+1))
		runs.WriteString(" x ")
	}
	inputs := map[string]string{
		"unmatched backtick runs":    runs.String() + " Done?",
		"unclosed link destinations": strings.Repeat("[a](b ", 50000) + " Done?",
		"one huge paragraph":         strings.Repeat("word ", 200000) + "Done?",
		"many list items":            strings.Repeat("- item\n", 50000) + "- Done?",
		"many fences":                strings.Repeat("```\ncode?\n```\n", 20000) + "Done?",
	}
	for name, msg := range inputs {
		start := time.Now()
		if !proseQuestion(msg) {
			t.Errorf("%s: closing question missed", name)
		}
		if el := time.Since(start); el > 2*time.Second {
			t.Errorf("%s: %d bytes took %v", name, len(msg), el)
		}
	}
}

// BenchmarkProseQuestion measures the check on a typical closing message
// (about 1.5 KB of prose, a fence, a list and a URL).
func BenchmarkProseQuestion(b *testing.B) {
	msg := strings.Repeat("I changed the parser so that `foo?` is handled, see https://example.com/x?y=1 for details. ", 10) +
		"\n\n```go\nif x { return nil }\n```\n\n- parser fixed\n- tests added\n\nShould I also port the CLI?"
	for b.Loop() {
		if !proseQuestion(msg) {
			b.Fatal("missed")
		}
	}
}
