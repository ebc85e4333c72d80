package docs

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hookwarden/hookwarden/tools/perfdoc/region"
)

// ourIssue matches a mention of an issue by number ("issue 28", "Issue 19",
// "issues 20"); upstreamRef an upstream citation (owner/repo, a repository
// name before "issue", or a pull), which may stand on the line before the
// number it cites.
var (
	ourIssue    = regexp.MustCompile(`(?i)(^|[^\w/#.-])issues? #?[0-9]+\b`)
	upstreamRef = regexp.MustCompile(`[\w.-]+/[\w.-]+|\b[\w.-]+ issues? [0-9]|\bpull [0-9]`)
	loadAverage = regexp.MustCompile(`(?i)load average`)
)

// TestNoTrackerNumbersInProse: README.md and the docs pages speak to users,
// who have no access to our tracker: no "issue N" of ours (a client's
// upstream issue, cited with its owner/repo, is a source and stays), and no
// load averages (figures and the conditions they were measured under live in
// docs/performance.md, with their command and date).
func TestNoTrackerNumbersInProse(t *testing.T) {
	pages, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	pages = append(pages, filepath.Join("..", "README.md"))
	for _, p := range pages {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(b), "\n")
		for i, l := range lines {
			prev := ""
			if i > 0 {
				prev = lines[i-1]
			}
			if ourIssue.MatchString(l) && !upstreamRef.MatchString(l) && !upstreamRef.MatchString(prev) {
				t.Errorf("%s:%d: an issue number of ours in prose (say what it means instead): %s", p, i+1, l)
			}
			if filepath.Base(p) != "performance.md" && loadAverage.MatchString(l) {
				t.Errorf("%s:%d: a load average in prose (figures live in docs/performance.md): %s", p, i+1, l)
			}
		}
	}
}

// TestNoTrackerNumbersInOutput: no string literal of the product's Go code
// (test files and comments aside) mentions an issue of ours or a path under
// ../shared/ (the development checkout's reference folder): such strings
// reach users in messages, rendered files and reports.
func TestNoTrackerNumbersInOutput(t *testing.T) {
	root := ".."
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); n == "testdata" || n == "node_modules" || (strings.HasPrefix(n, ".") && path != root) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				return true
			}
			for _, l := range strings.Split(s, "\n") {
				if ourIssue.MatchString(l) && !upstreamRef.MatchString(l) {
					t.Errorf("%s: a string names an issue of ours: %q", fset.Position(lit.Pos()), l)
				}
				if strings.Contains(l, "../shared/") {
					t.Errorf("%s: a string points users at ../shared/, which only this project's developers have: %q", fset.Position(lit.Pos()), l)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestPerformanceFiguresWrittenByTheTool: the current figures of
// docs/performance.md are perfdoc regions, each a table the benchmark
// tooling wrote (`go run ./tools/perfdoc docs/performance.md`) with the
// command that made it; a figure changed by hand no longer matches the hash
// its region records, and fails here.
func TestPerformanceFiguresWrittenByTheTool(t *testing.T) {
	b, err := os.ReadFile("performance.md")
	if err != nil {
		t.Fatal(err)
	}
	regions, err := region.Regions(b)
	if err != nil {
		t.Fatalf("performance.md: %v", err)
	}
	if len(regions) < 4 {
		t.Errorf("performance.md has %d perfdoc regions; the current figures (hook process, evaluator, gateway, audit) are each one", len(regions))
	}
	if err := region.Check(b); err != nil {
		t.Errorf("performance.md: %v", err)
	}
}
