package spawn

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/hookwarden/hookwarden/internal/atomicfile"
)

// Approval states reported by trust list and used by Compile.
const (
	StateApproved      = "approved"
	StateMissing       = "missing"
	StatePathChanged   = "the resolved executable path changed"
	StateDigestChanged = "the executable's content changed"
	StateUnresolvable  = "the executable cannot be resolved or read"
)

// resolveExecutable returns the symlink-free absolute path of argv0 and its
// content digest "sha256:<hex>".
func resolveExecutable(argv0 string) (string, string, error) {
	p, err := filepath.EvalSymlinks(argv0)
	if err != nil {
		return "", "", err
	}
	p, err = filepath.Abs(p)
	if err != nil {
		return "", "", err
	}
	d, err := fileDigest(p)
	if err != nil {
		return "", "", err
	}
	return p, d, nil
}

// approvalState returns the state of argv in store (one of the State*
// constants) and the matching record when one exists.
func approvalState(store Approvals, argv []string) (string, *Approval) {
	hash := ArgvHash(argv)
	for i := range store.Approvals {
		rec := &store.Approvals[i]
		if rec.ArgvHash != hash {
			continue
		}
		p, d, err := resolveExecutable(argv[0])
		switch {
		case err != nil:
			return StateUnresolvable, rec
		case p != rec.Path:
			return StatePathChanged, rec
		case d != rec.Digest:
			return StateDigestChanged, rec
		}
		return StateApproved, rec
	}
	return StateMissing, nil
}

// ReadApprovals reads <home>/approvals.json (bounded, regular file only);
// an absent file is an empty store. A read or parse failure is a *Refusal
// with ReasonApprovalsUnreadable.
func ReadApprovals(home string) (Approvals, error) {
	s, _, err := readApprovalsBytes(home)
	return s, err
}

// readApprovalsBytes is ReadApprovals that also returns the bytes it parsed
// (nil for an absent store), for the compare-and-swap of updateApprovals.
func readApprovalsBytes(home string) (Approvals, []byte, error) {
	path := filepath.Join(home, ApprovalsFile)
	b, err := readSmall(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Approvals{Version: 1}, nil, nil
	}
	if err != nil {
		return Approvals{}, nil, refuse(ReasonApprovalsUnreadable, "%s: %v", path, err)
	}
	var s Approvals
	if err := decodeStrict(b, &s); err != nil || s.Version != 1 {
		if err == nil {
			err = fmt.Errorf("version %d, want 1", s.Version)
		}
		return Approvals{}, nil, refuse(ReasonApprovalsUnreadable, "%s: %v", path, err)
	}
	return s, b, nil
}

// ErrApprovalsChanged is returned (wrapped with the path) when approvals.json
// changed between an update's read and its write; nothing was written and
// the caller may run the update again.
var ErrApprovalsChanged = errors.New("changed while it was being updated; nothing written, run the command again")

// updateApprovals is the one read-modify-write of <home>/approvals.json: it
// takes an exclusive lock on <home>/approvals.json.lock (so two hookwarden
// processes serialise), reads the store, applies change, and before the
// atomic rename (internal/atomicfile, mode 0600) reads the file again and writes only
// when its bytes are still those it read (compare-and-swap against an
// editor or a process that does not take the lock). change returning false
// means nothing to write.
func updateApprovals(home string, change func(*Approvals) (bool, error)) error {
	path := filepath.Join(home, ApprovalsFile)
	if err := os.MkdirAll(home, 0o700); err != nil {
		return fmt.Errorf("hookwarden: approvals: %w", err)
	}
	lock, err := os.OpenFile(path+".lock", os.O_RDWR|os.O_CREATE|syscall.O_NONBLOCK, 0o600)
	if err != nil {
		return fmt.Errorf("hookwarden: approvals lock: %w", err)
	}
	defer lock.Close()
	if err := lockFile(lock); err != nil {
		return fmt.Errorf("hookwarden: approvals lock %s: %w", lock.Name(), err)
	}
	s, before, err := readApprovalsBytes(home)
	if err != nil {
		return err
	}
	write, err := change(&s)
	if err != nil || !write {
		return err
	}
	s.Version = 1
	if s.Approvals == nil {
		s.Approvals = []Approval{}
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("hookwarden: approvals %s: %w", path, err)
	}
	now, err := readSmall(path)
	if errors.Is(err, fs.ErrNotExist) {
		now, err = nil, nil
	}
	if err != nil || !bytes.Equal(now, before) || (now == nil) != (before == nil) {
		return fmt.Errorf("hookwarden: approvals %s: %w", path, ErrApprovalsChanged)
	}
	if err := atomicfile.WriteFile(path, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("hookwarden: approvals %s: %w", path, err)
	}
	return nil
}

// Approve records approvals in <home>/approvals.json for each final argv in
// argvs: its ArgvHash, the argv, the resolved absolute path of argv[0] and
// that file's current digest, replacing an earlier record of the same hash.
// It returns an error naming the executable that cannot be resolved, or the
// store that cannot be read, written, or changed meanwhile
// (ErrApprovalsChanged); on error nothing is written.
func Approve(home string, argvs [][]string) error {
	return updateApprovals(home, func(s *Approvals) (bool, error) {
		for _, argv := range argvs {
			if len(argv) == 0 || !filepath.IsAbs(argv[0]) {
				return false, fmt.Errorf("hookwarden: approve: argv0 must be an absolute path")
			}
			p, d, err := resolveExecutable(argv[0])
			if err != nil {
				return false, fmt.Errorf("hookwarden: approve %s: %w", argv[0], err)
			}
			h := ArgvHash(argv)
			s.Approvals = slices.DeleteFunc(s.Approvals, func(a Approval) bool { return a.ArgvHash == h })
			s.Approvals = append(s.Approvals, Approval{ArgvHash: h, Argv: slices.Clone(argv), Path: p, Digest: d})
		}
		return true, nil
	})
}

// Revoke removes the approvals whose argv hash starts with one of prefixes
// (at least 8 hex characters each) and returns how many it removed.
func Revoke(home string, prefixes []string) (int, error) {
	for _, p := range prefixes {
		if len(p) < 8 {
			return 0, fmt.Errorf("hookwarden: revoke: hash prefix %q is shorter than 8 characters", p)
		}
	}
	n := 0
	err := updateApprovals(home, func(s *Approvals) (bool, error) {
		s.Approvals = slices.DeleteFunc(s.Approvals, func(a Approval) bool {
			for _, p := range prefixes {
				if len(a.ArgvHash) >= len(p) && a.ArgvHash[:len(p)] == p {
					n++
					return true
				}
			}
			return false
		})
		return n > 0, nil
	})
	if err != nil {
		return 0, err
	}
	return n, nil
}

// SelectForApproval returns the rows `trust approve` approves: with all,
// every row whose state is StateMissing (never a stale one: an argv whose
// executable's path or content changed since its approval is re-approved
// only when named by its hash, after the operator has seen why it is
// stale); and every row whose argv hash starts with one of prefixes (at
// least 8 characters each). Rows without an argv are never selected.
// skipped lists the stale rows that all left out.
func SelectForApproval(rows []TrustRow, all bool, prefixes []string) (chosen, skipped []TrustRow) {
	for _, r := range rows {
		if r.Argv == nil {
			continue
		}
		named := false
		for _, p := range prefixes {
			named = named || (len(p) >= 8 && strings.HasPrefix(r.ArgvHash, p))
		}
		switch {
		case named:
			chosen = append(chosen, r)
		case all && r.State == StateMissing:
			chosen = append(chosen, r)
		case all && r.State != StateApproved:
			skipped = append(skipped, r)
		}
	}
	return chosen, skipped
}

// TrustRow is one concrete argv the registry and layers attach, for one or
// more engines: its hash, argv, approval state (a State* constant), the
// attachments ("<layer>:<hook>@<event>") and engines that produce it.
type TrustRow struct {
	ArgvHash    string   `json:"argv_hash"`
	Argv        []string `json:"argv"`
	State       string   `json:"state"`
	Attachments []string `json:"attachments"`
	Engines     []string `json:"engines"`
}

// TrustList returns every concrete argv the registry of home and the
// optional profile and operator layer files attach, per renderable engine
// ({engine} substituted), with its approval state, in attachment order.
// Attachments whose entry has no argv are listed with argv empty and state
// "no argv". A registry or library that cannot be read is an error.
func TrustList(home, profilePath, operatorPath string) ([]TrustRow, error) {
	snap := TakeSnapshot(home)
	for _, f := range []string{RegistryFile, LibraryFile} {
		if err := snap.readErr[f]; err != nil {
			return nil, fmt.Errorf("hookwarden: trust: %s: %w", filepath.Join(home, f), err)
		}
	}
	var atts []layered
	if !snap.RegistryAbsent {
		var l Layer
		if err := decodeStrict(snap.Registry, &l); err != nil {
			return nil, refuse(ReasonRegistryInvalid, "%s: %v", filepath.Join(home, RegistryFile), err)
		}
		for _, a := range l.Attachments {
			atts = append(atts, layered{LayerRegistry, a})
		}
	}
	for _, l := range []struct{ name, path string }{{LayerProfile, profilePath}, {LayerOperator, operatorPath}} {
		if l.path == "" {
			continue
		}
		layer, err := ReadLayer(l.path)
		if err != nil {
			return nil, err
		}
		for _, a := range layer.Attachments {
			atts = append(atts, layered{l.name, a})
		}
	}
	var lib library
	if len(atts) > 0 {
		if snap.LibraryAbsent {
			return nil, refuse(ReasonLibraryUnreadable, "%s is absent", filepath.Join(home, LibraryFile))
		}
		if err := decodeStrict(snap.Library, &lib); err != nil {
			return nil, refuse(ReasonLibraryInvalid, "%s: %v", filepath.Join(home, LibraryFile), err)
		}
	}
	store, err := ReadApprovals(home)
	if err != nil {
		return nil, err
	}
	rows := []TrustRow{}
	index := map[string]int{}
	for _, l := range atts {
		if l.att.Disable {
			continue
		}
		e, ok := lib.Entries[l.att.Hook]
		label := l.layer + ":" + l.att.Hook + "@" + l.att.Event
		for _, engine := range renderers {
			if !appliesTo(l.att, engine) {
				continue
			}
			var argv []string
			if ok && len(e.Argv) > 0 {
				argv = append(slices.Clone(e.Argv), substitute(l.att.Args, engine)...)
			} else if ok && e.Command != nil {
				argv = []string{"/bin/sh", "-c", *e.Command}
			}
			key := "\x00" + label
			state := "no argv"
			if argv != nil {
				key = ArgvHash(argv)
				state, _ = approvalState(store, argv)
			}
			if i, seen := index[key]; seen {
				r := &rows[i]
				if !slices.Contains(r.Attachments, label) {
					r.Attachments = append(r.Attachments, label)
				}
				if !slices.Contains(r.Engines, engine) {
					r.Engines = append(r.Engines, engine)
				}
				continue
			}
			hash := ""
			if argv != nil {
				hash = key
			}
			index[key] = len(rows)
			rows = append(rows, TrustRow{ArgvHash: hash, Argv: argv, State: state, Attachments: []string{label}, Engines: []string{engine}})
		}
	}
	return rows, nil
}

// WriteTrustList writes rows as `hookwarden trust list` prints them: one
// line per argv with its hash (16 hex digits), its state in one word
// (approved, missing, no-argv or stale), the argv, its attachments and
// engines; "no attachments" when rows is empty. It returns the writer's
// error.
func WriteTrustList(w io.Writer, rows []TrustRow) error {
	var b strings.Builder
	if len(rows) == 0 {
		b.WriteString("no attachments\n")
	}
	for _, r := range rows {
		h := r.ArgvHash
		if len(h) > 16 {
			h = h[:16]
		}
		fmt.Fprintf(&b, "%-16s %-10s %s  [%s; %s]\n", h, stateWord(r.State), ShellQuote(r.Argv), strings.Join(r.Attachments, ", "), strings.Join(r.Engines, ","))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// stateWord is trust list's one-word column for an approval state.
func stateWord(s string) string {
	switch s {
	case StateApproved, StateMissing:
		return s
	case "no argv":
		return "no-argv"
	}
	return "stale"
}
