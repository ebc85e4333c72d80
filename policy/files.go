package policy

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// maxScriptBytes bounds what the judge reads of one script or file the
// command runs or feeds a shell: written earlier in the same command or on
// disk. A file past it is unknown (and an interpreter run of an unknown file
// that could matter is refused by the caller).
const maxScriptBytes = 64 << 10

// maxOverlayFiles bounds the files one command's overlay tracks; a write past
// it is recorded as unknown content.
const maxOverlayFiles = 64

// overlayFile is what the command wrote to one path so far: its content when
// every write was of known text, or unknown.
type overlayFile struct {
	content string
	known   bool
}

// overlay is the set of files written earlier in the same command, keyed by
// the cleaned path as written (joined to the scope's cwd when relative).
type overlay map[string]overlayFile

// write records a write of content (known or not) to path; appendTo adds to
// what the command wrote before (>>), else the file is replaced. A file past
// maxScriptBytes, or past maxOverlayFiles files, is unknown.
func (o overlay) write(path, content string, known, appendTo bool) {
	if _, ok := o[path]; !ok && len(o) >= maxOverlayFiles {
		known = false
		for k := range o {
			o[k] = overlayFile{} // too many to track: everything is unknown
		}
	}
	prev, had := o[path]
	if appendTo && had {
		content = prev.content + content
		known = known && prev.known
	} else if appendTo && !had {
		known = false // appended to what is on disk: not tracked
	}
	if len(content) > maxScriptBytes {
		content, known = "", false
	}
	o[path] = overlayFile{content: content, known: known && !strings.Contains(content, dyn)}
}

// overlayKey is the key of path in the overlay: cleaned, joined to the
// scope's cwd when relative and the cwd is known.
func (sc *scope) overlayKey(p string) string {
	if sc.cwd != "" && !shellAbs(p) {
		p = sc.cwd + "/" + p
	}
	return filepath.Clean(p)
}

// scriptSource returns the content of path as the command would read it at
// this point: written earlier in the same command (known), on disk (bounded
// by maxScriptBytes), or unknown (over the bound, unreadable, written with
// unknown content, or relative while the directory the command runs in is
// not known).
func (j *judge) scriptSource(sc *scope, path string) (src string, known bool) {
	if path == "" || strings.Contains(path, dyn) {
		return "", false
	}
	if f, ok := sc.files[sc.overlayKey(path)]; ok {
		return f.content, f.known
	}
	full, ok := j.diskPath(sc, path)
	if !ok {
		return "", false
	}
	if phys, ok := j.physicalDiskPath(sc, path); ok {
		full = phys // the file the kernel opens (l/../list with l a link: beside l's target)
	}
	return readBounded(full)
}

// fileInSight reports whether the file p, as the command at sc names it,
// may hold what the command then reads from it: the command wrote it
// earlier (sc.files), or it is there on disk (lstat(2): a symbolic link is
// there wherever it leads). Every case the judge cannot settle is in sight
// (fail closed): an empty or run-time path, a relative path while the
// directory the command runs in is not known (Policy.Judge, or after a cd
// to a run-time directory), a file lstat cannot inspect. Only a file known
// to be missing (absent, or below a file: the command then reads nothing
// from it) is out of sight.
func (j *judge) fileInSight(sc *scope, p string) bool {
	if p == "" || strings.Contains(p, dyn) {
		return true
	}
	if _, ok := sc.files[sc.overlayKey(p)]; ok {
		return true
	}
	full, ok := j.diskPath(sc, p)
	if !ok {
		return true
	}
	if _, ok := j.physicalDiskPath(sc, p); ok {
		return true // there as the kernel reaches it (l/../list), whatever the lexical reading says
	}
	_, err := os.Lstat(full)
	return !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR)
}

// isDirAt reports whether path, as the command at sc reads it, is a
// directory on disk (false when the directory the command runs in is not
// known).
func (j *judge) isDirAt(sc *scope, path string) bool {
	full, ok := j.diskPath(sc, path)
	if !ok {
		return false
	}
	fi, err := os.Stat(full)
	return err == nil && fi.IsDir()
}

// diskPath returns the path on disk the command at sc names by path:
// joined to the scope's cwd and to the directory the command starts in.
// ok is false for a relative path when either directory is not known.
func (j *judge) diskPath(sc *scope, path string) (full string, ok bool) {
	full = sc.overlayKey(path)
	if !shellAbs(full) {
		if j.dir == "" || sc.cwdUnknown {
			return "", false
		}
		full = filepath.Join(j.dir, full)
	}
	return full, true
}

// physicalDiskPath is diskPath as the kernel resolves it: a `..` after a
// symbolic link leads to the parent of the link's target (with l ->
// /src/gov/sub, l/.. is /src/gov, and so is .. after a logical `cd l`),
// where diskPath's lexical reading stays beside the link. ok is false when
// the path cannot be placed or does not exist.
func (j *judge) physicalDiskPath(sc *scope, path string) (string, bool) {
	raw := path
	if sc.cwd != "" && !shellAbs(raw) {
		raw = sc.cwd + "/" + raw
	}
	if !shellAbs(raw) {
		if j.dir == "" || sc.cwdUnknown {
			return "", false
		}
		raw = j.dir + "/" + raw
	}
	phys, err := filepath.EvalSymlinks(raw)
	return phys, err == nil
}

// chdirPhysical moves sc to dir as chdir(2) does (git -C, cd -P): a `..`
// after a symbolic link leads to the parent of the link's target
// (physicalDiskPath), where the shell's logical cd stays beside the link.
func (j *judge) chdirPhysical(sc *scope, dir field) {
	before := *sc
	sc.chdir(dir)
	if sc.cwdUnknown || !hasDotDot(dir.val) {
		return
	}
	if phys, ok := j.physicalDiskPath(&before, strings.ReplaceAll(dir.raw, `\`, "/")); ok {
		sc.cwd = phys
	}
}

// readBounded reads a regular file of at most maxScriptBytes; anything else
// (missing, a directory, a FIFO or device that could block, too large) is
// unknown.
func readBounded(full string) (string, bool) {
	fi, err := os.Stat(full)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxScriptBytes {
		return "", false
	}
	f, err := os.Open(full)
	if err != nil {
		return "", false
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxScriptBytes+1))
	if err != nil || len(b) > maxScriptBytes {
		return "", false
	}
	return string(b), true
}

// errUnknownFile is returned by the evaluator's open handler for a file whose
// content it cannot know.
var errUnknownFile = errors.New("content not known to the judge")

// recordWrites records in sc.files the output redirections of st: the
// content is known for `cat`/`tee` fed a here-document or here-string and for
// `printf`/`echo` of known text, unknown otherwise.
func (j *judge) recordWrites(st *syntax.Stmt, sc *scope) {
	for _, r := range st.Redirs {
		if r.Word == nil || !(r.Op == syntax.RdrOut || r.Op == syntax.AppOut || r.Op == syntax.ClbOut || r.Op == syntax.RdrAll || r.Op == syntax.AppAll) {
			continue
		}
		target := sc.word(r.Word)
		if target.dynamic() || target.val == "" || target.val == "/dev/null" {
			continue
		}
		content, known := stmtOutput(st, sc)
		if sc.files == nil {
			sc.files = overlay{}
		}
		sc.files.write(sc.overlayKey(target.val), content, known, r.Op == syntax.AppOut || r.Op == syntax.AppAll)
		if known {
			j.writtenFile(sc, target, content) // writtencode.go
		}
	}
	if call, ok := st.Cmd.(*syntax.CallExpr); ok && len(call.Args) > 1 {
		var argv []field
		for _, w := range call.Args {
			argv = append(argv, sc.fields(w)...)
		}
		if sc.files == nil {
			sc.files = overlay{}
		}
		// curl -o FILE URL, wget URL: the file holds a download (evalDynOut).
		for _, t := range downloadTargets(argv) {
			sc.files.write(sc.overlayKey(t), evalDyn+evalDynOut, false, false)
		}
		// cp SRC DST (mv, ln, install): DST holds what SRC holds now
		// (cp cmd.txt x.sh; sh x.sh runs cmd.txt's commands).
		for _, c := range copies(argv, func(p string) bool { return j.isDirAt(sc, p) }) {
			content, known := j.scriptSource(sc, c.src)
			sc.files.write(sc.overlayKey(c.dst), content, known, false)
		}
	}
	// tee FILE... <<EOF writes its stdin to each FILE.
	if call, ok := st.Cmd.(*syntax.CallExpr); ok && len(call.Args) > 1 && call.Args[0].Lit() == "tee" {
		content, known := stmtOutput(st, sc)
		appendTo := false
		for _, w := range call.Args[1:] {
			f := sc.word(w)
			switch {
			case f.val == "-a" || f.val == "--append":
				appendTo = true
			case strings.HasPrefix(f.val, "-") || f.dynamic() || f.val == "":
			default:
				if sc.files == nil {
					sc.files = overlay{}
				}
				sc.files.write(sc.overlayKey(f.val), content, known, appendTo)
				if known {
					j.writtenFile(sc, f, content)
				}
			}
		}
	}
}

// stmtOutput is the text a simple statement writes to its stdout when the
// judge can know it: cat or tee of a here-document or here-string, echo or
// printf of known words.
func stmtOutput(st *syntax.Stmt, sc *scope) (string, bool) {
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 {
		return "", false
	}
	var argv []string
	for _, w := range call.Args {
		for _, f := range sc.fields(w) {
			if f.dynamic() {
				return "", false
			}
			argv = append(argv, f.val)
		}
	}
	switch argv[0] {
	case "cat", "tee":
		if argv[0] == "cat" && len(argv) > 1 {
			return "", false // cat FILE: not tracked here
		}
		docs := hereDocs(st)
		if len(docs) != 1 || docs[0].dynamic() {
			return "", false
		}
		if hereStringIn(st) {
			return docs[0].val + "\n", true
		}
		return docs[0].val, true
	case "echo":
		return echoText(argv[1:])
	case "printf":
		args := argv[1:]
		if len(args) > 0 && args[0] == "--" {
			args = args[1:]
		}
		if len(args) == 0 || strings.HasPrefix(args[0], "-") {
			return "", false
		}
		out, _, err := expand.Format(&expand.Config{}, args[0], args[1:])
		return out, err == nil
	}
	return "", false
}

// hereStringIn reports a here-string (<<<) among st's redirections (bash
// adds a newline to its word).
func hereStringIn(st *syntax.Stmt) bool {
	for _, r := range st.Redirs {
		if r.Op == syntax.WordHdoc {
			return true
		}
	}
	return false
}

// echoText is what bash's echo prints for args: -n drops the newline, -e
// decodes escapes (as $'...' does), -E is the default.
func echoText(args []string) (string, bool) {
	nl, esc := true, false
	for len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-' && strings.Trim(args[0][1:], "neE") == "" {
		for _, c := range args[0][1:] {
			switch c {
			case 'n':
				nl = false
			case 'e':
				esc = true
			case 'E':
				esc = false
			}
		}
		args = args[1:]
	}
	s := strings.Join(args, " ")
	if esc {
		if i := strings.Index(s, `\c`); i >= 0 {
			return ansiC(s[:i]), true
		}
		s = ansiC(s)
	}
	if nl {
		s += "\n"
	}
	return s, true
}

// globMatches matches a glob word against the directory the command runs in,
// a component at a time as the shell does (wildcards in directory
// components too): the paths it expands to, as written, and ok. ok is false
// when the judge cannot tell: no directory known, a run-time part, a brace,
// or more than maxGlobEntries directory entries read in all; the caller then
// classifies the word as written.
func (sc *scope) globMatches(word string) ([]string, bool) {
	if sc.dir == "" || sc.cwdUnknown || !strings.ContainsAny(word, "*?[") || strings.ContainsAny(word, dyn+"{\\") {
		return nil, false
	}
	base := filepath.Join(sc.dir, sc.cwd)
	if strings.HasPrefix(word, "/") {
		base = "/"
	} else if shellAbs(word) {
		base = "" // C:/x/* on Windows: the first component is the volume
	}
	comps := strings.Split(word, "/")
	// cands: the paths matched so far, as written (prefix of word) and on
	// disk; budget: directory entries left to read.
	type cand struct{ written, disk string }
	cands := []cand{{"", base}}
	budget := maxGlobEntries
	for i, c := range comps {
		last := i == len(comps)-1
		sep := "/"
		if i == 0 {
			sep = ""
		}
		if !strings.ContainsAny(c, "*?[") {
			for k := range cands {
				cands[k].written += sep + c
				cands[k].disk = filepath.Join(cands[k].disk, c)
			}
			continue
		}
		if c == "" && last {
			return nil, false
		}
		var next []cand
		for _, cd := range cands {
			names, ok := readNames(cd.disk, &budget)
			if !ok {
				return nil, false
			}
			for _, n := range names {
				if !matchGlob(c, n) {
					continue
				}
				disk := filepath.Join(cd.disk, n)
				if !last {
					if fi, err := os.Stat(disk); err != nil || !fi.IsDir() {
						continue
					}
				}
				next = append(next, cand{cd.written + sep + n, disk})
			}
		}
		cands = next
	}
	var out []string
	for _, cd := range cands {
		if _, err := os.Lstat(cd.disk); err == nil {
			out = append(out, cd.written)
		}
	}
	return out, true // none: the word is passed as written
}

// readNames lists a directory for globMatches, counting its entries against
// budget; a missing directory has none, and one past the budget or
// unreadable otherwise is not known (ok false).
func readNames(dir string, budget *int) ([]string, bool) {
	d, err := os.Open(filepath.Clean(dir + "/."))
	if err != nil {
		return nil, true
	}
	defer d.Close()
	names, err := d.Readdirnames(*budget + 1)
	if len(names) > *budget || (err != nil && !errors.Is(err, io.EOF)) {
		return nil, false
	}
	*budget -= len(names)
	return names, true
}

// shellAbs reports whether p, a path as a POSIX shell command names it, is
// absolute: it starts with "/" (also on Windows, where Git Bash reads
// /tmp/x as absolute and filepath.IsAbs does not), or it is absolute to
// this platform (C:\x).
func shellAbs(p string) bool { return strings.HasPrefix(p, "/") || filepath.IsAbs(p) }
