package spawn

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sync"
	"time"

	"github.com/hookwarden/hookwarden/internal/fileowner"
	"github.com/hookwarden/hookwarden/internal/regread"
	"github.com/hookwarden/hookwarden/spawn/redact"
)

// RunSessionsDir holds the run records of sessions that passed agent_exit
// under a redaction entry (run/sessions/<session id>.json, 0600, in a 0700
// directory): what a native resume of that session is checked against
// (ADR-0134 D7 "Native resume").
const RunSessionsDir = "run/sessions"

// sessionIDForm is the form of a Claude session id spawn exec resumes: a
// lower-case UUID (what --session-id takes and newSessionID mints).
var sessionIDForm = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
})

// runRecord is run/sessions/<session id>.json: the session, the redaction
// baseline it ran under (redactionBaseline), the digest of the table its
// last run held, its working directory's real path, its transcript and that
// transcript's SHA-256 as agent_exit passed it, and the tool-call ids its
// runs' pre-tool hooks receipted (carried into a resumed run's receipts,
// since the continued transcript holds those calls). Written only when a
// run passed agent_exit; removed when a run of the session fails.
type runRecord struct {
	Version          int      `json:"version"`
	Engine           string   `json:"engine"`
	SessionID        string   `json:"session_id"`
	Baseline         string   `json:"baseline"`
	TableSHA256      string   `json:"table_sha256"`
	Cwd              string   `json:"cwd"`
	Transcript       string   `json:"transcript"`
	TranscriptSHA256 string   `json:"transcript_sha256"`
	Receipted        []string `json:"receipted_tool_calls"`
	Recorded         string   `json:"recorded"`
}

// redactionBaseline returns "sha256:<hex>" over what makes a spawn's
// redaction baseline: the engine and its version, and every hook of the
// redaction entry (agent_prompt, agent_exit and the entry's engine hooks)
// by event, native event, matcher, final argv, timeout and the content
// digest of its argv[0]. Two spawns with the same baseline run the same
// hook program with the same arguments on the same events.
func redactionBaseline(r *Render) (string, error) {
	type part struct {
		Event, Native, Matcher string
		Argv                   []string
		Timeout                int
		Digest                 string
	}
	hooks := []CompiledHook{r.Redaction.Prompt, r.Redaction.Exit}
	for _, h := range r.Hooks {
		if h.Hook == r.Redaction.Entry {
			hooks = append(hooks, h)
		}
	}
	parts := make([]part, 0, len(hooks))
	for _, h := range hooks {
		d, err := fileDigest(h.Argv[0])
		if err != nil {
			return "", fmt.Errorf("the redaction hook %s: %w", h.Argv[0], err)
		}
		parts = append(parts, part{h.Event, h.Native, h.Matcher, h.Argv, h.Timeout, d})
	}
	slices.SortFunc(parts, func(a, b part) int {
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		return bytes.Compare(ja, jb)
	})
	b, _ := json.Marshal(struct {
		Engine, Version string
		Hooks           []part
	}{r.Engine, r.Version, parts})
	s := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(s[:]), nil
}

// sessionsDir returns run/sessions under home after checking that, when it
// exists, it is this account's 0700 directory and not a link.
func sessionsDir(home string) (string, error) {
	dir := filepath.Join(home, RunSessionsDir)
	fi, err := os.Lstat(dir)
	if err != nil {
		return dir, err
	}
	if !fi.IsDir() || fi.Mode().Perm() != 0o700 || !fileowner.Self(fi) {
		return dir, fmt.Errorf("%s must be this account's directory with mode 0700 (is %v)", dir, fi.Mode())
	}
	return dir, nil
}

// readRunRecord reads the run record of session id under home: the
// directory as sessionsDir checks it, the file this account's regular 0600
// file (redact.ReadPrivate), one version-1 record naming that session.
func readRunRecord(home, id string) (*runRecord, error) {
	dir, err := sessionsDir(home)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, id+".json")
	b, err := redact.ReadPrivate(path)
	if err != nil {
		return nil, err
	}
	var rec runRecord
	if err := decodeStrict(b, &rec); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if rec.Version != 1 || rec.SessionID != id {
		return nil, fmt.Errorf("%s: not a version-1 record of session %s", path, id)
	}
	return &rec, nil
}

// writeRunRecord writes rec to run/sessions/<session id>.json under home
// (directory created 0700, file through redact.WriteRunFile: exclusive
// temporary file, 0600, rename).
func writeRunRecord(home string, rec runRecord) error {
	dir := filepath.Join(home, RunSessionsDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if _, err := sessionsDir(home); err != nil {
		return err
	}
	rec.Version, rec.Recorded = 1, time.Now().UTC().Format(time.RFC3339)
	b, _ := json.MarshalIndent(rec, "", "  ")
	return redact.WriteRunFile(filepath.Join(dir, rec.SessionID+".json"), append(b, '\n'))
}

// removeRunRecord removes the run record of session id under home (absent
// is fine).
func removeRunRecord(home, id string) error {
	err := os.Remove(filepath.Join(home, RunSessionsDir, id+".json"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// checkResume decides a native resume of session id under a redaction
// entry before any hook runs: the session needs a run record of this home
// (readRunRecord) for the same engine, made under the same baseline, from
// the same working directory, whose transcript is the one this spawn
// derives and still has the bytes agent_exit passed. It returns the record
// and the transcript's bytes, or a refusal (redaction-resume) naming what
// differs.
func checkResume(home string, r *Render, baseline, id, transcript, cwd string) (*runRecord, []byte, error) {
	rec, err := readRunRecord(home, id)
	if err != nil {
		return nil, nil, refuse(ReasonRedactionResume, "session %s has no usable run record, so nothing shows it started under this redaction baseline: %v", id, err)
	}
	switch {
	case rec.Engine != r.Engine:
		return nil, nil, refuse(ReasonRedactionResume, "session %s ran under %s, not %s", id, rec.Engine, r.Engine)
	case rec.Baseline != baseline:
		return nil, nil, refuse(ReasonRedactionResume, "session %s started under another redaction baseline (%s; now %s): its history was not redacted by these hooks", id, rec.Baseline, baseline)
	case rec.Cwd != cwd || rec.Transcript != transcript || transcript == "":
		return nil, nil, refuse(ReasonRedactionResume, "session %s ran in %s with its transcript at %s; this spawn runs in %s and derives %q", id, rec.Cwd, rec.Transcript, cwd, transcript)
	}
	b, err := readTranscriptFile(transcript)
	if err != nil {
		return nil, nil, refuse(ReasonRedactionResume, "session %s's transcript: %v", id, err)
	}
	if d := redact.Digest(b); d != rec.TranscriptSHA256 {
		return nil, nil, refuse(ReasonRedactionResume, "session %s's transcript %s changed after agent_exit passed it", id, transcript)
	}
	return rec, b, nil
}

// maxTranscriptBytes bounds the transcript spawn exec reads to check a
// resume.
const maxTranscriptBytes = 256 << 20

// readTranscriptFile reads a transcript with internal/regread: a regular
// file (a FIFO refused without blocking), at most maxTranscriptBytes.
func readTranscriptFile(path string) ([]byte, error) {
	return regread.File(path, maxTranscriptBytes)
}

// resumedReceipts returns the receipts file's first content for a resumed
// run: one pre_tool receipt (route "resumed") per tool call the record's
// runs receipted, so agent_exit, which checks every tool call of the
// continued transcript, finds the earlier runs' calls receipted.
func resumedReceipts(engine string, ids []string) []byte {
	var b bytes.Buffer
	for _, id := range ids {
		ln, _ := json.Marshal(redact.Receipt{Event: "pre_tool", Engine: engine, ToolUseID: id, Route: "resumed"})
		b.Write(ln)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// receiptedIDs returns the tool-call ids of the pre_tool receipts in the
// receipts bytes b, in order, without repeats.
func receiptedIDs(b []byte) []string {
	ids, seen := []string{}, map[string]bool{}
	for _, ln := range bytes.Split(b, []byte("\n")) {
		var rc redact.Receipt
		if json.Unmarshal(ln, &rc) == nil && rc.Event == "pre_tool" && rc.ToolUseID != "" && !seen[rc.ToolUseID] {
			seen[rc.ToolUseID] = true
			ids = append(ids, rc.ToolUseID)
		}
	}
	return ids
}

// recordSession writes the run record of a run that passed agent_exit:
// session sid's transcript digest as it is now, and the pre_tool receipts
// of the run's receipts file (those carried in from the session's earlier
// runs included).
func recordSession(home string, r *Render, baseline string, table []byte, cwd, sid, transcript, receiptsPath string) error {
	tb, err := readTranscriptFile(transcript)
	if err != nil {
		return err
	}
	rb, err := redact.ReadPrivate(receiptsPath)
	if err != nil {
		return err
	}
	return writeRunRecord(home, runRecord{Engine: r.Engine, SessionID: sid, Baseline: baseline, TableSHA256: redact.Digest(table),
		Cwd: cwd, Transcript: transcript, TranscriptSHA256: redact.Digest(tb), Receipted: receiptedIDs(rb)})
}
