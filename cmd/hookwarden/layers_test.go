package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// pictureStart and pictureEnd mark the generated picture of the layers in
// docs/architecture.md.
const (
	pictureStart = "<!-- layer-picture: written by TestLayerPicture (HOOKWARDEN_UPDATE_PICTURE=1 rewrites it) -->"
	pictureEnd   = "<!-- /layer-picture -->"
)

// layerPicture renders the house as a table, one row per layer of
// layerOrder top to bottom: its folders and the lower layers its packages
// import directly (edges, a folder name each, in layer order). A layer
// importing one above it is TestImportGraph's failure, so every edge here
// points down. Sizes are left out: they change with every edit.
func layerPicture(edges map[string]map[string]bool) string {
	var b strings.Builder
	b.WriteString("| layer | imports directly |\n|---|---|\n")
	for _, layer := range layerOrder {
		var to []string
		for _, dir := range layer {
			for d := range edges[dir] {
				if !slices.Contains(layer, d) && !slices.Contains(to, d) {
					to = append(to, d)
				}
			}
		}
		slices.SortFunc(to, func(a, b string) int {
			if d := layerIndex(a) - layerIndex(b); d != 0 {
				return d
			}
			return strings.Compare(a, b)
		})
		imp := strings.Join(to, ", ")
		if imp == "" {
			imp = "(none of ours)"
		}
		fmt.Fprintf(&b, "| %s | %s |\n", strings.Join(layer, ", "), imp)
	}
	return b.String()
}

// layerIndex is folder's position in layerOrder (-1 when it is in none).
func layerIndex(folder string) int {
	for i, layer := range layerOrder {
		if slices.Contains(layer, folder) {
			return i
		}
	}
	return -1
}

// goLines counts the lines of the non-test Go files below root, by
// top-level folder, testdata folders left out.
func goLines(root string) (map[string]int, error) {
	out := map[string]int{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || (p != root && strings.HasPrefix(d.Name(), "."))) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		top := strings.Split(filepath.ToSlash(rel), "/")[0]
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			out[top]++
		}
		return sc.Err()
	})
	return out, err
}

// TestLayerPicture keeps the picture of the house in docs/architecture.md
// true: the layers top to bottom and the layers each imports directly, from
// the module's real import graph (go list's Imports, test files excluded).
// It also holds issue 32's bound that the live hook path (engine/) stays
// under a fifth of the lines of Go outside tests. Run with
// HOOKWARDEN_UPDATE_PICTURE=1 to rewrite the picture after a change of the
// graph.
func TestLayerPicture(t *testing.T) {
	const mod = "github.com/hookwarden/hookwarden/"
	root := filepath.Join("..", "..")
	cmd := exec.Command("go", "list", "-e", "-json=ImportPath,Imports", "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list ./...: %v", err)
	}
	edges := map[string]map[string]bool{}
	for dec := json.NewDecoder(bytes.NewReader(out)); dec.More(); {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatalf("go list -json: %v", err)
		}
		from := strings.Split(strings.TrimPrefix(p.ImportPath, mod), "/")[0]
		for _, imp := range p.Imports {
			if dep, ok := strings.CutPrefix(imp, mod); ok {
				if edges[from] == nil {
					edges[from] = map[string]bool{}
				}
				edges[from][strings.Split(dep, "/")[0]] = true
			}
		}
	}
	lines, err := goLines(root)
	if err != nil {
		t.Fatal(err)
	}
	for dir := range lines {
		if layerIndex(dir) < 0 && dir != "" && !strings.HasSuffix(dir, ".go") {
			t.Errorf("folder %s holds Go code but is in no layer", dir)
		}
	}
	picture := layerPicture(edges)
	total := 0
	for _, n := range lines {
		total += n
	}
	if share := float64(lines["engine"]) / float64(total); share >= 0.2 {
		t.Errorf("engine/ holds %.1f%% of the code; issue 32 keeps the live hook path under 20%%", 100*share)
	}
	docPath := filepath.Join(root, "docs", "architecture.md")
	doc, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	before, rest, ok1 := strings.Cut(string(doc), pictureStart+"\n")
	_, after, ok2 := strings.Cut(rest, pictureEnd)
	if !ok1 || !ok2 {
		t.Fatalf("%s lacks the picture's markers %q … %q", docPath, pictureStart, pictureEnd)
	}
	want := before + pictureStart + "\n" + picture + pictureEnd + after
	if want == string(doc) {
		return
	}
	if os.Getenv("HOOKWARDEN_UPDATE_PICTURE") == "1" {
		if err := os.WriteFile(docPath, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("the picture in %s is stale; rerun with HOOKWARDEN_UPDATE_PICTURE=1. Now:\n%s", docPath, picture)
}
