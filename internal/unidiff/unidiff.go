// Package unidiff renders the unified diffs hookwarden shows: adopt's and
// conform's --dry-run (each planned file against the disk), codex-trust's
// config.toml change, and compile-context --verify.
//
// Each line is shown with its bytes as they are, a carriage return included
// (as GNU diff -u and git show it), so a changed line ending is a visible
// change; a missing final newline is marked as diff(1) marks it ("\ No
// newline at end of file"), because a byte-preserving merge must show when
// it would add or drop one. The edit
// script is a longest common subsequence of the lines between the common
// prefix and suffix (a merge changes a few rows of a large file, so the
// middle is small); a middle too large for that (more than Cells line pairs)
// is shown as one hunk replacing it.
package unidiff

import (
	"fmt"
	"strings"
)

// Cells bounds the work of the line diff: the product of the line counts
// of the two middles (after the common prefix and suffix); beyond it the
// middle is shown as one hunk replacing it.
const Cells = 4_000_000

// Unified returns a unified diff (3 lines of context) from a to b, named
// aName and bName in the --- and +++ lines ("/dev/null" for a file that does
// not exist yet); "" when a and b are equal.
func Unified(aName, bName string, a, b []byte) string {
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
			sb.WriteString(strings.TrimSuffix(o.text, "\n"))
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

// lineOps returns an edit script from a to b: the common prefix and suffix
// as context, and between them middleOps.
func lineOps(a, b []string) []diffOp {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	ops := make([]diffOp, 0, len(a)+len(b)-pre-suf)
	for i := 0; i < pre; i++ {
		ops = append(ops, diffOp{' ', a[i], i, i})
	}
	ops = append(ops, middleOps(a[pre:len(a)-suf], b[pre:len(b)-suf], pre, pre)...)
	for k := 0; k < suf; k++ {
		i, j := len(a)-suf+k, len(b)-suf+k
		ops = append(ops, diffOp{' ', a[i], i, j})
	}
	return ops
}

// middleOps returns an edit script from a to b by longest common
// subsequence, or a full replacement when len(a)*len(b) exceeds Cells; offA
// and offB are the line positions of a[0] and b[0] in the whole files.
func middleOps(a, b []string, offA, offB int) []diffOp {
	var ops []diffOp
	if len(a)*len(b) > Cells {
		for i, l := range a {
			ops = append(ops, diffOp{'-', l, offA + i, offB})
		}
		for j, l := range b {
			ops = append(ops, diffOp{'+', l, offA + len(a), offB + j})
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
			ops = append(ops, diffOp{' ', a[i], offA + i, offB + j})
			i++
			j++
		case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, diffOp{'-', a[i], offA + i, offB + j})
			i++
		default:
			ops = append(ops, diffOp{'+', b[j], offA + i, offB + j})
			j++
		}
	}
	return ops
}
