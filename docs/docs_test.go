// Package docs holds the reference pages README.md links to. Its test runs
// every command example in README.md and docs/*.md against the hookwarden
// binary built from this checkout, the way docs/README.md ("How examples
// are written") says, so a changed flag, output line, row count or path
// fails the test suite.
package docs

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hookwarden/hookwarden/internal/testbin"
	"github.com/rogpeppe/go-internal/testscript"
)

// maxREADMELines is the longest README.md may grow (docs/README.md).
const maxREADMELines = 300

// example is one runnable block of a page: a ```console command with the
// output printed under it, or a whole ```sh block.
type example struct {
	page     string // path relative to the module root
	line     int    // 1-based line of the command (console) or fence (sh)
	script   string // what sh -c runs
	want     []string
	exit     int
	checkOut bool // console: compare the output
}

// skipped is a block marked <!-- docs-test: skip REASON -->.
type skipped struct {
	page   string
	line   int
	reason string
}

var (
	fenceRe   = regexp.MustCompile("^ {0,3}```\\s*([A-Za-z0-9_+-]*)")
	skipRe    = regexp.MustCompile(`^<!-- docs-test: skip (\S.*\S) -->$`)
	exitRe    = regexp.MustCompile(`#\s*exit\s+([0-9]+)\s*$`)
	cdRe      = regexp.MustCompile(`^cd\s+(\S+)$`)
	runnable  = []string{"console", "sh"}
	elisionLn = "..."
)

// TestREADMELength: the front door stays readable in five minutes.
func TestREADMELength(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n"); n > maxREADMELines {
		t.Errorf("README.md has %d lines, at most %d: move reference material into a docs/ page and link it", n, maxREADMELines)
	}
}

// TestExamples runs every runnable block of README.md and docs/*.md, one
// testscript script per page, in the sandbox docs/README.md describes.
func TestExamples(t *testing.T) {
	pages, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	pages = append([]string{"../README.md"}, pages...)
	byPage := map[string][]example{}
	var skips []skipped
	dir := t.TempDir()
	var files []string
	total := 0
	for _, page := range pages {
		exs, sk, err := parsePage(page)
		if err != nil {
			t.Fatal(err)
		}
		skips = append(skips, sk...)
		if len(exs) == 0 {
			continue
		}
		name := strings.TrimSuffix(filepath.Base(page), ".md")
		byPage[name] = exs
		total += len(exs)
		var s strings.Builder
		for i, ex := range exs {
			fmt.Fprintf(&s, "# %s:%d\ndoc %s %d\n", ex.page, ex.line, name, i)
		}
		f := filepath.Join(dir, name+".txtar")
		if err := os.WriteFile(f, []byte(s.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	t.Logf("%d examples run, %d blocks skipped", total, len(skips))
	for _, s := range skips {
		t.Logf("skipped %s:%d: %s", s.page, s.line, s.reason)
	}
	if len(files) == 0 {
		return
	}
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("HOOKWARDEN_E2E") == "require" {
			t.Fatal("git is required (HOOKWARDEN_E2E=require)")
		}
		t.Skip("skipping the docs examples: they run in a git repository and git is not on PATH")
	}
	bin := testbin.Hookwarden(t)
	proxy := testbin.MCPProxy(t)
	testscript.Run(t, testscript.Params{
		Files: files,
		Setup: func(env *testscript.Env) error { return sandbox(env, bin, proxy) },
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"doc": func(ts *testscript.TestScript, neg bool, args []string) {
				i, _ := strconv.Atoi(args[1])
				run(ts, byPage[args[0]][i])
			},
		},
	})
}

// sandbox makes the page's world: HOME a fresh directory holding repo/, a
// git repository with one commit, and go/bin/ with the built binaries;
// PATH that directory first, then the test's own PATH; git identity and NO_COLOR set; the working directory
// ~/repo.
func sandbox(env *testscript.Env, bin, proxy string) error {
	home := filepath.Join(env.WorkDir, "home")
	repo := filepath.Join(home, "repo")
	binDir := filepath.Join(home, "go", "bin")
	for _, d := range []string{repo, binDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	for _, b := range []string{bin, proxy} {
		if err := os.Symlink(b, filepath.Join(binDir, filepath.Base(b))); err != nil {
			return err
		}
	}
	gitcfg := filepath.Join(home, ".gitconfig")
	if err := os.WriteFile(gitcfg, []byte("[user]\n\tname = Docs Example\n\temail = docs@example.invalid\n[init]\n\tdefaultBranch = main\n"), 0o644); err != nil {
		return err
	}
	vars := []string{"HOME=" + home, "PATH=" + binDir + string(os.PathListSeparator) + os.Getenv("PATH"),
		"GIT_CONFIG_GLOBAL=" + gitcfg, "GIT_CONFIG_NOSYSTEM=1", "NO_COLOR=1", "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"), "CODEX_HOME=" + filepath.Join(home, ".codex"),
		"GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z", "TZ=UTC", "LC_ALL=C"}
	if err := os.WriteFile(filepath.Join(repo, "README.md"), []byte("# repo\n"), 0o644); err != nil {
		return err
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "README.md"}, {"commit", "-q", "-m", "first"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = repo, vars
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %v: %w\n%s", args, err, out)
		}
	}
	env.Vars = append(env.Vars, vars...)
	env.Cd = repo
	return nil
}

// run executes one example in ts and compares its exit code and output.
func run(ts *testscript.TestScript, ex example) {
	if m := cdRe.FindStringSubmatch(ex.script); m != nil && ex.checkOut {
		d := m[1]
		if d == "~" || strings.HasPrefix(d, "~/") {
			d = ts.Getenv("HOME") + d[1:]
		}
		ts.Check(ts.Chdir(d))
		return
	}
	script := "exec 2>&1\n" + ex.script
	if !ex.checkOut {
		script = "set -e\n" + script
	}
	err := ts.Exec("sh", "-c", script)
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		ts.Fatalf("%s:%d: %v", ex.page, ex.line, err)
	}
	if code != ex.exit {
		ts.Fatalf("%s:%d: exit %d, the page says %d", ex.page, ex.line, code, ex.exit)
	}
	if !ex.checkOut {
		return
	}
	got := strings.ReplaceAll(ts.ReadFile("stdout"), ts.Getenv("HOME"), "~")
	if msg := match(ex.want, lines(got)); msg != "" {
		ts.Fatalf("%s:%d: the output differs from the page: %s\n--- page\n%s\n--- got\n%s", ex.page, ex.line, msg,
			strings.Join(ex.want, "\n"), got)
	}
}

// lines splits s into lines without their trailing spaces; a final
// newline ends the last line rather than starting another.
func lines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	out := strings.Split(s, "\n")
	for i := range out {
		out[i] = strings.TrimRight(out[i], " \t\r")
	}
	return out
}

// match compares got with want, where a want line "..." stands for any
// number of lines; it returns "" on a match, else what differed.
func match(want, got []string) string {
	if matchFrom(want, got) {
		return ""
	}
	for i, w := range want {
		if w == elisionLn {
			return "from line " + strconv.Itoa(i+1) + " of the printed output (after an elision)"
		}
		if i >= len(got) {
			return fmt.Sprintf("line %d: the page prints %q, the command printed nothing more", i+1, w)
		}
		if w != got[i] {
			return fmt.Sprintf("line %d: the page prints %q, the command printed %q", i+1, w, got[i])
		}
	}
	return fmt.Sprintf("the command printed %d more lines, from %q", len(got)-len(want), got[len(want)])
}

func matchFrom(want, got []string) bool {
	if len(want) == 0 {
		return len(got) == 0
	}
	if want[0] == elisionLn {
		for k := 0; k <= len(got); k++ {
			if matchFrom(want[1:], got[k:]) {
				return true
			}
		}
		return false
	}
	return len(got) > 0 && got[0] == want[0] && matchFrom(want[1:], got[1:])
}

// parsePage returns the runnable blocks of one Markdown page and the ones
// marked skipped; an error for an unclosed fence, a console block without
// a command, or a skip marker without a reason.
func parsePage(page string) ([]example, []skipped, error) {
	f, err := os.Open(page)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	rel := strings.TrimPrefix(filepath.ToSlash(filepath.Join("docs", page)), "README.md")
	if page == "../README.md" {
		rel = "README.md"
	}
	var (
		exs   []example
		skips []skipped
		prev  string // the last non-blank line before a fence
		body  []string
		lang  string
		start int
		in    bool
	)
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		ln := sc.Text()
		if !in {
			if m := fenceRe.FindStringSubmatch(ln); m != nil {
				in, lang, start, body = true, m[1], n, nil
				continue
			}
			if strings.TrimSpace(ln) != "" {
				prev = strings.TrimSpace(ln)
			}
			continue
		}
		if strings.TrimSpace(ln) != "```" {
			body = append(body, ln)
			continue
		}
		in = false
		if !slices.Contains(runnable, lang) {
			prev = ""
			continue
		}
		if strings.HasPrefix(prev, "<!-- docs-test: skip") {
			m := skipRe.FindStringSubmatch(prev)
			if m == nil {
				return nil, nil, fmt.Errorf("%s:%d: a skip marker needs a reason: <!-- docs-test: skip REASON -->", rel, start)
			}
			skips = append(skips, skipped{rel, start, m[1]})
			prev = ""
			continue
		}
		prev = ""
		if lang == "sh" {
			exs = append(exs, example{page: rel, line: start, script: strings.Join(body, "\n")})
			continue
		}
		cs, err := consoleExamples(rel, start, body)
		if err != nil {
			return nil, nil, err
		}
		exs = append(exs, cs...)
	}
	if err := sc.Err(); err != nil {
		return nil, nil, err
	}
	if in {
		return nil, nil, fmt.Errorf("%s:%d: a fence is not closed", rel, start)
	}
	return exs, skips, nil
}

// consoleExamples splits a console block into its commands: a line
// starting "$ " is a command (continued while it ends in a backslash), the
// lines after it up to the next command are its output.
func consoleExamples(page string, fence int, body []string) ([]example, error) {
	var exs []example
	for i := 0; i < len(body); i++ {
		ln := body[i]
		if !strings.HasPrefix(ln, "$ ") {
			if len(exs) == 0 {
				return nil, fmt.Errorf("%s:%d: a console block starts with a command line (\"$ …\"), not %q", page, fence+1+i, ln)
			}
			exs[len(exs)-1].want = append(exs[len(exs)-1].want, strings.TrimRight(ln, " \t"))
			continue
		}
		ex := example{page: page, line: fence + 1 + i, checkOut: true}
		cmd := strings.TrimPrefix(ln, "$ ")
		for strings.HasSuffix(cmd, "\\") && i+1 < len(body) {
			i++
			cmd += "\n" + body[i]
		}
		if m := exitRe.FindStringSubmatch(cmd); m != nil {
			ex.exit, _ = strconv.Atoi(m[1])
		}
		ex.script = cmd
		exs = append(exs, ex)
	}
	if len(exs) == 0 {
		return nil, fmt.Errorf("%s:%d: an empty console block", page, fence)
	}
	return exs, nil
}

// TestCIRunsTheTestCommand: .ci/run runs the test command README.md names
// (the first line of the sh block under "## Tests"), a -timeout flag aside.
func TestCIRunsTheTestCommand(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(readme), "\n## Tests\n")
	if !ok {
		t.Fatal("README.md has no \"## Tests\" section")
	}
	_, block, ok := strings.Cut(after, "```sh\n")
	if !ok {
		t.Fatal("README.md \"## Tests\" has no sh block naming the test command")
	}
	want, _, _ := strings.Cut(block, "\n")
	ci, err := os.ReadFile("../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	timeout := regexp.MustCompile(` -timeout[= ]\S+`)
	for _, ln := range strings.Split(string(ci), "\n") {
		if timeout.ReplaceAllString(strings.TrimSpace(ln), "") == want {
			return
		}
	}
	t.Errorf(".ci/run does not run README.md's test command %q", want)
}

// linkRe matches a Markdown link's target; codeRe a fenced block or an
// inline code span, which hold no links.
var (
	linkRe = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	codeRe = regexp.MustCompile("(?s)```.*?```|`[^`\n]*`")
)

// TestLinks: every relative link in README.md and docs/*.md names a file
// that exists, so a moved or renamed page fails the test suite.
func TestLinks(t *testing.T) {
	pages, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, page := range append([]string{"../README.md"}, pages...) {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range linkRe.FindAllStringSubmatch(codeRe.ReplaceAllString(string(b), ""), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "#") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			target, _, _ = strings.Cut(target, "#")
			if _, err := os.Stat(filepath.Join(filepath.Dir(page), filepath.FromSlash(target))); err != nil {
				t.Errorf("%s links %s, which does not exist", page, m[1])
			}
		}
	}
}
