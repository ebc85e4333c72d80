package agentcontext

import (
	"fmt"
	"strings"
)

// Finding is one file that is not up to date. Path is slash-separated and
// relative to the target directory; Problem is "missing", "stale" or
// "refused"; Reason is a human sentence; Diff is a unified diff from the file
// on disk to the planned content ("" for a refused file).
type Finding struct {
	Path    string `json:"path"`
	Problem string `json:"problem"`
	Reason  string `json:"reason"`
	Diff    string `json:"diff,omitempty"`
}

// Verify compares plan with the disk as Compile read it and returns one
// Finding per missing, stale or refused file; none means every file is up to
// date. It writes nothing.
func Verify(plan Plan) []Finding {
	var out []Finding
	for _, f := range plan.Files {
		switch f.Status {
		case StatusNew:
			out = append(out, Finding{Path: f.Path, Problem: "missing", Reason: f.Path + " does not exist",
				Diff: UnifiedDiff("/dev/null", "b/"+f.Path, nil, f.Bytes)})
		case StatusChanged:
			out = append(out, Finding{Path: f.Path, Problem: "stale", Reason: f.Path + " is out of date with its source",
				Diff: UnifiedDiff("a/"+f.Path, "b/"+f.Path, f.Current, f.Bytes)})
		case StatusRefused:
			out = append(out, Finding{Path: f.Path, Problem: "refused", Reason: f.Refusal})
		}
	}
	return out
}

// diffCells bounds the work of the line diff (lines(a) × lines(b)); beyond it
// the diff is one hunk replacing the whole file.
const diffCells = 4_000_000

// UnifiedDiff returns a unified diff (3 lines of context) from a to b, named
// aName and bName in the --- and +++ lines; "" when a and b are equal. Lines
// keep their own endings out of the diff; a missing final newline is marked
// as in diff(1).
func UnifiedDiff(aName, bName string, a, b []byte) string {
	if string(a) == string(b) {
		return ""
	}
	al, bl := diffLines(a), diffLines(b)
	ops := lineOps(al, bl)
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n", aName, bName)
	const ctxN = 3
	// group ops into hunks
	i := 0
	for i < len(ops) {
		for i < len(ops) && ops[i].kind == ' ' {
			i++
		}
		if i >= len(ops) {
			break
		}
		start := max(i-ctxN, 0)
		end := i
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].kind == ' ' {
				run++
			}
			if run == len(ops) || run-end > 2*ctxN {
				end = min(end+ctxN, len(ops))
				break
			}
			end = run
		}
		aStart, bStart, aN, bN := ops[start].a, ops[start].b, 0, 0
		for _, o := range ops[start:end] {
			if o.kind != '+' {
				aN++
			}
			if o.kind != '-' {
				bN++
			}
		}
		fmt.Fprintf(&sb, "@@ -%s +%s @@\n", hunkRange(aStart, aN), hunkRange(bStart, bN))
		for _, o := range ops[start:end] {
			sb.WriteByte(o.kind)
			sb.WriteString(strings.TrimSuffix(strings.TrimSuffix(o.text, "\n"), "\r"))
			sb.WriteByte('\n')
			if !strings.HasSuffix(o.text, "\n") {
				sb.WriteString("\\ No newline at end of file\n")
			}
		}
		i = end
	}
	return sb.String()
}

func hunkRange(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	if n == 1 {
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

type diffOp struct {
	kind byte // ' ', '-', '+'
	text string
	a, b int // 0-based line positions before this op
}

func diffLines(s []byte) []string {
	if len(s) == 0 {
		return nil
	}
	return strings.SplitAfter(string(s), "\n")[:strings.Count(string(s), "\n")+boolInt(!strings.HasSuffix(string(s), "\n"))]
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// lineOps returns an edit script from a to b by longest common subsequence,
// or a full replacement when the inputs are too large.
func lineOps(a, b []string) []diffOp {
	var ops []diffOp
	if len(a)*len(b) > diffCells {
		for i, l := range a {
			ops = append(ops, diffOp{'-', l, i, 0})
		}
		for j, l := range b {
			ops = append(ops, diffOp{'+', l, len(a), j})
		}
		return ops
	}
	n, m := len(a), len(b)
	lcs := make([][]int32, n+1)
	for i := range lcs {
		lcs[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			ops = append(ops, diffOp{' ', a[i], i, j})
			i++
			j++
		case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, diffOp{'-', a[i], i, j})
			i++
		default:
			ops = append(ops, diffOp{'+', b[j], i, j})
			j++
		}
	}
	return ops
}
