package policy

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// maxPatchTargets bounds the paths one patch may name; more is judged as a
// patch hookwarden cannot read (a deny), never a partly judged one.
const maxPatchTargets = 256

// gitApply judges git apply: a patch that only reports (--stat, --numstat,
// --summary, --check without --apply) writes nothing; otherwise every path
// its patches name is judged as a write (patchTargets). The patches come
// from the file operands, or stdin when there are none or one is "-"
// (git-apply(1)); stdin is known from a here-document or here-string of the
// statement, a file from what the command wrote earlier or the disk
// (scriptSource); stdin redirected from a file (git apply < p.diff) is that
// file. A patch hookwarden cannot read is refused (RulePatchUnreadable):
// it may write any path, the guard's files and the hooks directory among
// them, so the refusal is about what it could tamper with, not git plumbing.
func (j *judge) gitApply(args []field, st *syntax.Stmt, sc *scope) {
	report, apply := false, false
	var files []field
	for i := 0; i < len(args); i++ {
		v := args[i].val
		switch {
		case v == "--stat" || v == "--numstat" || v == "--summary" || v == "--check":
			report = true
		case v == "--apply":
			apply = true
		case v == "--directory" || v == "--exclude" || v == "--include" || v == "--whitespace" || v == "-C" || v == "-p":
			i++
		case v == "-":
			files = append(files, lit("-"))
		case strings.HasPrefix(v, "-"):
		default:
			files = append(files, args[i])
		}
	}
	if report && !apply {
		return
	}
	j.patchInputs(files, st, sc)
}

// patchCmd judges GNU patch: patch [options] [originalfile [patchfile]],
// with the patch from -i/--input or stdin (patch(1)). An originalfile
// operand is written; the patch's own paths are judged as for git apply.
func (j *judge) patchCmd(args []field, st *syntax.Stmt, sc *scope) {
	var input []field
	dryRun := false
	var pos []field
	for i := 0; i < len(args); i++ {
		v := args[i].val
		switch {
		case v == "--dry-run":
			dryRun = true
		case v == "-i" || v == "--input":
			if i+1 < len(args) {
				i++
				input = append(input, args[i])
			}
		case strings.HasPrefix(v, "--input="):
			input = append(input, lit(v[len("--input="):]))
		case v == "-o" || v == "--output" || v == "-d" || v == "--directory" || v == "-p" || v == "-B" || v == "-r" || v == "-D" || v == "-F" || v == "-V" || v == "-Y" || v == "-z":
			if i+1 < len(args) {
				i++
				if v == "-o" || v == "--output" || v == "-r" {
					j.guardHit(sc.classify(args[i]), false)
				}
			}
		case strings.HasPrefix(v, "-"):
		default:
			pos = append(pos, args[i])
		}
	}
	if dryRun {
		return
	}
	if len(pos) > 0 {
		j.guardHit(sc.classify(pos[0]), false)
	}
	if len(pos) > 1 {
		input = append(input, pos[1])
	}
	j.patchInputs(input, st, sc)
}

// patchInputs judges the patches read from files (none: stdin) as writes of
// the paths they name.
func (j *judge) patchInputs(files []field, st *syntax.Stmt, sc *scope) {
	var texts []string
	known := true
	if len(files) == 0 {
		files = []field{lit("-")}
	}
	for _, f := range files {
		// /dev/stdin and its kin are the same stdin as "-" (on Windows
		// no such file exists for the judge to look at).
		if isStdinPath(f.val) {
			docs := hereDocs(st)
			if len(docs) == 0 {
				// patch -p1 < x.patch: stdin from a file is read as a
				// patch file operand is
				if in, ok := stdinFile(st, sc); ok {
					f = in
				} else {
					known = false
				}
			}
			for _, d := range docs {
				texts = append(texts, d.val)
				known = known && !d.dynamic()
			}
			if isStdinPath(f.val) {
				continue
			}
		}
		if !j.fileInSight(sc, f.val) {
			// missing: git apply and patch fail
			continue
		}
		src, ok := j.scriptSource(sc, f.val)
		known = known && ok
		texts = append(texts, src)
	}
	if !known {
		j.hits.add(RulePatchUnreadable)
		return
	}
	for _, t := range texts {
		paths, ok := patchTargets(t)
		if !ok {
			j.hits.add(RulePatchUnreadable)
		}
		for _, p := range paths {
			j.writeHit(sc.classify(lit(p)), false)
		}
		// the code the patch adds, judged as written code (writtencode.go):
		// all its added lines, once per language of the code files it names
		added, kinds := "", map[string]bool{}
		for _, p := range paths {
			if kind := writtenCodeKind(p, ""); kind != "" && !kinds[kind] {
				if len(kinds) == 0 {
					added = patchAdded(t)
				}
				kinds[kind] = true
				j.writtenFile(sc, lit(p), added)
			}
		}
	}
}

// patchAdded returns the lines a patch text adds ("+" lines, not "+++ "
// headers), without their prefix, one per line.
func patchAdded(text string) string {
	var b strings.Builder
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "+") && !strings.HasPrefix(l, "+++ ") {
			b.WriteString(strings.TrimSuffix(l[1:], "\r"))
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// patchTargets returns every path a patch text names in a header line, as
// git apply, GNU patch or Codex's apply_patch would read it: unified diff
// "--- " and "+++ " lines (up to a tab, the timestamp's separator), context
// diff "*** " lines, "diff --git a/X b/Y", git's "rename from/to", "copy
// from/to" and "Index: " lines, and the apply_patch envelope's "*** Add
// File: ", "*** Update File: ", "*** Delete File: " and "*** Move to: ". A
// name with a leading a/ or b/ is returned both as written and with that
// component stripped (-p1 and -p0 alike). Header lines are read wherever
// they stand rather than parsed as a strict diff: a tool may accept what a
// strict parser rejects, so this over-approximates (no diff library in
// go-partial.tsv reads context diffs and the apply_patch envelope both).
// More than maxPatchTargets names is ok=false.
func patchTargets(text string) (paths []string, ok bool) {
	add := func(p string) {
		p = strings.TrimSpace(p)
		if i := strings.IndexByte(p, '\t'); i >= 0 {
			p = p[:i]
		}
		p = strings.Trim(p, `"`)
		if p == "" || p == "/dev/null" {
			return
		}
		paths = append(paths, p)
		if rest, cut := strings.CutPrefix(p, "a/"); cut {
			paths = append(paths, rest)
		} else if rest, cut := strings.CutPrefix(p, "b/"); cut {
			paths = append(paths, rest)
		}
	}
	prefixes := []string{"--- ", "+++ ", "*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: ", "*** ",
		"rename from ", "rename to ", "copy from ", "copy to ", "Index: "}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSuffix(line, "\r")
		if rest, cut := strings.CutPrefix(line, "diff --git "); cut {
			for _, w := range strings.Fields(rest) {
				add(w)
			}
			continue
		}
		for _, p := range prefixes {
			if rest, cut := strings.CutPrefix(line, p); cut {
				if p == "*** " && (strings.HasPrefix(rest, "Begin Patch") || strings.HasPrefix(rest, "End Patch") || strings.HasPrefix(rest, "End of File") || strings.HasPrefix(rest, "*")) {
					break
				}
				add(rest)
				break
			}
		}
		if len(paths) > 2*maxPatchTargets {
			return paths, false
		}
	}
	return paths, true
}

// stdinFile returns the file a statement's standard input is redirected
// from (< FILE or 0< FILE, the last one wins), when there is one and it is
// not a descriptor (<&3, < /dev/fd/3) or stdin itself.
func stdinFile(st *syntax.Stmt, sc *scope) (field, bool) {
	if st == nil || stdinFromDescriptor(st) {
		return field{}, false
	}
	var in field
	found := false
	for _, r := range st.Redirs {
		if r.Op != syntax.RdrIn || r.Word == nil || (r.N != nil && r.N.Value != "0") {
			continue
		}
		in, found = sc.word(r.Word), true
	}
	if !found || isStdinPath(in.val) {
		return field{}, false
	}
	return in, true
}
