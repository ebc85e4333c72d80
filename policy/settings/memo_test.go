package settings

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestMemoMatchesParseOnCorpus replays every parse corpus case through the
// memo, cold and then warm: the File (nil and empty lists kept apart) or the
// error must be exactly Parse's, and only files that parse leave an entry.
func TestMemoMatchesParseOnCorpus(t *testing.T) {
	srcs, repos := corpusSources(t)
	cache := t.TempDir()
	m := newMemo(cache)
	if m.exe == nil {
		t.Fatal("the test executable has no identity: the memo would be off")
	}
	entries := 0
	for i, src := range srcs {
		want, wantErr := Parse(src, repos[i])
		for pass := range 2 {
			got, err := m.parse(src, repos[i])
			if (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
				t.Fatalf("case %d pass %d: err %v, Parse's %v", i, pass, err, wantErr)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("case %d pass %d: memo %+v, Parse %+v", i, pass, got, want)
			}
		}
		if wantErr == nil {
			entries++
		}
	}
	des, err := os.ReadDir(filepath.Join(cache, "settings"))
	if err != nil {
		t.Fatal(err)
	}
	// Distinct accepted sources may coincide; there can be no more entries.
	if len(des) == 0 || len(des) > entries {
		t.Fatalf("%d entries for %d accepted cases", len(des), entries)
	}
}

// TestLoadUsesTheMemo: a second Load of an unchanged repository file is
// served from the cache directory (shown by planting a different entry
// value), an edited file is parsed afresh, a damaged entry is parsed again
// and rewritten, and an invalid file is refused on every call.
func TestLoadUsesTheMemo(t *testing.T) {
	repo, cache := t.TempDir(), t.TempDir()
	src := Sources{CacheDir: cache}
	manifest := filepath.Join(repo, RepoFileName)
	write(t, manifest, "version: 1\npolicy:\n  deny: ['terraform destroy']\n")
	load := func() *Effective {
		t.Helper()
		e, err := Load(src, []string{repo})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	denies := func(e *Effective) string {
		var s []string
		for _, p := range e.Deny {
			s = append(s, p.Pattern)
		}
		return strings.Join(s, ",")
	}
	if got := denies(load()); got != "terraform destroy" {
		t.Fatalf("first load: deny %q", got)
	}
	des, _ := os.ReadDir(filepath.Join(cache, "settings"))
	if len(des) != 1 {
		t.Fatalf("%d entries after the first load, want 1", len(des))
	}
	entry := filepath.Join(cache, "settings", des[0].Name())
	raw, _ := os.ReadFile(entry)
	head := raw[:strings.IndexByte(string(raw), '\n')+1]
	planted := appendFile(append([]byte{}, head...), File{Version: 1, Deny: []string{"planted"}, DenyLines: []int{3}})
	if err := os.WriteFile(entry, planted, 0o600); err != nil {
		t.Fatal(err)
	}
	if got := denies(load()); got != "planted" {
		t.Fatalf("second load did not read the memo: deny %q", got)
	}
	if err := os.WriteFile(entry, append(append([]byte{}, head...), "\xff\xff"...), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := denies(load()); got != "terraform destroy" {
		t.Fatalf("damaged entry: deny %q", got)
	}
	if now, _ := os.ReadFile(entry); string(now) != string(raw) {
		t.Fatalf("damaged entry not rewritten: %q", now)
	}
	write(t, manifest, "version: 1\npolicy:\n  deny: ['kubectl delete']\n")
	if got := denies(load()); got != "kubectl delete" {
		t.Fatalf("edited file: deny %q", got)
	}
	write(t, manifest, "version: 1\npolicy:\n  deny: ['(']\n")
	for range 2 {
		if _, err := Load(src, []string{repo}); err == nil || !strings.Contains(err.Error(), "line 3") {
			t.Fatalf("invalid file: err %v", err)
		}
	}
	if des, _ := os.ReadDir(filepath.Join(cache, "settings")); len(des) != 2 {
		t.Fatalf("%d entries, want 2 (the invalid file leaves none)", len(des))
	}
}

// TestLoadWithUnwritableCache: a cache directory that cannot be created
// costs only the parse.
func TestLoadWithUnwritableCache(t *testing.T) {
	repo := t.TempDir()
	blocker := filepath.Join(t.TempDir(), "file")
	write(t, blocker, "not a directory")
	write(t, filepath.Join(repo, RepoFileName), "version: 1\npolicy:\n  deny: [x]\n")
	for range 2 {
		e, err := Load(Sources{CacheDir: filepath.Join(blocker, "cache")}, []string{repo})
		if err != nil || len(e.Deny) != 1 {
			t.Fatalf("Load = %+v, %v", e, err)
		}
	}
}
