package policy

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/mod/modfile"
)

// Code that build and install tools run from the project itself.
//
// pip install of a local project runs its setup.py (setuptools' build
// backend executes it; pip(1) "Local project installs"), and go generate
// runs the //go:generate directives of the packages' Go files ("go help
// generate": each directive's words, double-quoted Go strings as one word,
// run directly, not by a shell). Both are judged by that code; package
// managers' install lifecycle scripts are in taskrunner.go
// (installScripts).

// maxGenerateFiles bounds the Go files go generate's judge reads; past it
// the call is refused as a script it could not read (script-unknown).
const maxGenerateFiles = 256

// buildCode judges the project code a build or install tool named name
// runs: pip install's setup.py, go generate's directives.
func (j *judge) buildCode(name string, args []field, env []envVar, depth int, sc *scope) {
	switch name {
	case "pip", "pip3":
		j.pipInstall(args, env, depth, sc)
	case "go":
		if rest := skipOpts(args, "C", nil); len(rest) > 0 && rest[0].val == "generate" {
			j.goGenerate(rest[1:], env, depth, sc)
		}
	}
}

// pipInstall judges pip install (args after "pip"): the setup.py of each
// local project directory it is given (".", "./dir", "/abs", -e DIR).
func (j *judge) pipInstall(args []field, env []envVar, depth int, sc *scope) {
	rest := skipOpts(args, "", nil)
	if len(rest) == 0 || rest[0].val != "install" {
		return
	}
	for i := 1; i < len(rest); i++ {
		v := rest[i].val
		if (v == "-e" || v == "--editable") && i+1 < len(rest) {
			i++
			v = rest[i].val
		} else if d, ok := strings.CutPrefix(v, "--editable="); ok {
			v = d
		} else if strings.HasPrefix(v, "-") {
			if v == "-r" || v == "-c" || v == "--requirement" || v == "--constraint" || v == "-i" || v == "--index-url" || v == "-t" || v == "--target" {
				i++
			}
			continue
		}
		if localProject(v) {
			j.scriptFile("python3", lit(strings.TrimSuffix(v, "/")+"/setup.py"), env, depth, sc)
		}
	}
}

// localProject reports a pip requirement word that names a local
// directory: ".", "..", or a path starting with ./, ../ or /.
func localProject(v string) bool {
	return v == "." || v == ".." || strings.HasPrefix(v, "./") || strings.HasPrefix(v, "../") || strings.HasPrefix(v, "/")
}

// goGenerate judges go generate (args after "generate"): each
// //go:generate directive of the Go files of the packages named (a
// directory, DIR/... for every directory under it, "." when none; flags
// skipped), each run as the argv its words make. A package named by import
// path is read from this module or its vendor folder (importDir; one found
// in neither is not the workspace's code), a package known only at run
// time stands for every one under the command's directory, and a directory
// the judge cannot list, or a tree past maxGenerateFiles Go files, is
// refused as a script it cannot read.
func (j *judge) goGenerate(args []field, env []envVar, depth int, sc *scope) {
	var pkgs []string
	for i := 0; i < len(args); i++ {
		v := args[i].val
		switch {
		case v == "-run" || v == "-skip" || v == "-tags":
			i++
		case strings.HasPrefix(v, "-"):
		default:
			pkgs = append(pkgs, v)
		}
	}
	if len(pkgs) == 0 {
		pkgs = []string{"."}
	}
	var files []string
	var written []overlayFile
	for _, p := range pkgs {
		if strings.Contains(p, dyn) {
			p = "./..." // known only at run time: any package under here
		}
		dir, all := strings.CutSuffix(p, "/...")
		if p == "..." {
			dir, all = ".", true
		}
		var full string
		var ok bool
		if localProject(dir) {
			written = append(written, sc.goFilesWritten(dir, all)...)
			full, ok = j.diskPath(sc, dir)
		} else {
			full, ok = j.importDir(sc, dir)
		}
		switch {
		case !ok && sc.cwdUnknown:
			j.hits.add(RuleScriptUnknown) // after cd to a directory known only at run time
			return
		case !ok:
			continue // not read here: no directory, or not the workspace's code
		case !j.goFiles(full, all, &files):
			j.hits.add(RuleScriptUnknown)
			return
		}
	}
	for _, f := range files {
		src, known := readBounded(f)
		written = append(written, overlayFile{content: src, known: known})
	}
	for _, f := range written {
		j.generateDirectives(f, env, depth, sc)
	}
}

// generateDirectives judges the //go:generate directives of one Go file
// (unknown content is script-unknown).
func (j *judge) generateDirectives(f overlayFile, env []envVar, depth int, sc *scope) {
	if !f.known {
		j.hits.add(RuleScriptUnknown)
		return
	}
	for _, line := range strings.Split(f.content, "\n") {
		if d, ok := strings.CutPrefix(strings.TrimRight(line, "\r"), "//go:generate "); ok {
			if words, ok := generateWords(d); ok {
				j.command(words, env, depth+1, nil, sc)
			} else {
				j.hits.add(RuleScriptUnknown)
			}
		}
	}
}

// goFilesWritten returns the .go files the command wrote earlier (the
// overlay) in dir, or anywhere under it when all.
func (sc *scope) goFilesWritten(dir string, all bool) []overlayFile {
	key := sc.overlayKey(dir)
	var out []overlayFile
	for k, f := range sc.files {
		if path.Ext(k) != ".go" {
			continue
		}
		d := filepath.Dir(k)
		if d == key || all && (key == "." && !filepath.IsAbs(k) || strings.HasPrefix(d, key+"/")) {
			out = append(out, f)
		}
	}
	return out
}

// importDir returns the directory of the package an import path names
// when it is in the module the command runs in (the go.mod found from the
// command's directory up: its module path, read by x/mod's modfile, is the
// path's prefix) or in that
// module's vendor folder; ok is false otherwise.
func (j *judge) importDir(sc *scope, importPath string) (string, bool) {
	dir, ok := j.diskPath(sc, ".")
	for ok {
		if src, known := readBounded(filepath.Join(dir, "go.mod")); known {
			mod := modfile.ModulePath([]byte(src))
			if rel, found := strings.CutPrefix(importPath, mod); mod != "" && found && (rel == "" || rel[0] == '/') {
				return filepath.Join(dir, filepath.FromSlash(rel)), true
			}
			v := filepath.Join(dir, "vendor", filepath.FromSlash(importPath))
			if fi, err := os.Stat(v); err == nil && fi.IsDir() {
				return v, true
			}
			return "", false
		}
		parent := filepath.Dir(dir)
		ok = parent != dir
		dir = parent
	}
	return "", false
}

// goFiles appends to files the .go files of dir (of every directory under
// it when all, skipping those go skips: names starting with "." or "_",
// and testdata); false past maxGenerateFiles or when dir exists but
// cannot be read.
func (j *judge) goFiles(dir string, all bool, files *[]string) bool {
	es, err := os.ReadDir(dir) // sorted by name
	if errors.Is(err, fs.ErrNotExist) {
		return true // not made yet: only what the command writes there (goFilesWritten)
	}
	if err != nil {
		return false
	}
	for _, e := range es {
		n := e.Name()
		if strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_") {
			continue
		}
		p := filepath.Join(dir, n)
		switch {
		case e.IsDir() && all && n != "testdata" && n != "vendor":
			if !j.goFiles(p, true, files) {
				return false
			}
		case !e.IsDir() && path.Ext(n) == ".go":
			if *files = append(*files, p); len(*files) > maxGenerateFiles {
				return false
			}
		}
	}
	return true
}

// generateWords splits a //go:generate directive into its words: spaces
// separate them, and a double-quoted Go string is one word ("go help
// generate"). ok is false for a string that does not unquote.
func generateWords(d string) ([]field, bool) {
	var out []field
	for d = strings.TrimSpace(d); d != ""; d = strings.TrimSpace(d) {
		if d[0] == '"' {
			q, err := strconv.QuotedPrefix(d)
			if err != nil {
				return nil, false
			}
			w, _ := strconv.Unquote(q)
			out = append(out, lit(w))
			d = d[len(q):]
			continue
		}
		end := strings.IndexAny(d, " \t")
		if end < 0 {
			end = len(d)
		}
		out = append(out, lit(d[:end]))
		d = d[end:]
	}
	return out, true
}
