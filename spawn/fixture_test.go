package spawn

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/hookwarden/hookwarden/internal/posixtest"
)

// fixtureCase is testdata/spawn/refusals/<case>/case.json.
type fixtureCase struct {
	Engine           string       `json:"engine"`
	Argv             []string     `json:"argv"`
	Reason           Reason       `json:"reason"`
	Why              string       `json:"why"`
	Mode             string       `json:"mode"` // "" (exec) or "compile"
	Profile          string       `json:"profile"`
	Operator         string       `json:"operator"`
	Requirement      string       `json:"requirement"`
	Cwd              string       `json:"cwd"`
	ApproveAll       *bool        `json:"approve_all"`
	NoEngine         bool         `json:"no_engine"`
	VersionOutput    string       `json:"version_output"`
	After            fixtureAfter `json:"after"`
	RunID            string       `json:"run_id"`
	RequirementEmpty bool         `json:"requirement_empty"`
	Env              []string     `json:"env"` // KEY=VALUE added to the call's environment
	// Tables "full-redaction" replaces the shipped capability tables with
	// one granting every capability the redaction entry needs, so a case
	// reaches the entry's runtime refusals.
	Tables string `json:"tables"`
}

// fixtureAfter is what a case does to its world after approving: files
// written, modes changed, FIFOs made in place of files (a compile must
// refuse them at once, never wait for a writer), symbolic links made
// (link path -> target, $WORK replaced) and files padded with trailing
// spaces to a size (valid JSON past the read bound).
type fixtureAfter struct {
	Write   map[string]string `json:"write"`
	Chmod   map[string]string `json:"chmod"`
	Mkfifo  []string          `json:"mkfifo"`
	Symlink map[string]string `json:"symlink"`
	Pad     map[string]int    `json:"pad"`
	Mkdir   map[string]string `json:"mkdir"` // path -> octal mode
	Chown   map[string]int    `json:"chown"` // path -> uid (the test runs as root in CI)
}

// world is one materialised fixture: a work dir holding home/, repo/ (a
// git work tree), engine/ (fake claude and codex that log each real start
// to started.log) and the case's other files.
type world struct {
	work, home, repo, engineDir, startLog string
}

var shaPlaceholder = regexp.MustCompile(`\{\{sha256:([^}]+)\}\}`)

// fakeEngine writes a fake engine script: `--version` prints versionOut,
// anything else appends its argv and HOOKWARDEN_HOOKS_REQUIREMENT to the
// start log, then exits with $FAKE_EXIT (default 0).
func fakeEngine(t testing.TB, dir, name, versionOut, startLog string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	script := "#!/bin/sh\nif [ \"$1\" = \"--version\" ]; then echo " + shq(versionOut) + "; exit 0; fi\n" +
		"printf '%s\\n' \"start $*\" \"requirement=${HOOKWARDEN_HOOKS_REQUIREMENT-unset}\" >> " + shq(startLog) + "\n" +
		"exit ${FAKE_EXIT:-0}\n"
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func shq(s string) string { return ShellQuote([]string{s}) }

func defaultVersion(engine string) string {
	if engine == "codex" {
		return "codex-cli 0.169.0"
	}
	return "2.1.328 (Claude Code)"
}

// materialise copies src (a fixture dir) into a fresh work dir, replacing
// $HOME, $REPO and $WORK in every file and then {{sha256:<home-relative
// path>}} with that file's digest; dirs get 0755, files 0644, files under
// bin/ 0755, the home 0700.
func materialise(t testing.TB, src string) *world {
	t.Helper()
	work := runTempDir(t)
	w := &world{work: work, home: filepath.Join(work, "home"), repo: filepath.Join(work, "repo"),
		engineDir: filepath.Join(work, "engine"), startLog: filepath.Join(work, "started.log")}
	repl := strings.NewReplacer("$HOME", w.home, "$REPO", w.repo, "$WORK", work)
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if rel == "case.json" {
			return nil
		}
		dst := filepath.Join(work, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		mode := os.FileMode(0o644)
		if strings.Contains(filepath.ToSlash(rel), "/bin/") {
			mode = 0o755
		}
		return os.WriteFile(dst, []byte(repl.Replace(string(b))), mode)
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{w.home, filepath.Join(w.repo, ".git"), w.engineDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(w.home, 0o700); err != nil {
		t.Fatal(err)
	}
	// second pass: digests of home files
	_ = filepath.WalkDir(w.home, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".json") {
			return err
		}
		b, _ := os.ReadFile(p)
		out := shaPlaceholder.ReplaceAllFunc(b, func(m []byte) []byte {
			rel := string(shaPlaceholder.FindSubmatch(m)[1])
			data, err := os.ReadFile(filepath.Join(w.home, rel))
			if err != nil {
				t.Fatalf("fixture %s: %v", src, err)
			}
			sum := sha256.Sum256(data)
			return []byte(hex.EncodeToString(sum[:]))
		})
		if !bytes.Equal(out, b) {
			return os.WriteFile(p, out, 0o644)
		}
		return nil
	})
	return w
}

func (w *world) started(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(w.startLog)
	if os.IsNotExist(err) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// runFiles lists <home>/run/hooks (nil when absent).
func (w *world) runFiles(t *testing.T) []string {
	t.Helper()
	es, err := os.ReadDir(filepath.Join(w.home, RunHooksDir))
	if os.IsNotExist(err) || errors.Is(err, syscall.ENOTDIR) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

func (w *world) approveAll(t testing.TB, profile, operator string) {
	t.Helper()
	rows, err := TrustList(w.home, profile, operator)
	if err != nil {
		t.Fatalf("trust list: %v", err)
	}
	var argvs [][]string
	for _, r := range rows {
		if r.Argv != nil {
			argvs = append(argvs, r.Argv)
		}
	}
	if len(argvs) > 0 {
		if err := Approve(w.home, argvs); err != nil {
			t.Fatalf("approve: %v", err)
		}
	}
}

func (w *world) env(extra ...string) []string {
	return append([]string{"PATH=" + w.engineDir + ":/usr/bin:/bin"}, extra...)
}

func loadCase(t *testing.T, dir string) fixtureCase {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "case.json"))
	if err != nil {
		t.Fatal(err)
	}
	var c fixtureCase
	if err := decodeStrict(b, &c); err != nil {
		t.Fatalf("%s/case.json: %v", dir, err)
	}
	return c
}

// TestRefusalFixtures replays testdata/spawn/refusals: each case must
// refuse with its typed reason, start no engine process (the fake engine's
// start log stays empty; the --version probe is not a start) and leave
// <home>/run/hooks empty.
func TestRefusalFixtures(t *testing.T) {
	root := filepath.Join("..", "testdata", "spawn", "refusals")
	dirs, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) < 40 {
		t.Fatalf("only %d refusal fixtures", len(dirs))
	}
	for _, d := range dirs {
		dir := filepath.Join(root, d.Name())
		t.Run(d.Name(), func(t *testing.T) {
			c := loadCase(t, dir)
			w := materialise(t, dir)
			repl := strings.NewReplacer("$HOME", w.home, "$REPO", w.repo, "$WORK", w.work)
			vout := c.VersionOutput
			if vout == "" {
				vout = defaultVersion(c.Engine)
			}
			var bin string
			if !c.NoEngine {
				for _, e := range []string{"claude", "codex", "gemini", "pi"} {
					p := fakeEngine(t, w.engineDir, e, vout, w.startLog)
					if e == c.Engine {
						bin = p
					}
				}
			}
			opt := func(p string) string {
				if p == "" {
					return ""
				}
				return filepath.Join(w.work, p)
			}
			if c.ApproveAll == nil || *c.ApproveAll {
				w.approveAll(t, opt(c.Profile), opt(c.Operator))
			}
			for rel, body := range c.After.Write {
				if err := os.WriteFile(filepath.Join(w.work, rel), []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for _, rel := range c.After.Mkfifo {
				p := filepath.Join(w.work, rel)
				if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
					t.Fatal(err)
				}
				posixtest.Mkfifo(t, p, 0o600)
			}
			for rel, target := range c.After.Symlink {
				if err := os.Symlink(repl.Replace(target), filepath.Join(w.work, rel)); err != nil {
					t.Fatal(err)
				}
			}
			for rel, size := range c.After.Pad {
				f, err := os.OpenFile(filepath.Join(w.work, rel), os.O_WRONLY|os.O_APPEND, 0)
				if err != nil {
					t.Fatal(err)
				}
				fi, _ := f.Stat()
				if _, err := f.Write(bytes.Repeat([]byte(" "), size-int(fi.Size()))); err != nil {
					t.Fatal(err)
				}
				f.Close()
			}
			for rel, mode := range c.After.Mkdir {
				m, _ := strconv.ParseUint(mode, 8, 32)
				if err := os.MkdirAll(filepath.Join(w.work, rel), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(filepath.Join(w.work, rel), os.FileMode(m)); err != nil {
					t.Fatal(err)
				}
			}
			for rel, uid := range c.After.Chown {
				if os.Geteuid() != 0 {
					t.Fatalf("this fixture changes an owner and needs root (CI runs as root)")
				}
				if err := os.Chown(filepath.Join(w.work, rel), uid, -1); err != nil {
					t.Fatal(err)
				}
			}
			for rel, mode := range c.After.Chmod {
				m, _ := strconv.ParseUint(mode, 8, 32)
				if err := os.Chmod(filepath.Join(w.work, rel), os.FileMode(m)); err != nil {
					t.Fatal(err)
				}
			}
			extra := append([]string(nil), c.Env...)
			if c.Requirement != "" || c.RequirementEmpty {
				extra = append(extra, EnvRequirement+"="+repl.Replace(c.Requirement))
			}
			cwd := w.repo
			if c.Cwd != "" {
				cwd = filepath.Join(w.work, c.Cwd)
			}
			before := w.runFiles(t)
			if c.RunID == "" && len(before) != 0 {
				t.Fatalf("fixture starts with run files %v", before)
			}
			var code int
			if c.Mode == "compile" {
				_, err = Compile(context.Background(), Options{Engine: c.Engine, Binary: bin, Cwd: cwd, Home: w.home,
					RequirementPath: getenvFrom(w.env(extra...), EnvRequirement), ProfilePath: opt(c.Profile), OperatorPath: opt(c.Operator)})
				code = RefusedExit
			} else {
				argv := make([]string, len(c.Argv))
				for i, a := range c.Argv {
					argv[i] = repl.Replace(a)
				}
				var out, errb bytes.Buffer
				eo := ExecOptions{Argv: argv, Home: w.home, Cwd: cwd, Env: w.env(extra...),
					ProfilePath: opt(c.Profile), OperatorPath: opt(c.Operator), Stdout: &out, Stderr: &errb, runID: c.RunID}
				switch c.Tables {
				case "":
				case "full-redaction":
					eo.Tables = fullRedactionTable(c.Engine, map[string]string{"claude": "2.1.328", "codex": "0.169.0"}[c.Engine])
					eo.Gateway = mcpProxyBin(t)
				default:
					t.Fatalf("tables %q: want \"\" or full-redaction", c.Tables)
				}
				code, err = Exec(context.Background(), eo)
			}
			r := AsRefusal(err)
			if r == nil {
				t.Fatalf("want refusal %s (%s), got code %d err %v", c.Reason, c.Why, code, err)
			}
			if r.Reason != c.Reason {
				t.Fatalf("reason = %s (%s), want %s (%s)", r.Reason, r.Detail, c.Reason, c.Why)
			}
			if code != RefusedExit {
				t.Errorf("exit code %d, want %d", code, RefusedExit)
			}
			if s := w.started(t); s != "" {
				t.Errorf("an engine process started:\n%s", s)
			}
			if f := w.runFiles(t); !slices.Equal(f, before) {
				t.Errorf("run/hooks changed: %v, before %v", f, before)
			}
			if len(r.Error()) > 4096 {
				t.Errorf("reason longer than 4096 bytes")
			}
		})
	}
}

// TestFixtureBaseRuns is the control for the refusal fixtures: the shared
// base home (approved, pinned, required guard) runs the fake engine for
// both engines with the rendered flags appended, and the run file is gone
// after it exits; so does Claude with a home that is itself a Git
// repository (a .git in it), since no redaction entry is attached (ADR-0134
// A9's control: the work-tree rule applies only under the entry).
func TestFixtureBaseRuns(t *testing.T) {
	dir := filepath.Join("..", "testdata", "spawn", "base")
	for _, name := range []string{"claude", "codex", "claude home-repository"} {
		engine, homeRepo := strings.CutSuffix(name, " home-repository")
		t.Run(name, func(t *testing.T) {
			w := materialise(t, dir)
			if homeRepo {
				if err := os.Mkdir(filepath.Join(w.home, ".git"), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			fakeEngine(t, w.engineDir, engine, defaultVersion(engine), w.startLog)
			w.approveAll(t, "", "")
			var seen []string
			code, err := Exec(context.Background(), ExecOptions{Argv: []string{engine, map[string]string{"claude": "-p", "codex": "exec"}[engine], "hi"}, Home: w.home, Cwd: w.repo,
				Env: w.env("FAKE_EXIT=7"), Started: func(r *Render, argv []string) {
					seen = argv
					for _, f := range r.Files {
						if _, err := os.Stat(f); err != nil {
							t.Errorf("run file %s missing while the engine runs: %v", f, err)
						}
					}
				}})
			if err != nil || code != 7 {
				t.Fatalf("code %d err %v, want the engine's 7", code, err)
			}
			log := w.started(t)
			if !strings.Contains(log, "start "+seen[1]+" hi") {
				t.Fatalf("engine not started with the caller's args: %q", log)
			}
			joined := strings.Join(seen, " ")
			want := map[string]string{"claude": "--setting-sources  --strict-mcp-config --settings " + filepath.Join(w.home, RunHooksDir), "codex": "--ignore-user-config -c hooks={PreToolUse="}[engine]
			if !strings.Contains(joined, want) {
				t.Errorf("child argv %q lacks %q", joined, want)
			}
			if strings.Contains(joined, "dangerously") {
				t.Errorf("child argv carries a bypass flag: %q", joined)
			}
			if !strings.Contains(log, "requirement=unset") {
				t.Errorf("HOOKWARDEN_HOOKS_REQUIREMENT set without a requirement: %q", log)
			}
			if f := w.runFiles(t); len(f) != 0 {
				t.Errorf("run/hooks not empty after the engine exited: %v", f)
			}
		})
	}
}

// readJSON is a test helper decoding the file at p into v.
func readJSON(t *testing.T, p string, v any) {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", p, err)
	}
}
