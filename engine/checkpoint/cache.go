package checkpoint

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/hookwarden/hookwarden/internal/gitdisc"
)

// MaxCacheAge is how long a stored status stays usable when none of its keys
// changed: 30 s. Within it, a change made where no hook of ours sees it (a
// person's editor, a background job, an MCP tool that writes files) is not
// yet counted; everything the agent does through a hooked tool is (see
// EvaluateCached). The thresholds it feeds are in minutes and tens of files,
// and at 500,000 files one status costs seconds, so 30 s keeps a monorepo
// session at roughly one scan per half minute of edits instead of one per
// edit.
const MaxCacheAge = 30 * time.Second

// editLandWindow is how long after its pre-edit an allowed edit is assumed
// to have landed on disk (or never to land): an edit noted in the log is
// counted by every cached answer whose scan started less than this before
// the note, so a scan that raced the tool's write cannot lose it.
const editLandWindow = 60 * time.Second

// maxEditLog bounds the edit log read on a cached call (bytes); a larger log
// disables the cache for that repository until it rotates.
const maxEditLog = 256 << 10

const cacheVersion = 1

// cacheEntry is what <git dir>/hookwarden/checkpoint.json holds.
type cacheEntry struct {
	Version    int      `json:"version"`
	Keys       string   `json:"keys"`
	ScanStart  int64    `json:"scan_start_ns"`
	Root       string   `json:"root"`
	Files      []string `json:"files"`
	HasCommit  bool     `json:"has_commit"`
	LastCommit int64    `json:"last_commit_unix"`
}

// cachePlace is where one checkout's cache lives and what keys it.
type cachePlace struct {
	dir  string // <git dir>/hookwarden
	keys string // see cacheKeys
}

// EvaluateCached is Evaluate for the pre-edit and stop rows: it answers from
// the status stored in the checkout's git directory
// (<git dir>/hookwarden/checkpoint.json, one per checkout, so a linked
// worktree has its own) when that status is younger than MaxCacheAge and
// every key it was stored under is unchanged: the index (size and mtime),
// HEAD and the ref it names (loose ref bytes, packed-refs size and mtime),
// the repository config, info/exclude and the top-level .gitignore. Then no
// process is started. Otherwise it runs Evaluate (which stores a new entry).
//
// A stale answer must not turn a deny into an allow; what keeps it so:
//   - the last-commit time and whether there is a commit are exact (HEAD and
//     its ref are keys), and the age is taken at the call;
//   - every edit an allowed pre-edit lets through is noted (NoteEdit) and
//     counted as changed by every cached answer, so the agent's own edits
//     can only raise the count;
//   - post-tool (after every shell command on the clients that register it)
//     and any change of the index or HEAD (git add, commit, checkout, reset,
//     stash) force a fresh status;
//   - anything unreadable is a miss, never a guess.
//
// What a cached answer can miss is a change no hook sees, for at most
// MaxCacheAge.
func EvaluateCached(ctx context.Context, cwd string, cfg Config, atStop bool) (Result, error) {
	return EvaluateCachedWith(nil)(ctx, cwd, cfg, atStop)
}

// EvaluateCachedWith returns EvaluateCached that also calls refresh (when
// not nil) with cwd each time it answers from an entry at least RefreshAge
// old, so the entry is renewed in the background before it expires.
func EvaluateCachedWith(refresh Refresher) func(ctx context.Context, cwd string, cfg Config, atStop bool) (Result, error) {
	return func(ctx context.Context, cwd string, cfg Config, atStop bool) (Result, error) {
		if !filepath.IsAbs(cwd) {
			return Result{}, fmt.Errorf("checkpoint: cwd %q is not absolute", cwd)
		}
		now := time.Now()
		if place, ok := locate(cwd); ok {
			if s, age, ok := place.load(now); ok {
				if refresh != nil && age >= RefreshAge {
					refresh(cwd)
				}
				return judge(s, cfg, atStop, now), nil
			}
		}
		return Evaluate(ctx, cwd, cfg, atStop)
	}
}

// NoteEdit records that an edit of rel (slash-separated, relative to root,
// the Root of the Result that allowed it) was let through in the checkout
// containing cwd, so cached answers count it as changed. Best effort: a
// failure removes the cached status instead, so the next call scans.
func NoteEdit(cwd, root, rel string) {
	place, ok := locate(cwd)
	if !ok {
		return
	}
	line := strconv.FormatInt(time.Now().UnixNano(), 10) + " " + strconv.Quote(filepath.ToSlash(rel)) + "\n"
	if err := appendLine(filepath.Join(place.dir, "checkpoint.edits"), line); err != nil {
		_ = os.Remove(filepath.Join(place.dir, "checkpoint.json"))
	}
}

// locate finds the checkout containing cwd and its cache keys, without a
// process. ok is false when anything is unusual (no repository, cwd inside
// the git directory, an unreadable key), so the caller asks git.
func locate(cwd string) (cachePlace, bool) {
	repo, found, err := gitdisc.Find(cwd)
	if err != nil || !found {
		return cachePlace{}, false
	}
	if rel, err := filepath.Rel(repo.GitDir, cwd); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return cachePlace{}, false
	}
	keys, ok := cacheKeys(repo)
	if !ok {
		return cachePlace{}, false
	}
	return cachePlace{dir: filepath.Join(repo.GitDir, "hookwarden"), keys: keys}, true
}

// cacheKeys returns one string naming the state every key file is in.
func cacheKeys(repo gitdisc.Repo) (string, bool) {
	common := repo.GitDir
	if b, err := os.ReadFile(filepath.Join(repo.GitDir, "commondir")); err == nil {
		c := strings.TrimSpace(string(b))
		if !filepath.IsAbs(c) {
			c = filepath.Join(repo.GitDir, c)
		}
		common = filepath.Clean(c)
	}
	head, err := os.ReadFile(filepath.Join(repo.GitDir, "HEAD"))
	if err != nil || len(head) > 4096 {
		return "", false
	}
	var b strings.Builder
	b.WriteString(repo.WorkTree)
	b.WriteString("\x00")
	b.Write(head)
	if ref, ok := strings.CutPrefix(strings.TrimSpace(string(head)), "ref: "); ok {
		if strings.Contains(ref, "..") {
			return "", false
		}
		loose, err := os.ReadFile(filepath.Join(common, filepath.FromSlash(ref)))
		if err != nil && !os.IsNotExist(err) {
			return "", false
		}
		b.WriteString("\x00")
		b.Write(loose)
	}
	for _, p := range []string{
		filepath.Join(repo.GitDir, "index"),
		filepath.Join(common, "packed-refs"),
		filepath.Join(common, "config"),
		filepath.Join(repo.GitDir, "config.worktree"),
		filepath.Join(common, "info", "exclude"),
		filepath.Join(repo.WorkTree, ".gitignore"),
	} {
		b.WriteString("\x00")
		st, err := os.Stat(p)
		switch {
		case os.IsNotExist(err):
			b.WriteString("-")
		case err != nil:
			return "", false
		default:
			fmt.Fprintf(&b, "%d/%d", st.Size(), st.ModTime().UnixNano())
		}
	}
	return b.String(), true
}

// load returns the stored snapshot with the noted edits added and the
// entry's age at now, when the entry is younger than MaxCacheAge at now and
// stored under the same keys.
func (p cachePlace) load(now time.Time) (snapshot, time.Duration, bool) {
	data, err := os.ReadFile(filepath.Join(p.dir, "checkpoint.json"))
	if err != nil {
		return snapshot{}, 0, false
	}
	var e cacheEntry
	if json.Unmarshal(data, &e) != nil || e.Version != cacheVersion || e.Keys != p.keys || e.Root == "" {
		return snapshot{}, 0, false
	}
	age := now.Sub(time.Unix(0, e.ScanStart))
	if age < 0 || age > MaxCacheAge {
		return snapshot{}, 0, false
	}
	noted, ok := p.noted(e.ScanStart - int64(editLandWindow))
	if !ok {
		return snapshot{}, 0, false
	}
	s := snapshot{root: e.Root, files: append(e.Files, noted...), hasCommit: e.HasCommit}
	if e.HasCommit {
		s.lastCommit = time.Unix(e.LastCommit, 0)
	}
	return s, age, true
}

// noted returns the paths of the edit log (and its rotated predecessor)
// noted at or after since (Unix ns); ok is false when a log is unreadable,
// too large or malformed.
func (p cachePlace) noted(since int64) (paths []string, ok bool) {
	for _, name := range []string{"checkpoint.edits.old", "checkpoint.edits"} {
		data, err := os.ReadFile(filepath.Join(p.dir, name))
		if os.IsNotExist(err) {
			continue
		}
		if err != nil || len(data) > maxEditLog {
			return nil, false
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		for sc.Scan() {
			ts, q, found := strings.Cut(sc.Text(), " ")
			t, err1 := strconv.ParseInt(ts, 10, 64)
			rel, err2 := strconv.Unquote(q)
			if !found || err1 != nil || err2 != nil {
				return nil, false
			}
			if t >= since {
				paths = append(paths, rel)
			}
		}
	}
	return paths, true
}

// store writes s, scanned from start on, under the keys read before the scan
// (keysBefore); it stores nothing when the keys moved during the scan. It
// also rotates the edit log once its newest line is older than the window.
// Best effort: the cache is an optimisation, a failed write only costs the
// next call a scan.
func store(cwd, keysBefore string, start time.Time, s snapshot) {
	place, ok := locate(cwd)
	if !ok || place.keys != keysBefore || keysBefore == "" {
		return
	}
	if err := os.MkdirAll(place.dir, 0o700); err != nil {
		return
	}
	e := cacheEntry{Version: cacheVersion, Keys: place.keys, ScanStart: start.UnixNano(), Root: s.root, Files: s.files, HasCommit: s.hasCommit}
	if s.hasCommit {
		e.LastCommit = s.lastCommit.Unix()
	}
	data, err := json.Marshal(e)
	if err != nil {
		return
	}
	tmp, err := os.CreateTemp(place.dir, ".checkpoint-*.tmp")
	if err != nil {
		return
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if werr != nil || cerr != nil || os.Rename(tmp.Name(), filepath.Join(place.dir, "checkpoint.json")) != nil {
		_ = os.Remove(tmp.Name())
		return
	}
	place.rotate(start.UnixNano() - int64(editLandWindow))
}

// rotate renames the edit log over its predecessor when neither holds a line
// noted at or after before (Unix ns): a line appended to the renamed file
// stays readable in .old, and the next rotation needs both quiet.
func (p cachePlace) rotate(before int64) {
	if _, err := os.Stat(filepath.Join(p.dir, "checkpoint.edits")); err != nil {
		return
	}
	if recent, ok := p.noted(before); !ok || len(recent) > 0 {
		return
	}
	_ = os.Rename(filepath.Join(p.dir, "checkpoint.edits"), filepath.Join(p.dir, "checkpoint.edits.old"))
}

// appendLine appends line to path with one write (O_APPEND), creating the
// file and its directory.
func appendLine(path, line string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	_, werr := f.WriteString(line)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	return werr
}
