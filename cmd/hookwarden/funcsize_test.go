package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// Function size on the hook path and in the policy (issue 32 item 5: "no
// function over 80 lines or 40 branches"): a reader holds one judge at a
// time, so a function that grows past either bound is split by the rule
// family or step it implements.
const (
	maxFuncLines    = 80
	maxFuncBranches = 40
)

// hookPathDirs are the folders whose non-test Go files the bound applies
// to: the policy, the settings, the protocol and the live hook path
// (engine/ without the real-client harness, engine/conformance).
var hookPathDirs = []string{"policy", "settings", "protocol", "engine"}

// funcSizes returns, for every function and method declared in the
// non-test Go files under the hook-path folders of root, "path name: N
// lines, M branches" when it is over either bound. Branches are if, for,
// range, case and select-case clauses, and && and || operators.
func funcSizes(root string) ([]string, error) {
	fset := token.NewFileSet()
	var over []string
	for _, dir := range hookPathDirs {
		err := filepath.WalkDir(filepath.Join(root, dir), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "conformance" && filepath.Base(filepath.Dir(p)) == "engine" {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return nil
			}
			f, err := parser.ParseFile(fset, p, nil, 0)
			if err != nil {
				return err
			}
			for _, decl := range f.Decls {
				fd, ok := decl.(*ast.FuncDecl)
				if !ok || fd.Body == nil {
					continue
				}
				lines := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1
				branches := 0
				ast.Inspect(fd.Body, func(n ast.Node) bool {
					switch x := n.(type) {
					case *ast.IfStmt, *ast.ForStmt, *ast.RangeStmt, *ast.CaseClause, *ast.CommClause:
						branches++
					case *ast.BinaryExpr:
						if x.Op == token.LAND || x.Op == token.LOR {
							branches++
						}
					}
					return true
				})
				if lines > maxFuncLines || branches > maxFuncBranches {
					rel, _ := filepath.Rel(root, p)
					over = append(over, fmt.Sprintf("%s %s: %d lines, %d branches", filepath.ToSlash(rel), fd.Name.Name, lines, branches))
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return over, nil
}

// TestHookPathFunctionSize fails for every function on the hook path or in
// the policy over maxFuncLines lines or maxFuncBranches branches.
func TestHookPathFunctionSize(t *testing.T) {
	over, err := funcSizes(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range over {
		t.Errorf("%s (at most %d lines and %d branches: split it by the rule family or step it implements)", o, maxFuncLines, maxFuncBranches)
	}
}
