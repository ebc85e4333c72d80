package audit

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hookwarden/hookwarden/adopt"
	"github.com/hookwarden/hookwarden/internal/testbin"
)

// fixtureCase is one testdata/audit/<case>/case.json: how to build the
// repository (the real adopt, then the edits), and the exact findings the
// audit must report. See testdata/audit/README.md.
type fixtureCase struct {
	Description string `json:"description"`
	Setup       struct {
		NoAdopt bool     `json:"no_adopt"`
		NoGit   bool     `json:"no_git"`
		Clients []string `json:"clients"`
		Decline []string `json:"decline"`
		// Files are written into the repository after adopt ("$HOME" and
		// "$REPO" as in Home).
		Files   map[string]*string `json:"files"`
		Replace []struct {
			File string `json:"file"`
			Old  string `json:"old"`
			New  string `json:"new"`
		} `json:"replace"`
		Append map[string]string `json:"append"`
		// Chmod sets the permission bits (octal text, e.g. "0644") of
		// files of the repository after the writes above.
		Chmod     map[string]string `json:"chmod"`
		Symlinks  map[string]string `json:"symlinks"`
		GitConfig string            `json:"git_config"`
		Env       map[string]string `json:"env"`
		// Home holds files written below HOME (also CODEX_HOME); "$HOME"
		// and "$REPO" in their text stand for the two directories (a
		// Codex trust key names an absolute path).
		Home map[string]string `json:"home"`
		// Plan runs the audit with --plan: Start a directory below the
		// repository (created) audited instead of the root, Workstation
		// --workstation.
		Plan *struct {
			Start       string `json:"start"`
			Workstation bool   `json:"workstation"`
		} `json:"plan"`
	} `json:"setup"`
	// Skipped lists, with setup.plan, every handler of the plan that does
	// not fire: "client native-event file reason-id" ($HOME the home, $CASE the case directory).
	Skipped    []string      `json:"skipped"`
	Findings   []wantFinding `json:"findings"`
	Exit       int           `json:"exit"`
	ExitStrict int           `json:"exit_strict"`
}

// wantFinding is a finding as a case states it: every field but the
// message, which is checked for MessageHas substrings only. "$REPO" in Fix
// stands for the repository path.
type wantFinding struct {
	ID         string   `json:"id"`
	Severity   Severity `json:"severity"`
	File       string   `json:"file"`
	Line       int      `json:"line"`
	Client     string   `json:"client,omitempty"`
	Event      string   `json:"event,omitempty"`
	Fix        string   `json:"fix"`
	MessageHas []string `json:"message_has,omitempty"`
}

func loadCases(t testing.TB) map[string]fixtureCase {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join("..", "..", "testdata", "audit", "*", "case.json"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no fixture cases under testdata/audit: %v", err)
	}
	out := map[string]fixtureCase{}
	for _, p := range dirs {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var c fixtureCase
		dec := json.NewDecoder(strings.NewReader(string(data)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&c); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		out[filepath.Base(filepath.Dir(p))] = c
	}
	return out
}

// initGit makes dir a git repository the way `git init` lays out what audit
// reads: .git/HEAD and .git/config (plus extra config text).
func initGit(t testing.TB, dir, extraConfig string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, ".git", "info"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n" + extraConfig
	must(t, os.WriteFile(filepath.Join(dir, ".git", "config"), []byte(cfg), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644))
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// emptyEnv is a Getenv that sees only env, with HOME and CODEX_HOME set to
// an empty directory so no test reads the real user's files.
func emptyEnv(home string, env map[string]string) func(string) string {
	return func(k string) string {
		if v, ok := env[k]; ok {
			return v
		}
		switch k {
		case "HOME", "CODEX_HOME":
			return home
		}
		return ""
	}
}

// buildCase builds the case's repository in a new temporary directory and
// returns its path and the Getenv for the audit.
func buildCase(t testing.TB, name string, c fixtureCase) (string, func(string) string) {
	t.Helper()
	return buildCaseIn(t, t.TempDir(), name, c)
}

// sharedDir holds the repositories sharedCase builds once per test binary
// (TestMain removes it).
var sharedDir string

type builtRepo struct {
	repo   string
	getenv func(string) string
}

var (
	sharedMu    sync.Mutex
	sharedBuilt = map[string]builtRepo{}
)

// sharedCase returns the repository of case name, built once per test
// binary; callers must not change it (audit only reads).
func sharedCase(t testing.TB, name string) (string, func(string) string) {
	t.Helper()
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if b, ok := sharedBuilt[name]; ok {
		return b.repo, b.getenv
	}
	c, ok := loadCases(t)[name]
	if !ok {
		t.Fatalf("no fixture case %q", name)
	}
	base := filepath.Join(sharedDir, name)
	must(t, os.MkdirAll(base, 0o755))
	repo, getenv := buildCaseIn(t, base, name, c)
	sharedBuilt[name] = builtRepo{repo, getenv}
	return repo, getenv
}

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "hookwarden-audit-test-")
	if err != nil {
		panic(err)
	}
	sharedDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// buildCaseIn builds the case's repository below base (base/repo, with
// base/home as HOME).
func buildCaseIn(t testing.TB, base, name string, c fixtureCase) (string, func(string) string) {
	t.Helper()
	// audit asks git whether the backups are ignored, in every case.
	testbin.Need(t, "git")
	repo := filepath.Join(base, "repo")
	home := filepath.Join(base, "home")
	must(t, os.MkdirAll(repo, 0o755))
	must(t, os.MkdirAll(home, 0o755))
	s := c.Setup
	if !s.NoGit {
		initGit(t, repo, s.GitConfig)
	}
	if !s.NoAdopt {
		rep, err := adopt.Adopt(context.Background(), []string{repo}, adopt.Options{Clients: s.Clients, Decline: s.Decline, Getenv: emptyEnv(home, nil), Jobs: 1})
		if err != nil {
			t.Fatalf("adopt: %v", err)
		}
		if rep.Failed() {
			t.Fatalf("adopt failed: %+v", rep.Repositories[0].Errors)
		}
	}
	caseDir := caseDir(name)
	if ov := filepath.Join(caseDir, "repo"); dirExists(ov) {
		copyTree(t, ov, repo)
	}
	names := make([]string, 0, len(s.Files))
	for p := range s.Files {
		names = append(names, p)
	}
	sort.Strings(names)
	for _, p := range names {
		abs := filepath.Join(repo, filepath.FromSlash(p))
		if s.Files[p] == nil {
			must(t, os.Remove(abs))
			continue
		}
		must(t, os.MkdirAll(filepath.Dir(abs), 0o755))
		must(t, os.WriteFile(abs, []byte(strings.NewReplacer("$HOME", home, "$REPO", repo).Replace(*s.Files[p])), 0o644))
	}
	for _, r := range s.Replace {
		abs := filepath.Join(repo, filepath.FromSlash(r.File))
		data, err := os.ReadFile(abs)
		must(t, err)
		if !strings.Contains(string(data), r.Old) {
			t.Fatalf("replace in %s: %q not found in:\n%s", r.File, r.Old, data)
		}
		must(t, os.WriteFile(abs, []byte(strings.Replace(string(data), r.Old, r.New, 1)), 0o644))
	}
	for p, text := range s.Append {
		abs := filepath.Join(repo, filepath.FromSlash(p))
		data, err := os.ReadFile(abs)
		must(t, err)
		must(t, os.WriteFile(abs, append(data, text...), 0o644))
	}
	for p, mode := range s.Chmod {
		m, err := strconv.ParseUint(mode, 8, 32)
		must(t, err)
		must(t, os.Chmod(filepath.Join(repo, filepath.FromSlash(p)), os.FileMode(m)))
	}
	for p, target := range s.Symlinks {
		abs := filepath.Join(repo, filepath.FromSlash(p))
		_ = os.Remove(abs)
		must(t, os.MkdirAll(filepath.Dir(abs), 0o755))
		must(t, os.Symlink(target, abs))
	}
	for p, text := range s.Home {
		abs := filepath.Join(home, filepath.FromSlash(p))
		must(t, os.MkdirAll(filepath.Dir(abs), 0o755))
		text = strings.NewReplacer("$HOME", home, "$REPO", repo).Replace(text)
		must(t, os.WriteFile(abs, []byte(text), 0o644))
	}
	if s.Plan != nil && s.Plan.Start != "" {
		must(t, os.MkdirAll(filepath.Join(repo, filepath.FromSlash(s.Plan.Start)), 0o755))
	}
	env := map[string]string{}
	for k, v := range s.Env {
		env[k] = strings.ReplaceAll(v, "$CASE", caseDir)
	}
	return repo, emptyEnv(home, env)
}

// caseDir returns the absolute path of testdata/audit/<name>.
func caseDir(name string) string {
	p, _ := filepath.Abs(filepath.Join("..", "..", "testdata", "audit", name))
	return p
}

func dirExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

func copyTree(t testing.TB, from, to string) {
	t.Helper()
	must(t, filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	}))
}

// TestFixtures replays every case under testdata/audit: the repository the
// case builds must give exactly the case's findings and exit codes.
func TestFixtures(t *testing.T) {
	cases := loadCases(t)
	for _, name := range slices.Sorted(maps.Keys(cases)) {
		c := cases[name]
		t.Run(name, func(t *testing.T) {
			repo, getenv := sharedCase(t, name)
			// The machine-wide files of a case live in its system/ (absent:
			// none), never the machine's own /etc.
			opts := Options{Getenv: getenv, Jobs: 1, Version: "test", SystemRoot: filepath.Join(caseDir(name), "system")}
			path := repo
			if p := c.Setup.Plan; p != nil {
				opts.Plan, opts.Workstation = true, p.Workstation
				if p.Start != "" {
					path = filepath.Join(repo, filepath.FromSlash(p.Start))
				}
			}
			rep, err := Audit(context.Background(), []string{path}, opts)
			if err != nil {
				t.Fatal(err)
			}
			res := rep.Repositories[0]
			if c.Setup.Plan != nil {
				if res.Plan == nil {
					t.Fatal("--plan gave no plan")
				}
				home := getenv("HOME")
				var skipped []string
				for _, cl := range res.Plan.Clients {
					for _, h := range cl.Hooks {
						if !h.Fires {
							file := strings.ReplaceAll(strings.ReplaceAll(h.File, home, "$HOME"), caseDir(name), "$CASE")
							skipped = append(skipped, strings.Join([]string{cl.Client, h.NativeEvent, file, h.ReasonID}, " "))
						}
					}
				}
				if diff := cmp.Diff(c.Skipped, skipped); diff != "" {
					t.Errorf("%s: handlers that do not fire differ (-want +got):\n%s", c.Description, diff)
				}
			}
			var got []wantFinding
			for _, f := range res.Findings {
				if f.Message == "" || len(f.Message) > 4096 || f.Fix == "" {
					t.Errorf("finding %s: empty or oversized message or fix: %+v", f.ID, f)
				}
				if _, ok := RuleByID(f.ID); !ok {
					t.Errorf("finding id %q is not a rule", f.ID)
				}
				w := wantFinding{ID: f.ID, Severity: f.Severity, File: f.File, Line: f.Line, Client: f.Client, Event: f.Event, Fix: strings.ReplaceAll(f.Fix, repo, "$REPO")}
				w.File = strings.ReplaceAll(w.File, caseDir(name), "$CASE")
				w.File = strings.ReplaceAll(w.File, getenv("HOME"), "$HOME")
				w.Fix = strings.ReplaceAll(w.Fix, getenv("HOME"), "$HOME")
				w.Fix = strings.ReplaceAll(w.Fix, caseDir(name), "$CASE")
				got = append(got, w)
			}
			want := make([]wantFinding, len(c.Findings))
			for i, w := range c.Findings {
				want[i] = w
				want[i].MessageHas = nil
			}
			if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b []wantFinding) bool { return cmp.Equal(nilEmpty(a), nilEmpty(b)) })); diff != "" {
				js, _ := json.MarshalIndent(got, "", "  ")
				t.Errorf("%s: findings differ (-want +got):\n%s\ngot:\n%s", c.Description, diff, js)
			}
			for i, w := range c.Findings {
				for _, s := range w.MessageHas {
					if i < len(res.Findings) && !strings.Contains(res.Findings[i].Message, s) {
						t.Errorf("finding %d (%s): message %q lacks %q", i, w.ID, res.Findings[i].Message, s)
					}
				}
			}
			if exit := exitOf(rep, false); exit != c.Exit {
				t.Errorf("exit %d, want %d", exit, c.Exit)
			}
			if exit := exitOf(rep, true); exit != c.ExitStrict {
				t.Errorf("exit with --strict %d, want %d", exit, c.ExitStrict)
			}
		})
	}
}

func nilEmpty(s []wantFinding) []wantFinding {
	if len(s) == 0 {
		return nil
	}
	return s
}

func exitOf(r *Report, strict bool) int {
	if r.Failed(strict) {
		return 1
	}
	return 0
}
