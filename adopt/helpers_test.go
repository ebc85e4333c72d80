package adopt

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hookwarden/hookwarden/clientjson"
	"github.com/hookwarden/hookwarden/protocol/registration"
	"github.com/hookwarden/hookwarden/templates"
)

// fixedNow is the clock of every test run: backups go to 20260102T030405Z.
func fixedNow() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }

const fixedStamp = "20260102T030405Z"

// testOptions returns Options with the fixed clock and a private, empty
// CODEX_HOME so no test reads the real user's Codex config.
func testOptions(t testing.TB) Options {
	codexHome := t.TempDir()
	return Options{
		Now: fixedNow,
		Getenv: func(k string) string {
			if k == "CODEX_HOME" {
				return codexHome
			}
			return ""
		},
		Jobs: 2,
	}
}

// tree reads every file below root (skipping .git) into path → content,
// with symlinks as "-> target" and directories omitted.
func tree(t testing.TB, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if rel == ".git" {
			return filepath.SkipDir
		}
		if d.Type()&fs.ModeSymlink != 0 {
			target, _ := os.Readlink(p)
			out[rel] = "-> " + target
			return nil
		}
		if d.IsDir() {
			return nil
		}
		if !d.Type().IsRegular() {
			out[rel] = "special " + d.Type().String()
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		info, _ := d.Info()
		out[rel] = info.Mode().Perm().String() + "\n" + string(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// makeRepo creates a repository directory with files and symlinks; git adds
// an empty .git directory (enough for discovery and the ignore check).
func makeRepo(t testing.TB, dir string, git bool, files, symlinks map[string]string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if git {
		if err := os.MkdirAll(filepath.Join(dir, ".git", "info"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for p, body := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for p, target := range symlinks {
		full := filepath.Join(dir, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.Symlink(target, full); err != nil {
			t.Fatal(err)
		}
	}
}

func fileReport(r *RepoReport, path string) *FileReport {
	for _, f := range r.Files {
		if f.Path == path {
			return f
		}
	}
	return nil
}

func anyContains(list []string, sub string) bool {
	for _, s := range list {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// isOurs reports whether a hook command of client's file is ours (a current
// or stale form, or a near miss) under this build's Owner.
func isOurs(t testing.TB, client, command string) bool {
	t.Helper()
	table, err := registration.Default()
	if err != nil {
		t.Fatal(err)
	}
	o, err := templates.Owner(client, table)
	if err != nil {
		t.Fatal(err)
	}
	return o.Claim(command, nil, false).Ours()
}

// oursInFile reports whether client's hook file src holds any handler of
// ours.
func oursInFile(t testing.TB, client string, src []byte) bool {
	t.Helper()
	table, _ := registration.Default()
	o, err := templates.Owner(client, table)
	if err != nil {
		t.Fatal(err)
	}
	found, err := clientjson.Registered(client, src, client, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		if f.Claim.Ours() {
			return true
		}
	}
	return false
}

// defaultRowCount returns how many rows adopt registers by default for
// client: the default events (RegisteredEvents(nil)) that the registration
// table has a row for. Issue 19 added prompt to the defaults.
func defaultRowCount(t testing.TB, client string) int {
	t.Helper()
	table, err := registration.Default()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range RegisteredEvents(nil) {
		if _, ok := table.Lookup(client, e); ok {
			n++
		}
	}
	return n
}
