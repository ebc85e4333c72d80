// Package editguard is the self-protection half of the pre-edit judge
// (issue 14 item 3): it denies a file edit (Claude Code Edit, MultiEdit,
// Write, NotebookEdit; Gemini CLI replace, write_file) whose target is one of
// the guard's own files in a governed repository (policy.GuardPaths), inside
// the repository's git hooks directory, or a git config file, and lets an
// edit of a client hook settings file through only when the file it would
// produce still parses and still holds every one of our rows unchanged. It
// also denies creating or changing a file whose existence makes a client
// skip the file holding our rows (Factory Droid's .factory/hooks.json beside
// a .factory/settings.json with our rows; shadowFiles).
//
// It runs in process: no child process, only stat, readlink and bounded
// reads, each step checked against the context's deadline (an unfinished
// judgement is a deny, never an allow).
package editguard

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/hookwarden/hookwarden/clientjson"
	"github.com/hookwarden/hookwarden/internal/clientname"
	"github.com/hookwarden/hookwarden/internal/gitdisc"
	"github.com/hookwarden/hookwarden/internal/parsebound"
	"github.com/hookwarden/hookwarden/lefthookcfg"
	"github.com/hookwarden/hookwarden/policy"
	"github.com/hookwarden/hookwarden/protocol/dialect"
	"github.com/hookwarden/hookwarden/protocol/verdict"
	"github.com/hookwarden/hookwarden/settings/governed"
)

// Rule ids carried in Verdict.RuleID.
const (
	// RuleGuardFile: the edit targets one of the guard's own files.
	RuleGuardFile = "guard-file-edit"
	// RuleClientHooks: the edit of a client hook settings file would drop,
	// change or switch off our rows, or break the file's parse.
	RuleClientHooks = "client-hooks-edit"
	// RuleHooksDir: the edit targets the git hooks directory or a git
	// config file (the hooks-dir rule of the command policy).
	RuleHooksDir = "hooks-dir-edit"
	// RuleInvalidInput: the payload names no target path, or its edit
	// cannot be read.
	RuleInvalidInput = verdict.RuleInvalidInput
	// RuleParseBound: the file before or after the edit passes a bound of
	// the parser that judges it (internal/parsebound: depth, size, a JSON
	// member name twice in one object).
	RuleParseBound = "edit-parse-bound"
	// RuleEnvSwitch: the edit would set a variable that changes which
	// engine, hook manager or git configuration the hooks use
	// (policy.GuardedEnvName) in a client settings env block or a dotenv
	// file a client loads.
	RuleEnvSwitch = "env-switch-edit"
	// RuleEngine: the edit would write, replace or shadow the installed
	// engine (an executable named hookwarden in a directory the launcher
	// searches, $HOOKWARDEN_BIN, or the engine the launcher would choose).
	RuleEngine = "engine-edit"
	// RuleUnjudged: the edit could not be judged (deadline, unreadable
	// file or directory).
	RuleUnjudged = "edit-unjudged"
	// RuleHookManager: the edit targets a hook manager's configuration or
	// start-up file (policy.StartupOrManagerPath), which the command policy
	// refuses to write as hook-manager-config.
	RuleHookManager = "hook-manager-edit"
	// RuleShellStartup: the edit targets a shell start-up file
	// (policy.StartupOrManagerPath), which the command policy refuses to
	// write as shell-startup-write.
	RuleShellStartup = "shell-startup-edit"
	// RuleCode: the edit writes code (Python, JavaScript/TypeScript, Ruby,
	// Perl, shell) that the command policy would refuse to run, into a file
	// that did not hold that refusal before (Input.Code).
	RuleCode = "code-edit"
)

// MaxFileBytes bounds how much of a client hook settings file is read to
// apply an edit to it; a larger file is a deny (a real one is a few KiB).
const MaxFileBytes = 1 << 20

// maxLinks bounds symbolic-link hops while resolving one path (Linux's
// MAXSYMLINKS is 40); more is a deny.
const maxLinks = 40

// Input is one pre-edit call.
//
// Client is the calling client ("claude" or "gemini": whose edit semantics
// apply). Tool is tool_name (Claude Edit, MultiEdit, Write, NotebookEdit;
// Gemini replace, write_file). ToolInput is the raw JSON object of
// tool_input. FilePath is the target as the payload names it
// (tool_input.file_path, NotebookEdit's notebook_path). Dir is the call's
// absolute working directory (the payload cwd), against which a relative
// FilePath is resolved. RepoRoot is the absolute root of the governed
// repository the call is judged in. Home is $HOME ("" when unset), for a
// leading `~/`. Owner returns the one definition of our rows in a client's
// hook file (templates.Owner, which adopt, conform and audit use); it is called
// only for an edit of a client hook settings file.
type Input struct {
	Client    string
	Tool      string
	ToolInput []byte
	FilePath  string
	Dir       string
	RepoRoot  string
	Home      string
	Owner     func(client string) (*clientjson.Owner, error)
	// PathEnv and EngineBin are the hook process's PATH and
	// HOOKWARDEN_BIN: where the launcher (skewguard hook.sh) looks for the
	// engine. An edit that writes the engine or a `hookwarden` in one of
	// those directories is refused (enginepath.go).
	PathEnv   string
	EngineBin string
	// ClaudeConfigDir and ClaudeEnvFile are the hook process's
	// CLAUDE_CONFIG_DIR (Claude Code's config directory; "" means
	// ~/.claude) and CLAUDE_ENV_FILE (a file Claude Code 2.1.332 runs
	// ahead of each Bash command). An edit of that file, or of a file in
	// the config directory's folders Claude Code runs or acts on
	// (policy.ClaudeConfigRunPath), is refused as a shell start-up edit.
	ClaudeConfigDir string
	ClaudeEnvFile   string
	// Code judges content written to the file name as the code it is when
	// run (policy.(*Policy).JudgeWrittenCode): a test runner imports such
	// a file without naming it, so the write is judged (codeEdit). nil: not
	// judged.
	Code func(name, content string) verdict.Verdict
}

// Judge returns Deny (with one of the rule ids above and a reason that names
// the protected file's repository-relative path, never the edit's content)
// or Allow. See the package doc for what is denied. ctx's deadline bounds
// the judgement; when it passes first, the answer is a Deny with
// RuleUnjudged.
func Judge(ctx context.Context, in Input) verdict.Verdict {
	if strings.TrimSpace(in.FilePath) == "" {
		return deny(RuleInvalidInput, "the %s call names no target path (tool_input.file_path is empty), so hookwarden cannot tell which file it would change; the edit is refused", in.Tool)
	}
	if !filepath.IsAbs(in.Dir) || !filepath.IsAbs(in.RepoRoot) {
		return deny(RuleUnjudged, "the edit has no absolute working directory or repository root to resolve its target against; the edit is refused")
	}
	g := guard{ctx: ctx, in: in}
	v, err := g.judge()
	if err != nil {
		return deny(RuleUnjudged, "hookwarden could not judge this edit (%v); the edit is refused", err)
	}
	return v
}

type guard struct {
	ctx context.Context
	in  Input
	// known is configFiles' answer, built on first need (nil before).
	known []knownConfig
	// dirs and engs are searchDirs' and engines' answers, built on first
	// need (nil before).
	dirs, engs *[]string
	// claude is claudePaths' answer, built on first need (nil before).
	claude *claudeRun
}

// hit is one protected file an edit target resolves to.
type hit struct {
	root  string // the governed repository root (symlinks resolved)
	entry policy.GuardPath
	rel   string // the target relative to root, slash-separated
	file  string // the file's absolute path when not root/entry.Path
}

func (g *guard) alive() error {
	if err := g.ctx.Err(); err != nil {
		return fmt.Errorf("the pre-edit budget ran out: %w", err)
	}
	return nil
}

// judge resolves every spelling of the edit's target (spellings,
// nameSearch, absolutes, interpretations) and judges each file it may be
// (judgeTarget): a refusal found on the way stands at once; otherwise the
// kind of protected file found decides (found.verdict).
func (g *guard) judge() (verdict.Verdict, error) {
	rootReal, err := resolve(g.in.RepoRoot)
	if err != nil {
		return verdict.Verdict{}, err
	}
	f := found{roots: []string{rootReal}}
	if f.switches, err = g.switchFiles(rootReal); err != nil {
		return verdict.Verdict{}, err
	}
	f.shadows = shadowFiles(rootReal)
	for _, raw := range spellings(g.in.FilePath, g.in.Home) {
		if strings.IndexByte(raw, 0) >= 0 {
			continue // names no file; its spelling without NUL bytes is judged
		}
		named, err := g.nameSearch(raw, rootReal)
		if err != nil {
			return verdict.Verdict{}, err
		}
		for _, abs := range append(absolutes(raw, g.in.Dir), named...) {
			if err := g.alive(); err != nil {
				return verdict.Verdict{}, err
			}
			if f.cfg == nil {
				// The path as named, before links are followed: a link
				// named like a directory holding a config (pkg/.codex ->
				// /tmp/x) makes the file it reaches the config Codex or
				// lefthook reads there.
				f.cfg = g.configHit(append([]string{g.in.RepoRoot}, f.roots...), filepath.Clean(abs))
			}
			targets, err := interpretations(abs)
			if err != nil {
				return verdict.Verdict{}, err
			}
			for _, t := range targets {
				if v, done, err := g.judgeTarget(t, raw, rootReal, &f); done || err != nil {
					return v, err
				}
			}
		}
	}
	return f.verdict(g, rootReal)
}

// found is what judge has found so far: the governed roots the target lies
// in, the switch and shadow files of the repository, and the first hit of
// each kind of protected file.
type found struct {
	roots                            []string
	switches, shadows                []switchFile
	client, sw, shadow, cfg, envFile *hit
}

// judgeTarget judges one file t the edit may write (raw: the spelling it
// came from): done is true with the verdict when t alone decides (a file
// Claude Code runs, the engine, one of hookwarden's own files, two client
// hook files, the hooks directory); otherwise the hits are added to f.
func (g *guard) judgeTarget(t, raw, rootReal string, f *found) (v verdict.Verdict, done bool, err error) {
	if why := g.claudeRunHit(t); why != "" {
		return deny(RuleShellStartup, "the edit targets %s, which Claude Code runs or acts on ahead of its commands, so code or a variable placed there takes effect outside any judged command; agents may not change it. A person changes it outside the agent", why), true, nil
	}
	if why := g.engineHit(t, rootReal); why != "" {
		return deny(RuleEngine, "%s; agents may not write, replace or shadow it (every hook call would be answered by what the edit writes). A person installs or upgrades hookwarden outside the agent", why), true, nil
	}
	if r, ok, err := governedRootOf(t); err != nil {
		return verdict.Verdict{}, true, err
	} else if ok && !contains(f.roots, r) {
		f.roots = append(f.roots, r)
	}
	for _, root := range f.roots {
		h, ok, err := g.guardHit(root, t)
		if err != nil {
			return verdict.Verdict{}, true, err
		}
		if ok {
			if !h.entry.ClientHooks {
				return deny(RuleGuardFile, "%s is one of hookwarden's own files in the governed repository (%s); agents may not edit it. A person changes it by editing it outside the agent, then running `hookwarden conform`", h.entry.Path, describe(h.entry)), true, nil
			}
			if f.client != nil && (f.client.entry.Path != h.entry.Path || f.client.root != h.root) {
				return deny(RuleClientHooks, "the edit's target resolves to more than one client hook settings file (%s and %s); the edit is refused", f.client.entry.Path, h.entry.Path), true, nil
			}
			hc := h
			f.client = &hc
		}
		if f.sw == nil {
			f.sw = matchSwitch(f.switches, t)
		}
		if f.shadow == nil {
			f.shadow = matchSwitch(f.shadows, t)
		}
		if f.cfg == nil {
			f.cfg = g.configHit(f.roots, t)
		}
		if f.envFile == nil {
			f.envFile = envHit(f.roots, t)
		}
		if v, ok, err := g.hooksDirHit(root, t, raw); err != nil || ok {
			return v, true, err
		}
	}
	return verdict.Verdict{}, false, nil
}

// verdict judges the edit by the first kind of protected file it reaches,
// in this order: a client hook file, a switch file, a shadowing file, a
// hook manager's config, the env file, a pre-commit config; else Allow.
func (f *found) verdict(g *guard, rootReal string) (verdict.Verdict, error) {
	switch {
	case f.client != nil:
		return g.clientHooksEdit(*f.client)
	case f.sw != nil:
		return g.switchEdit(*f.sw)
	case f.shadow != nil:
		return g.shadowEdit(*f.shadow, rootReal)
	case f.cfg != nil:
		return g.configEdit(*f.cfg)
	case f.envFile != nil && f.envFile.entry.Client == kindEnvFile:
		return g.envEdit(*f.envFile)
	case f.envFile != nil:
		return g.preCommitEdit(*f.envFile)
	}
	return g.codeEdit()
}

// codeEdit judges the code an Edit/MultiEdit/Write (Gemini replace,
// write_file) writes, with Input.Code: a result the policy refuses to run
// is refused, unless the file as it is earns the same refusal (an edit of
// a file that already holds such a call is not judged by it). An edit
// apply cannot reproduce, and a file past MaxFileBytes or unreadable, are
// left to the client, which cannot apply the edit either.
func (g *guard) codeEdit() (verdict.Verdict, error) {
	allow := verdict.Verdict{Kind: verdict.Allow}
	if g.in.Code == nil {
		return allow, nil
	}
	file := absolutes(g.in.FilePath, g.in.Dir)[0]
	if added, removed, ok := dialect.PatchLines(g.in.ToolInput, g.in.FilePath); ok {
		// An ApplyPatch call (Codex apply_patch, Droid and Cursor
		// ApplyPatch): the lines it adds are judged, and those it removes
		// stand for the file before.
		return g.codeVerdict(file, strings.Join(added, "\n")+"\n", strings.Join(removed, "\n")+"\n", len(removed) > 0), nil
	}
	if !editTool(g.in.Client, g.in.Tool) {
		return allow, nil
	}
	before, exists, err := readBounded(file)
	if err != nil {
		return allow, nil // past the bound or unreadable: the client reads it no better
	}
	results, why := apply(g.in.Client, g.in.Tool, g.in.ToolInput, before, exists)
	if why != "" {
		return allow, nil
	}
	for _, r := range results {
		if v := g.codeVerdict(file, string(r), string(before), exists); v.Kind != verdict.Allow {
			return v, nil
		}
	}
	return allow, nil
}

// codeVerdict judges after, code the edit writes to file, with Input.Code:
// a refusal unless before (when had) earns the same one.
func (g *guard) codeVerdict(file, after, before string, had bool) verdict.Verdict {
	v := g.in.Code(file, after)
	if v.Kind != verdict.Deny {
		return verdict.Verdict{Kind: verdict.Allow}
	}
	if had {
		if vb := g.in.Code(file, before); vb.Kind == verdict.Deny && vb.RuleID == v.RuleID {
			return verdict.Verdict{Kind: verdict.Allow}
		}
	}
	return deny(RuleCode, "the edit writes code into %s that hookwarden would refuse to run (%s), and a test runner or another program may run it without naming it; write the code without that call. The refusal it would get: %s", filepath.Base(file), v.RuleID, v.Reason)
}

// claudeRunHit names the Claude Code file the absolute target t is, or ""
// when it is none: the file CLAUDE_ENV_FILE names, or a path in the config
// directory (ClaudeConfigDir, else ~/.claude) that policy.ClaudeConfigRunPath
// accepts. Both are compared as given and with their links resolved
// (claudePaths).
func (g *guard) claudeRunHit(t string) string {
	cp := g.claudePaths()
	for _, e := range cp.envFiles {
		if t == e {
			return "the file CLAUDE_ENV_FILE names (" + g.in.ClaudeEnvFile + ")"
		}
	}
	for _, d := range cp.dirs {
		if rel, ok := within(d, t); ok && policy.ClaudeConfigRunPath(rel) {
			return "Claude Code's config directory entry " + rel + " (in " + cp.dir + ")"
		}
	}
	return ""
}

// claudeRun is claudePaths' answer: the spellings (withResolved) of the
// file CLAUDE_ENV_FILE names and of Claude Code's config directory (dir,
// as configured).
type claudeRun struct {
	envFiles, dirs []string
	dir            string
}

// claudePaths returns the paths claudeRunHit compares every target with,
// resolved once per judgement.
func (g *guard) claudePaths() *claudeRun {
	if g.claude != nil {
		return g.claude
	}
	cp := &claudeRun{dir: g.in.ClaudeConfigDir}
	if f := g.in.ClaudeEnvFile; f != "" && filepath.IsAbs(f) {
		cp.envFiles = withResolved(f)
	}
	if cp.dir == "" && g.in.Home != "" {
		cp.dir = filepath.Join(g.in.Home, ".claude")
	}
	if filepath.IsAbs(cp.dir) {
		cp.dirs = withResolved(cp.dir)
	}
	g.claude = cp
	return cp
}

// withResolved returns p cleaned and, when its links resolve to another
// path, that path too.
func withResolved(p string) []string {
	out := []string{filepath.Clean(p)}
	if r, err := resolve(p); err == nil && r != out[0] {
		out = append(out, r)
	}
	return out
}

// describe names what kind of guard file an entry is.
func describe(e policy.GuardPath) string {
	switch {
	case e.Path == ".hookwarden.yaml":
		return "the manifest that marks the repository governed"
	case e.Dir:
		return "a rendered launcher, interceptor or plugin directory"
	}
	return "a rendered plugin file"
}

// spellings returns the ways a client may read raw as a path: as given;
// without NUL bytes; Gemini CLI 0.61.0's resolveToRealPath also turns a
// file:// URL into a path and percent-decodes (decodeURIComponent) and its
// resolveDefensiveToolPath drops a leading `@` (bundle chunk-5FZXKDXH.js);
// a leading `~/` is home. Every spelling is judged, so a spelling one client
// reads as a guard file is refused whichever client sent it.
func spellings(raw, home string) []string {
	out := []string{raw}
	add := func(s string) {
		if s != "" && !contains(out, s) {
			out = append(out, s)
		}
	}
	s := strings.ReplaceAll(raw, "\x00", "")
	add(s)
	if strings.HasPrefix(s, "file://") {
		if u, err := url.Parse(s); err == nil {
			add(u.Path)
			s = u.Path
		}
	}
	if d, err := url.PathUnescape(s); err == nil {
		add(d)
	}
	for _, c := range append([]string(nil), out...) {
		if strings.HasPrefix(c, "@") {
			add(strings.TrimLeft(c[1:], `/\`))
		}
		if strings.HasPrefix(c, "~/") && home != "" {
			add(filepath.Join(home, c[2:]))
		}
	}
	return out
}

// absolutes returns the absolute path(s) of one spelling: itself when
// absolute, else joined to dir (both Claude Code and Gemini CLI resolve a
// relative path against the session's directory).
func absolutes(p, dir string) []string {
	p = strings.ReplaceAll(p, `\`, string(filepath.Separator))
	if filepath.IsAbs(p) {
		return []string{p}
	}
	// Not filepath.Join: it would fold `..` before links are followed.
	return []string{strings.TrimSuffix(dir, string(filepath.Separator)) + string(filepath.Separator) + p}
}

// maxSearched bounds how many entries nameSearch looks at; more is a deny.
const maxSearched = 4096

// nameSearch reproduces, for the files that matter, Gemini CLI 0.61.0's
// replace tool resolving a relative file_path that does not exist as
// given: it searches the workspace breadth-first for files whose path ends
// with it and edits the one it finds (bundle chunk-5FZXKDXH.js, EditTool
// constructor -> correctPath -> bfsFileSearchSync; dot directories are not
// skipped), so `interceptor.py` can reach `.hookwarden/interceptor.py`. It
// returns every guard file and git hook under root named like raw whose
// path ends with raw (and the root's Codex config.toml and lefthook configs
// named so), for that client and tool only; an error when the
// guard's directories hold more than maxSearched entries.
func (g *guard) nameSearch(raw, root string) ([]string, error) {
	if g.in.Client != "gemini" || g.in.Tool != "replace" || filepath.IsAbs(raw) || strings.HasPrefix(raw, "~/") {
		return nil, nil
	}
	if _, err := os.Lstat(filepath.Join(g.in.Dir, raw)); err == nil {
		return nil, nil
	}
	suffix := strings.TrimPrefix(filepath.ToSlash(filepath.Clean(raw)), "./")
	base := filepath.Base(raw)
	var places []string
	for _, e := range policy.GuardPaths() {
		places = append(places, filepath.Join(root, filepath.FromSlash(e.Path)))
	}
	// The config files whose keys switch our rows off (configHit), at the
	// root: a subdirectory's .codex/config.toml is not searched.
	places = append(places, filepath.Join(root, ".codex", "config.toml"))
	for _, c := range append(lefthookcfg.Candidates(false), lefthookcfg.Candidates(true)...) {
		places = append(places, filepath.Join(root, filepath.FromSlash(c)))
	}
	if repo, found, err := gitdisc.Find(root); err == nil && found {
		if dirs, err := gitdisc.HooksDirs(repo, g.in.Home); err == nil {
			places = append(places, dirs...)
		}
	}
	var out []string
	seen := 0
	for _, p := range places {
		err := filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil //nolint:nilerr // a place that does not exist holds nothing to find
			}
			seen++
			if seen > maxSearched {
				return fmt.Errorf("more than %d files in the guard's directories to compare with the relative path", maxSearched)
			}
			// As the bundle: the base name equal, the whole path ending with
			// the given text (no component boundary: codex/hooks.json finds
			// .codex/hooks.json).
			if !d.IsDir() && d.Name() == base && strings.HasSuffix(filepath.ToSlash(path), suffix) {
				out = append(out, path)
			}
			return g.alive()
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// interpretations returns the real paths an absolute path can reach: `..`
// folded lexically before links are followed (what Node's path.resolve does
// before the clients' realpath), and `..` taken after following each link
// (what the kernel does on open). Links are followed even when dangling, so
// a write through a dangling link is judged at the file it would create.
func interpretations(abs string) ([]string, error) {
	a, err := resolve(filepath.Clean(abs))
	if err != nil {
		return nil, err
	}
	b, err := resolve(abs)
	if err != nil {
		return nil, err
	}
	if a == b {
		return []string{a}, nil
	}
	return []string{a, b}, nil
}

// resolve walks p component by component from the root: `.` is skipped,
// `..` goes to the parent of what is resolved so far, a symbolic link is
// replaced by its target (relative targets against the link's directory)
// and walked again, at most maxLinks times. A component that does not exist
// ends the resolution; the rest is appended lexically. On Windows each
// component is read as Win32 opens it (win32Component: trailing dots and
// spaces dropped) and each existing one by its long name (longName: an 8.3
// short name such as .CLAUD~1 becomes .claude), so the name checks see the
// file the edit reaches.
func resolve(p string) (string, error) {
	if !filepath.IsAbs(p) {
		return "", fmt.Errorf("%s: not an absolute path", p)
	}
	cur, rest := splitRoot(p)
	hops := 0
	for len(rest) > 0 {
		c := win32Component(rest[0])
		rest = rest[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, c)
		fi, err := os.Lstat(next)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) || isNotDir(err) {
				for i := range rest {
					rest[i] = win32Component(rest[i])
				}
				return filepath.Clean(filepath.Join(append([]string{next}, rest...)...)), nil
			}
			return "", fmt.Errorf("%s: %w", next, err)
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			cur = longName(next)
			continue
		}
		hops++
		if hops > maxLinks {
			return "", fmt.Errorf("%s: more than %d symbolic links", p, maxLinks)
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", fmt.Errorf("%s: %w", next, err)
		}
		if filepath.IsAbs(target) {
			var more []string
			cur, more = splitRoot(target)
			rest = append(more, rest...)
			continue
		}
		rest = append(splitPath(target), rest...)
	}
	return cur, nil
}

// splitRoot splits an absolute path into its root, "/" on Unix and the
// volume with its separator on Windows (`C:\`, `\\host\share\`), and the
// components after it.
func splitRoot(p string) (string, []string) {
	vol := filepath.VolumeName(p)
	return vol + string(filepath.Separator), splitPath(p[len(vol):])
}

// splitPath splits p at every separator of this platform (Windows takes
// `/` as well as `\`); empty components are dropped.
func splitPath(p string) []string {
	return strings.FieldsFunc(p, func(r rune) bool { return r < 128 && os.IsPathSeparator(uint8(r)) })
}

func isNotDir(err error) bool {
	var pe *fs.PathError
	return errors.As(err, &pe) && strings.Contains(pe.Err.Error(), "not a directory")
}

// governedRootOf returns the root of the governed repository holding t
// (resolved), if any: an edit into another governed repository on the same
// machine is judged by that repository's guard files too.
func governedRootOf(t string) (string, bool, error) {
	dir := nearestDir(t)
	repo, found, err := gitdisc.Find(dir)
	if err != nil || !found {
		return "", false, nil //nolint:nilerr // not inside a readable repository: nothing of a guard there
	}
	if !governed.Manifest(repo.WorkTree) {
		return "", false, nil
	}
	r, err := resolve(repo.WorkTree)
	if err != nil {
		return "", false, err
	}
	return r, true, nil
}

// nearestDir returns the longest existing directory prefix of t.
func nearestDir(t string) string {
	for d := t; ; d = filepath.Dir(d) {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			return d
		}
		if filepath.Dir(d) == d {
			return d
		}
	}
}

// caseInsensitive reports whether root's file system folds case: the
// manifest, looked up with its name upper-cased, is the same file.
func caseInsensitive(root string) bool {
	a, err := os.Stat(filepath.Join(root, ".hookwarden.yaml"))
	if err != nil {
		return false
	}
	b, err := os.Stat(filepath.Join(root, ".HOOKWARDEN.YAML"))
	return err == nil && os.SameFile(a, b)
}

// guardHit reports whether t (a resolved absolute path) is a guard file of
// the governed repository at root: by name (policy.LookupGuardPath on t
// relative to root, case-folded on a case-insensitive file system), or by
// identity (t, or for a guard directory one of t's existing ancestors, is
// the same file as the guard entry: hard links and case variants).
func (g *guard) guardHit(root, t string) (hit, bool, error) {
	fold := caseInsensitive(root)
	if rel, ok := within(root, t); ok {
		if e, ok := policy.LookupGuardPath(rel, fold); ok {
			return hit{root: root, entry: e, rel: rel}, true, nil
		}
	}
	tfi, terr := os.Stat(t)
	for _, e := range policy.GuardPaths() {
		if err := g.alive(); err != nil {
			return hit{}, false, err
		}
		efi, err := os.Stat(filepath.Join(root, filepath.FromSlash(e.Path)))
		if err != nil {
			continue
		}
		if terr == nil && os.SameFile(tfi, efi) {
			return hit{root: root, entry: e, rel: e.Path}, true, nil
		}
		if !e.Dir {
			continue
		}
		for d := filepath.Dir(t); d != filepath.Dir(d); d = filepath.Dir(d) {
			if dfi, err := os.Stat(d); err == nil && os.SameFile(dfi, efi) {
				return hit{root: root, entry: e, rel: e.Path}, true, nil
			}
		}
	}
	return hit{}, false, nil
}

// within returns t relative to root (slash-separated) when t is root or
// below it.
func within(root, t string) (string, bool) {
	rel, err := filepath.Rel(root, t)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// withinFold is within, comparing case-insensitively when fold.
func withinFold(dir, t string, fold bool) bool {
	if fold {
		dir, t = strings.ToLower(dir), strings.ToLower(t)
	}
	_, ok := within(dir, t)
	return ok
}

// storeRefusal is the reason of an edit refused inside hookwarden's store
// (<git common dir>/hookwarden, engine/dispatch.StoreSubdir).
const storeRefusal = "the edit targets hookwarden's dispatch correlation store (.git/hookwarden), which binds each dispatched agent to its return gate; agents may not change it (the engine writes it itself; reading it is fine)"

// hooksDirHit denies an edit inside the repository's git hooks directory
// (the common git directory's hooks and core.hooksPath, read in process by
// internal/gitdisc) or one the command policy's hooks-dir rule recognises by
// name (policy.HooksPathKind: .git/hooks, .husky, .githooks, ...), and an
// edit of a git config file (where core.hooksPath is set), and an edit
// inside hookwarden's store below the git directory or the common one
// (.git/hookwarden, by name or resolved in process).
func (g *guard) hooksDirHit(root, t, raw string) (verdict.Verdict, bool, error) {
	rel, inside := within(root, t)
	names := []string{raw}
	if inside {
		names = append(names, rel)
	}
	for _, n := range names {
		hooks, conf := policy.HooksPathKind(n)
		if hooks && policy.StorePath(n) {
			return deny(RuleHooksDir, storeRefusal), true, nil
		}
		if hooks {
			return deny(RuleHooksDir, "the edit targets the repository's git hooks directory; agents may not change git hooks (they run on every commit and push). A person changes them outside the agent"), true, nil
		}
		if conf {
			return deny(RuleHooksDir, "the edit targets a git config file, where core.hooksPath decides which hooks git runs; agents may not edit it. A person changes it outside the agent"), true, nil
		}
		switch mgr, startup := policy.StartupOrManagerPath(n); {
		case mgr && !inside:
			// inside the repository a hook manager's config is judged by
			// what the edit does to its hooks (client-hooks-edit, below);
			// outside it (husky's ~/.config/husky/init.sh, ~/.huskyrc) it
			// runs before every hook of every repository
			return deny(RuleHookManager, "the edit targets a hook manager's configuration or start-up file (%s), which decides what the repository's git hooks run; agents may not change it (emptying it switches the hooks off). A person changes it outside the agent", n), true, nil
		case startup:
			return deny(RuleShellStartup, "the edit targets a shell start-up file (%s), which every later shell runs before its commands, so code, a PATH ahead of the engine or a hook manager's switch placed there runs outside any judged command; agents may not change it. A person changes it outside the agent", n), true, nil
		}
	}
	repo, found, err := gitdisc.Find(root)
	if err != nil {
		return verdict.Verdict{}, false, err
	}
	if !found {
		return verdict.Verdict{}, false, nil
	}
	dirs, err := gitdisc.HooksDirs(repo, g.in.Home)
	if err != nil {
		return verdict.Verdict{}, false, err
	}
	fold := caseInsensitive(root)
	gitDirs := []string{repo.GitDir}
	if c, err := gitdisc.CommonDir(repo); err == nil && c != repo.GitDir {
		gitDirs = append(gitDirs, c)
	}
	for _, gd := range gitDirs {
		gdr, err := resolve(gd)
		if err != nil {
			return verdict.Verdict{}, false, err
		}
		// The store may sit in a git directory not named .git (a
		// --separate-git-dir, a bare common directory), which the name
		// check above cannot see.
		if withinFold(filepath.Join(gdr, policy.StoreDirName), t, fold) {
			return deny(RuleHooksDir, storeRefusal), true, nil
		}
		for _, name := range []string{"config", "config.worktree"} {
			if withinFold(filepath.Join(gdr, name), t, fold) {
				return deny(RuleHooksDir, "the edit targets a git config file, where core.hooksPath decides which hooks git runs; agents may not edit it. A person changes it outside the agent"), true, nil
			}
		}
	}
	for _, d := range dirs {
		dr, err := resolve(d)
		if err != nil {
			return verdict.Verdict{}, false, err
		}
		if withinFold(dr, t, fold) {
			return deny(RuleHooksDir, "the edit targets the repository's git hooks directory (core.hooksPath included); agents may not change git hooks (they run on every commit and push). A person changes them outside the agent"), true, nil
		}
	}
	return verdict.Verdict{}, false, nil
}

// clientHooksEdit judges an edit of a client hook settings file: allowed
// only for the edit tools whose result hookwarden can reproduce, when every
// result the client could write still parses as that client's file, holds
// every one of our rows unchanged (clientjson.OurRowTexts) and does not
// switch the client's hooks off (clientjson.HooksDisabled), and whose
// handlers that are not ours are those of the file before or fewer
// (clientjson.ForeignRowTexts: same events, matchers, types, commands and
// exec-form args, compared as canonical JSON, timeouts aside). The client
// runs every handler in the file unjudged, so an agent that added one (a
// Claude PostToolUse row running `rm .hookwarden.yaml`) or changed one's
// command would run code of its own choosing; removing a foreign handler
// stays allowed, since it takes code away and adds none. Reformatting and
// edits of other settings stay allowed.
func (g *guard) clientHooksEdit(h hit) (verdict.Verdict, error) {
	file, before, results, refuse, err := g.edited(h, h.entry.Path+" holds hookwarden's hook rows",
		"that keeps them", "so it cannot check that the rows stay; the edit is refused. Re-read the file and copy old_string exactly, or change the file outside the agent and run `hookwarden conform`")
	if err != nil || refuse != nil {
		return deref(refuse), err
	}
	owner, err := g.owner(h.entry.Client)
	if err != nil {
		return verdict.Verdict{}, err
	}
	want, err := clientjson.OurRowTexts(file, before, h.entry.Client, owner)
	if err != nil {
		return deny(RuleClientHooks, "%s does not parse as it is (%v), so hookwarden cannot tell its rows; the edit is refused. Run `hookwarden conform` (outside the agent) to repair it", h.entry.Path, err), nil
	}
	foreign, err := clientjson.ForeignRowTexts(file, before, h.entry.Client, owner)
	if err != nil {
		return deny(RuleClientHooks, "%s does not parse as it is (%v), so hookwarden cannot tell its rows; the edit is refused. Run `hookwarden conform` (outside the agent) to repair it", h.entry.Path, err), nil
	}
	if why := claudeEnvChange(h.entry, before, results); why != "" {
		return deny(RuleEnvSwitch, "%s", why), nil
	}
	wasOff, _ := clientjson.HooksDisabled(file, before, h.entry.Client)
	offBefore, _ := clientjson.DisabledRows(file, before, h.entry.Client, owner)
	for _, after := range results {
		if err := g.alive(); err != nil {
			return verdict.Verdict{}, err
		}
		got, err := clientjson.OurRowTexts(file, after, h.entry.Client, owner)
		if err != nil {
			return deny(RuleClientHooks, "the edit would leave %s unparseable for its client (%v), which would drop hookwarden's rows; the edit is refused", h.entry.Path, err), nil
		}
		if missing := countMissing(want, got); missing > 0 {
			return deny(RuleClientHooks, "the edit would remove or change %d of hookwarden's hook rows in %s; edits there must keep every hookwarden row byte for byte (other rows and keys are yours to change)", missing, h.entry.Path), nil
		}
		gotForeign, err := clientjson.ForeignRowTexts(file, after, h.entry.Client, owner)
		if err != nil {
			return deny(RuleClientHooks, "the edit would leave %s unparseable for its client (%v), which would drop hookwarden's rows; the edit is refused", h.entry.Path, err), nil
		}
		if added := countMissing(gotForeign, foreign); added > 0 {
			return deny(RuleClientHooks, "the edit would add or change %d hook handler(s) in %s that are not hookwarden's; the client runs those unjudged, so agents may not add or change them (removing one, reformatting and other settings stay allowed). A person adds new or changed hooks by editing the file outside the agent, then running `hookwarden conform`", added, h.entry.Path), nil
		}
		if off, err := clientjson.HooksDisabled(file, after, h.entry.Client); err == nil && off && !wasOff {
			return deny(RuleClientHooks, "the edit would switch the client's hooks off in %s (hookwarden's rows included); the edit is refused", h.entry.Path), nil
		}
		if n, err := clientjson.DisabledRows(file, after, h.entry.Client, owner); err == nil && n > offBefore {
			return deny(RuleClientHooks, "the edit would list hookwarden's hook commands in hooksConfig.disabled of %s, which switches them off; the edit is refused", h.entry.Path), nil
		}
	}
	return verdict.Verdict{Kind: verdict.Allow}, nil
}

// switchFile is a client settings file that is not a guard file but can
// switch our rows off: Claude Code's .claude/settings.local.json in the
// repository (clientjson.ClaudeLocalSettings) and its user settings
// ~/.claude/settings.json ("disableAllHooks"; Claude Code 2.1.328 settings
// schema, user and project settings), and Gemini CLI's user settings
// ~/.gemini/settings.json ("hooksConfig": enabled false, or disabled
// listing our commands; Gemini CLI 0.61.0 reads $GEMINI_CLI_HOME or $HOME
// /.gemini/settings.json, ../shared/e2e/README.md section 3). Home-relative
// files are found through the hook's $HOME only (CLAUDE_CONFIG_DIR and
// GEMINI_CLI_HOME are not read).
type switchFile struct {
	path   string // resolved absolute path
	name   string // how reasons name it
	client string
	fold   bool
}

func (g *guard) switchFiles(root string) ([]switchFile, error) {
	out := []switchFile{{path: filepath.Join(root, filepath.FromSlash(clientjson.ClaudeLocalSettings)),
		name: clientjson.ClaudeLocalSettings, client: "claude", fold: caseInsensitive(root)}}
	if g.in.Home != "" && filepath.IsAbs(g.in.Home) {
		for _, f := range []struct{ rel, client string }{{".claude/settings.json", "claude"}, {".gemini/settings.json", "gemini"}} {
			p, err := resolve(filepath.Join(g.in.Home, filepath.FromSlash(f.rel)))
			if err != nil {
				return nil, err
			}
			out = append(out, switchFile{path: p, name: "~/" + f.rel, client: f.client})
		}
	}
	return out, nil
}

// matchSwitch returns the hit for the switch file t is (by name, folded
// where the file system folds case, or by identity), or nil.
func matchSwitch(switches []switchFile, t string) *hit {
	tfi, terr := os.Stat(t)
	for _, sw := range switches {
		same := t == sw.path || (sw.fold && strings.EqualFold(t, sw.path))
		if !same && terr == nil {
			if fi, err := os.Stat(sw.path); err == nil && os.SameFile(tfi, fi) {
				same = true
			}
		}
		if same {
			return &hit{file: sw.path, entry: policy.GuardPath{Path: sw.name, Client: sw.client}}
		}
	}
	return nil
}

// shadowFiles are the files in the repository whose mere existence makes
// a client skip the file holding our rows: Factory Droid's
// .factory/hooks.json, read instead of the hooks key of
// .factory/settings.json when it exists (clientjson.DroidHooksFile gives
// the sources). adopt never writes them; an edit tool could create one.
func shadowFiles(root string) []switchFile {
	return []switchFile{{path: filepath.Join(root, filepath.FromSlash(clientjson.DroidHooksFile)),
		name: clientjson.DroidHooksFile, client: "droid", fold: caseInsensitive(root)}}
}

// shadowEdit judges an edit (creating or changing) of a shadow file: a deny
// when the file it shadows, in root, holds any of our rows or cannot be
// read or parsed to tell; an allow when that file is absent or holds none
// of ours (the client is not governed there).
func (g *guard) shadowEdit(h hit, root string) (verdict.Verdict, error) {
	settings := filepath.Join(root, filepath.FromSlash(clientjson.DroidSettings))
	src, exists, err := readBounded(settings)
	if err != nil {
		return verdict.Verdict{}, err
	}
	if !exists {
		return verdict.Verdict{Kind: verdict.Allow}, nil
	}
	if err := shapeBound(settings, src); err != nil {
		return deny(RuleParseBound, "%s is past what hookwarden parses within its budget (%v), so it cannot tell whether it holds hookwarden's rows, which %s would switch off; the edit is refused", clientjson.DroidSettings, err, h.entry.Path), nil
	}
	owner, err := g.owner(h.entry.Client)
	if err != nil {
		return verdict.Verdict{}, err
	}
	rows, err := clientjson.OurRowTexts(settings, src, h.entry.Client, owner)
	if err != nil {
		return deny(RuleClientHooks, "%s does not parse as it is (%v), so hookwarden cannot tell whether it holds hookwarden's rows, which %s would switch off; the edit is refused", clientjson.DroidSettings, err, h.entry.Path), nil
	}
	if len(rows) == 0 {
		return verdict.Verdict{Kind: verdict.Allow}, nil
	}
	return deny(RuleClientHooks, "%s holds hookwarden's rows, and newer %s releases read hooks from %s instead of that file when it exists, which would switch them off; agents may not create or change %s. A person puts hooks into %s outside the agent, then runs `hookwarden conform`", clientjson.DroidSettings, clientname.Title(h.entry.Client), h.entry.Path, h.entry.Path, clientjson.DroidSettings), nil
}

// owner returns the definition of our rows in client's hook file
// (Input.Owner), or an error when none is wired in.
func (g *guard) owner(client string) (*clientjson.Owner, error) {
	if g.in.Owner == nil {
		return nil, errors.New("no definition of our rows wired in")
	}
	return g.in.Owner(client)
}

// switchEdit judges an edit of a switch file: the edit is applied as the
// client would and refused when any result switches the client's hooks off
// where the file did not before (clientjson.HooksDisabled) or lists more of
// our commands in Gemini's hooksConfig.disabled (clientjson.DisabledRows),
// or when hookwarden cannot reproduce it. A result that does not parse is
// let through: the client then ignores the file, its switches included.
func (g *guard) switchEdit(h hit) (verdict.Verdict, error) {
	file, before, results, refuse, err := g.edited(h, h.entry.Path+" is read by "+clientname.Title(h.entry.Client)+" as settings, where one key switches hookwarden's rows off",
		"hookwarden can check", "so it cannot check it; the edit is refused. Re-read the file and copy old_string exactly")
	if err != nil || refuse != nil {
		return deref(refuse), err
	}
	owner, err := g.owner(h.entry.Client)
	if err != nil {
		return verdict.Verdict{}, err
	}
	if why := claudeEnvChange(h.entry, before, results); why != "" {
		return deny(RuleEnvSwitch, "%s", why), nil
	}
	wasOff, _ := clientjson.HooksDisabled(file, before, h.entry.Client)
	offBefore, _ := clientjson.DisabledRows(file, before, h.entry.Client, owner)
	foreign, _ := clientjson.ForeignRowTexts(file, before, h.entry.Client, owner)
	for _, after := range results {
		if off, err := clientjson.HooksDisabled(file, after, h.entry.Client); err == nil && off && !wasOff {
			return deny(RuleClientHooks, "the edit would switch every %s hook off in %s, hookwarden's rows included; the edit is refused", clientname.Title(h.entry.Client), h.entry.Path), nil
		}
		// The client runs the hooks of this file beside ours, unjudged,
		// as it does those of the file holding our rows (clientHooksEdit).
		if got, err := clientjson.ForeignRowTexts(file, after, h.entry.Client, owner); err == nil {
			if added := countMissing(got, foreign); added > 0 {
				return deny(RuleClientHooks, "the edit would add or change %d hook handler(s) in %s; %s runs those beside hookwarden's rows, unjudged, so agents may not add or change them (removing one and other settings stay allowed). A person adds hooks outside the agent", added, h.entry.Path, clientname.Title(h.entry.Client)), nil
			}
		}
		if n, err := clientjson.DisabledRows(file, after, h.entry.Client, owner); err == nil && n > offBefore {
			return deny(RuleClientHooks, "the edit would list hookwarden's hook commands in hooksConfig.disabled of %s, which switches them off; the edit is refused", h.entry.Path), nil
		}
	}
	return verdict.Verdict{Kind: verdict.Allow}, nil
}

// edited applies the call's edit to the file h names and returns the file's
// path, its current bytes and every result the client could write. refuse
// is set instead when the tool is not an edit apply reproduces or the edit
// cannot be reproduced exactly; its reason is what (why the file matters),
// then which edits are allowed (kind) or why the edit cannot be checked
// (then).
func (g *guard) edited(h hit, what, kind, then string) (file string, before []byte, results [][]byte, refuse *verdict.Verdict, err error) {
	file = h.file
	if file == "" {
		file = filepath.Join(h.root, filepath.FromSlash(h.entry.Path))
	}
	if !editTool(g.in.Client, g.in.Tool) {
		v := deny(RuleClientHooks, "%s; only an Edit/MultiEdit/Write (Gemini: replace/write_file) %s is allowed there, and %s is not one of those tools", what, kind, g.in.Tool)
		return "", nil, nil, &v, nil
	}
	before, exists, err := readBounded(file)
	if err != nil {
		return "", nil, nil, nil, err
	}
	if err := g.alive(); err != nil {
		return "", nil, nil, nil, err
	}
	results, why := apply(g.in.Client, g.in.Tool, g.in.ToolInput, before, exists)
	if why != "" {
		v := deny(RuleClientHooks, "%s, and hookwarden cannot reproduce this edit exactly (%s), %s", what, why, then)
		return "", nil, nil, &v, nil
	}
	for i, b := range append([][]byte{before}, results...) {
		if err := shapeBound(file, b); err != nil {
			when := "the file as it is"
			if i > 0 {
				when = "the file the edit would write"
			}
			var dup *parsebound.DuplicateError
			if errors.As(err, &dup) {
				v := deny(RuleClientHooks, "%s; in %s %v, while a reader of the first would see another file. hookwarden does not guess which one a client reads; the edit is refused. Name each key once", what, when, err)
				return "", nil, nil, &v, nil
			}
			v := deny(RuleParseBound, "%s; %s is past what hookwarden parses within its budget (%v), so the edit is refused. Keep the file flat and small, or change it outside the agent", what, when, err)
			return "", nil, nil, &v, nil
		}
	}
	return file, before, results, nil, nil
}

// shapeBound checks src, the bytes of the config file at path, against the
// bounds of the parser its extension selects (internal/parsebound: JSON and
// JSONC, TOML, YAML) before that parser runs; nil for other extensions.
// The JSON check also refuses a member name twice in one object, which the
// clients read as the last one.
func shapeBound(path string, src []byte) error {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".json", ".jsonc":
		return parsebound.JSON(src)
	case ".toml":
		return parsebound.TOML(src)
	case ".yml", ".yaml":
		return parsebound.YAML(src)
	}
	return nil
}

// claudeEnvChange is envBlockChange for a Claude Code settings file (entry
// names its client), "" for any other client's file.
func claudeEnvChange(e policy.GuardPath, before []byte, results [][]byte) string {
	if e.Client != "claude" {
		return ""
	}
	return envBlockChange(e.Path, before, results)
}

func deref(v *verdict.Verdict) verdict.Verdict {
	if v == nil {
		return verdict.Verdict{}
	}
	return *v
}

// countMissing returns how many entries of want (a multiset) got lacks.
func countMissing(want, got []string) int {
	have := map[string]int{}
	for _, s := range got {
		have[s]++
	}
	n := 0
	for _, s := range want {
		if have[s] > 0 {
			have[s]--
			continue
		}
		n++
	}
	return n
}

// readBounded reads a file of at most MaxFileBytes; exists is false when it
// does not exist.
func readBounded(path string) (data []byte, exists bool, err error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", path, err)
	}
	defer f.Close()
	data, err = io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", path, err)
	}
	if len(data) > MaxFileBytes {
		return nil, false, fmt.Errorf("%s: larger than %d bytes", path, MaxFileBytes)
	}
	return data, true, nil
}

func deny(rule, format string, args ...any) verdict.Verdict {
	return verdict.Verdict{Kind: verdict.Deny, RuleID: rule,
		Reason: verdict.Cap("[BLOCKED BY hookwarden:" + rule + "] " + fmt.Sprintf(format, args...))}
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}
