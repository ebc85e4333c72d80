package policy

import (
	"strings"
	"testing"
)

// TestCodeScanTruncations: every prefix of every code text in the corpus,
// fed to each language's scanner, is read or refused without a panic (a
// panic would deny ordinary code as indirection-unjudgeable).
func TestCodeScanTruncations(t *testing.T) {
	cases := loadCorpus(t)
	p, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	langs := []*codeLang{pythonLang, jsLang, rubyLang, perlLang}
	seen := 0
	for _, c := range cases {
		cmd := c.Command()
		if len(cmd) > 600 || !strings.ContainsAny(cmd, "('\"") {
			continue
		}
		seen++
		for n := 0; n <= len(cmd); n++ {
			for _, l := range langs {
				func() {
					defer func() {
						if r := recover(); r != nil {
							t.Fatalf("%s: %s scanner panicked on a %d-byte prefix: %v", c.ID, l.name, n, r)
						}
					}()
					j := &judge{p: p, hits: &hitSet{}}
					j.codeScan(l, cmd[:n], 0, nil)
				}()
			}
		}
	}
	if seen < 100 {
		t.Errorf("only %d corpus commands scanned", seen)
	}
}

// FuzzCodeScan: no input makes a scanner panic.
func FuzzCodeScan(f *testing.F) {
	for _, s := range []string{`import os; os.system('git commit -n')`, "execSync(`git ${'x'}`)", `system "a#{b}"`, `s/x/y/e; qx{ls}`, `<<~EOS
x
EOS`} {
		f.Add(s)
	}
	p, _ := New(nil)
	f.Fuzz(func(t *testing.T, src string) {
		for _, l := range []*codeLang{pythonLang, jsLang, rubyLang, perlLang} {
			j := &judge{p: p, hits: &hitSet{}}
			j.codeScan(l, src, 0, nil)
		}
	})
}
