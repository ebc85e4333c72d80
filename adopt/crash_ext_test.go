package adopt_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookwarden/hookwarden/internal/fileowner"
	"github.com/hookwarden/hookwarden/internal/testbin"

	"github.com/hookwarden/hookwarden/adopt"
	"github.com/hookwarden/hookwarden/adopt/audit"
	"github.com/hookwarden/hookwarden/internal/safewrite"
)

// The user owning the fleet in the crash test (numeric: no account needed).
const crashUID, crashGID = 1234, 2345

// crashFile is one file as the crash test sees it.
type crashFile struct {
	data     string
	uid, gid int
	mode     fs.FileMode
}

// crashTree reads every file below root (.git left out).
func crashTree(t *testing.T, root string) map[string]crashFile {
	t.Helper()
	out := map[string]crashFile{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		uid, gid := fileowner.Of(fi)
		f := crashFile{uid: uid, gid: gid, mode: fi.Mode()}
		if fi.Mode().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			f.data = string(data)
		}
		out[rel] = f
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// makeCrashFleet writes two repositories below base, every directory and
// file owned by crashUID:crashGID, with settings files that predate
// adoption in modes 600, 640 and 644, and returns their paths.
func makeCrashFleet(t *testing.T, base string) []string {
	t.Helper()
	repos := map[string]map[string]struct {
		body string
		mode fs.FileMode
	}{
		"alpha": {
			".claude/settings.json": {"{\n  \"model\": \"opus\",\n  \"hooks\": {\n    \"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"./notify.sh\"}]}]\n  }\n}\n", 0o600},
			".gitignore":            {"dist/\n", 0o640},
		},
		"beta": {
			".gemini/settings.json": {"{\n  // the operator's comment\n  \"theme\": \"dark\"\n}\n", 0o644},
			".codex/hooks.json":     {"{\"hooks\": {}}\n", 0o600},
			"AGENTS.md":             {"# Agents\n\nRun `go test ./...` first.\n", 0o644},
		},
	}
	var paths []string
	for name, files := range repos {
		root := filepath.Join(base, name)
		for _, d := range []string{".git/info"} {
			if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		for rel, f := range files {
			p := filepath.Join(root, filepath.FromSlash(rel))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(f.body), f.mode); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(p, f.mode); err != nil {
				t.Fatal(err)
			}
		}
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			return os.Lchown(p, crashUID, crashGID)
		})
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, root)
	}
	return paths
}

// TestCrashAtEveryWritePoint is issue 15's crash acceptance: over a fleet
// of repositories whose settings predate adoption and belong to another
// user (run as root), adopt is killed with SIGKILL at every write point in
// turn (a test-only probe in the adopt process, safewrite.WriteProbed: no
// racing signal), and after each kill: every file holds its old or its new
// bytes with its owner and mode unchanged (new files only: the directory's
// owner); one rerun leaves no temporary anywhere, the tree of an
// uninterrupted run, every file owned by the fleet's user, and audit clean.
func TestCrashAtEveryWritePoint(t *testing.T) {
	if testing.Short() {
		t.Skip("runs adopt once per write point; skipped with -short")
	}
	if os.Geteuid() != 0 {
		if os.Getenv("HOOKWARDEN_E2E") == "require" {
			t.Fatal("needs root to give the fleet another owner (HOOKWARDEN_E2E=require)")
		}
		t.Skip("needs root to give the fleet another owner")
	}
	home := t.TempDir()
	getenv := func(k string) string {
		if k == "HOME" || k == "CODEX_HOME" {
			return home
		}
		return ""
	}

	// The uninterrupted run: its tree, and the number of write points.
	refBase := t.TempDir()
	refPaths := makeCrashFleet(t, refBase)
	points, killed := adopt.RunCrashChild(t, refPaths, 0, home)
	if killed || points < 20 {
		t.Fatalf("reference run: %d write points (killed %v)", points, killed)
	}
	want := map[string]map[string]crashFile{}
	for _, p := range refPaths {
		want[filepath.Base(p)] = crashTree(t, p)
	}

	// Every write point under -long, HOOKWARDEN_TEST_LONG=1 or
	// HOOKWARDEN_E2E=require (CI); else every fourth, the first and last.
	all := make([]int, points)
	for i := range all {
		all[i] = i + 1
	}
	for _, at := range testbin.Sample(all, 4) {
		base := t.TempDir()
		paths := makeCrashFleet(t, base)
		old := map[string]map[string]crashFile{}
		for _, p := range paths {
			old[filepath.Base(p)] = crashTree(t, p)
		}
		if _, killed := adopt.RunCrashChild(t, paths, at, home); !killed {
			t.Fatalf("point %d of %d: the child was not killed", at, points)
		}
		for _, p := range paths {
			name := filepath.Base(p)
			for rel, f := range crashTree(t, p) {
				o, existed := old[name][rel]
				w, wanted := want[name][rel]
				switch {
				case f.mode.IsDir():
				case strings.HasPrefix(rel, adopt.BackupDir+"/"):
					// a complete copy of an old file, or a temporary
				case existed && (f.data == o.data || wanted && f.data == w.data):
					if f.uid != o.uid || f.gid != o.gid || f.mode != o.mode {
						t.Errorf("point %d: %s/%s: owner %d:%d mode %v, was %d:%d %v", at, name, rel, f.uid, f.gid, f.mode, o.uid, o.gid, o.mode)
					}
				case existed:
					t.Errorf("point %d: %s/%s is neither its old nor its new content:\n%s", at, name, rel, f.data)
				case wanted && f.data == w.data:
					if f.uid != crashUID || f.gid != crashGID {
						t.Errorf("point %d: new %s/%s owned by %d:%d, not by its directory's owner", at, name, rel, f.uid, f.gid)
					}
				case isTemporary(rel):
				default:
					t.Errorf("point %d: %s/%s: a file that is neither old, new, a backup nor a temporary:\n%s", at, name, rel, f.data)
				}
			}
		}

		// One rerun converges, with no temporary left and audit clean.
		rep, err := adopt.Adopt(context.Background(), paths, adopt.Options{Jobs: 1, Getenv: getenv})
		if err != nil || rep.Failed() {
			t.Fatalf("point %d: rerun: %v %+v", at, err, rep.Repositories)
		}
		for _, p := range paths {
			name := filepath.Base(p)
			got := crashTree(t, p)
			for rel, f := range got {
				if f.uid != crashUID || f.gid != crashGID {
					t.Errorf("point %d: after the rerun %s/%s is owned by %d:%d, not the fleet's user", at, name, rel, f.uid, f.gid)
				}
				if strings.HasPrefix(rel, adopt.BackupDir+"/") {
					if isTemporary(rel) {
						t.Errorf("point %d: after the rerun a temporary is left: %s/%s", at, name, rel)
					}
					continue
				}
				w, ok := want[name][rel]
				switch {
				case isTemporary(rel):
					t.Errorf("point %d: after the rerun a temporary is left: %s/%s", at, name, rel)
				case !ok:
					t.Errorf("point %d: after the rerun %s/%s exists, not in the uninterrupted run", at, name, rel)
				case f.data != w.data || f.mode != w.mode:
					t.Errorf("point %d: after the rerun %s/%s differs from the uninterrupted run", at, name, rel)
				}
			}
			for rel := range want[name] {
				if _, ok := got[rel]; !ok && !strings.HasPrefix(rel, adopt.BackupDir+"/") {
					t.Errorf("point %d: after the rerun %s/%s is missing", at, name, rel)
				}
			}
		}
		arep, err := audit.Audit(context.Background(), paths, audit.Options{Getenv: getenv, Jobs: 1})
		if err != nil {
			t.Fatal(err)
		}
		if arep.Summary.Errors+arep.Summary.Warnings > 0 {
			for _, r := range arep.Repositories {
				for _, f := range r.Findings {
					t.Errorf("point %d: audit after the rerun: %s %s %s: %s", at, f.ID, f.Severity, f.File, f.Message)
				}
			}
		}
	}
	t.Logf("killed adopt at each of %d write points of a 2-repository fleet", points)
}

// isTemporary reports whether rel names a renameio temporary of some file.
func isTemporary(rel string) bool {
	name := rel[strings.LastIndexByte(rel, '/')+1:]
	base := strings.TrimRight(name, "0123456789")
	return len(base) > 1 && base != name && base[0] == '.' && safewrite.IsTemporaryOf(name, base[1:])
}
