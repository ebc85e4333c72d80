package spawn

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/google/renameio/v2"
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

// ReadApprovals reads <home>/approvals.json; an absent file is an empty
// store. A read or parse failure is a *Refusal with ReasonApprovalsUnreadable.
func ReadApprovals(home string) (Approvals, error) {
	path := filepath.Join(home, ApprovalsFile)
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return Approvals{Version: 1}, nil
	}
	if err != nil {
		return Approvals{}, refuse(ReasonApprovalsUnreadable, "%s: %v", path, err)
	}
	var s Approvals
	if err := decodeStrict(b, &s); err != nil || s.Version != 1 {
		if err == nil {
			err = fmt.Errorf("version %d, want 1", s.Version)
		}
		return Approvals{}, refuse(ReasonApprovalsUnreadable, "%s: %v", path, err)
	}
	return s, nil
}

func writeApprovals(home string, s Approvals) error {
	path := filepath.Join(home, ApprovalsFile)
	if err := os.MkdirAll(home, 0o700); err != nil {
		return fmt.Errorf("hookwarden: approvals: %w", err)
	}
	s.Version = 1
	if s.Approvals == nil {
		s.Approvals = []Approval{}
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("hookwarden: approvals %s: %w", path, err)
	}
	if err := renameio.WriteFile(path, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("hookwarden: approvals %s: %w", path, err)
	}
	return nil
}

// Approve records approvals in <home>/approvals.json for each final argv in
// argvs: its ArgvHash, the argv, the resolved absolute path of argv[0] and
// that file's current digest, replacing an earlier record of the same hash.
// It returns an error naming the executable that cannot be resolved, or the
// store that cannot be read or written; on error nothing is written.
func Approve(home string, argvs [][]string) error {
	s, err := ReadApprovals(home)
	if err != nil {
		return err
	}
	for _, argv := range argvs {
		if len(argv) == 0 || !filepath.IsAbs(argv[0]) {
			return fmt.Errorf("hookwarden: approve: argv0 must be an absolute path")
		}
		p, d, err := resolveExecutable(argv[0])
		if err != nil {
			return fmt.Errorf("hookwarden: approve %s: %w", argv[0], err)
		}
		h := ArgvHash(argv)
		s.Approvals = slices.DeleteFunc(s.Approvals, func(a Approval) bool { return a.ArgvHash == h })
		s.Approvals = append(s.Approvals, Approval{ArgvHash: h, Argv: slices.Clone(argv), Path: p, Digest: d})
	}
	return writeApprovals(home, s)
}

// Revoke removes the approvals whose argv hash starts with one of prefixes
// (at least 8 hex characters each) and returns how many it removed.
func Revoke(home string, prefixes []string) (int, error) {
	s, err := ReadApprovals(home)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, p := range prefixes {
		if len(p) < 8 {
			return 0, fmt.Errorf("hookwarden: revoke: hash prefix %q is shorter than 8 characters", p)
		}
	}
	s.Approvals = slices.DeleteFunc(s.Approvals, func(a Approval) bool {
		for _, p := range prefixes {
			if len(a.ArgvHash) >= len(p) && a.ArgvHash[:len(p)] == p {
				n++
				return true
			}
		}
		return false
	})
	if n == 0 {
		return 0, nil
	}
	return n, writeApprovals(home, s)
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
