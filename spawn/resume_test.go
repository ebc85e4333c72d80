package spawn

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sessionStarted returns the session id of the last engine start in a
// fake run's start log (its --session-id or --resume value).
func sessionStarted(t *testing.T, started string) string {
	t.Helper()
	lines := strings.Split(started, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if rest, ok := strings.CutPrefix(lines[i], "start "); ok {
			f := strings.Fields(rest)
			for j := 0; j+1 < len(f); j++ {
				if f[j] == "--session-id" || f[j] == "--resume" {
					return f[j+1]
				}
			}
		}
	}
	t.Fatalf("no session in the start log:\n%s", started)
	return ""
}

// TestRedactionResume is ADR-0134 D7's native resume on the fake claude: a
// run that passes agent_exit leaves a run record (0600 in the 0700
// run/sessions, no raw value), and `--resume <that id>` then runs under the
// same entry, without --session-id, continuing the same transcript, with
// the earlier run's receipted tool calls carried into its receipts so
// agent_exit, scanning the whole continued transcript, passes. Each other
// resume is refused before the spawn with redaction-resume: the transcript
// edited after its run passed, the entry's baseline changed (a timeout),
// another config directory (another transcript), a transcript holding a
// value this run's table has and the recorded run's lacked, and a session
// whose last run failed (its record removed).
func TestRedactionResume(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cmd/hookwarden; -short")
	}
	w := newRedactWorld(t, map[string]string{"[GH_TOKEN]": realRaw}, "", "", "")
	refused := func(name string, r fakeRun, detail string) {
		t.Helper()
		ref := AsRefusal(r.err)
		if r.code != RefusedExit || ref == nil || ref.Reason != ReasonRedactionResume || !strings.Contains(ref.Detail, detail) {
			t.Errorf("%s: got %d %v, want redaction-resume (%s)", name, r.code, r.err, detail)
		}
		noRunFiles(t, w)
	}

	// run 1: a tool call (its receipt written as the pre-tool hook would)
	// and a build id in the transcript, which is in no table yet
	rcpt := `FAKE_BEFORE=printf '%s\n' '{"event":"pre_tool","engine":"claude","tool_use_id":"toolu_01","tool":"Bash","route":"shell"}' >> "$HOOKWARDEN_HOOK_RECEIPTS"`
	tr := `FAKE_TRANSCRIPT={"type":"assistant","message":{"content":[{"type":"tool_use","id":"toolu_01","name":"Bash","input":{"command":"echo build-id-778899"}}]}}`
	r1 := runFakeRedact(t, w, "first "+realRaw, nil, rcpt, tr)
	if r1.code != 0 || r1.err != nil {
		t.Fatalf("run 1: %d %v\n%s", r1.code, r1.err, r1.out)
	}
	sid := sessionStarted(t, r1.started)
	dir := filepath.Join(w.home, RunSessionsDir)
	recPath := filepath.Join(dir, sid+".json")
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("run/sessions: %v %v, want a 0700 directory", fi, err)
	}
	fi, err := os.Stat(recPath)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the run record of session %s: %v %v, want a 0600 file", sid, fi, err)
	}
	rb, _ := os.ReadFile(recPath)
	var rec runRecord
	json.Unmarshal(rb, &rec)
	if strings.Contains(string(rb), realRaw) || rec.Baseline == "" || len(rec.Receipted) != 1 || rec.Receipted[0] != "toolu_01" {
		t.Errorf("run record: %s", rb)
	}
	transcript := claudeTranscript([]string{"CLAUDE_CONFIG_DIR=" + w.clientHome}, w.repo, sid)

	// run 2 resumes it: the earlier tool call is receipted by the carried
	// record, and the prompt is redacted as in any run
	r2 := runFakeRedact(t, w, "again "+realRaw, []string{"--resume", sid})
	if r2.code != 0 || r2.err != nil {
		t.Fatalf("the resume: %d %v\n%s", r2.code, r2.err, r2.out)
	}
	last := r2.started[strings.LastIndex(r2.started, "start "):]
	if !strings.Contains(last, "--resume "+sid) || strings.Contains(last, "--session-id") || strings.Contains(last, realRaw) {
		t.Errorf("the resumed engine's argv: %s", strings.SplitN(last, "\n", 2)[0])
	}
	if b, _ := os.ReadFile(transcript); strings.Count(string(b), "\n") != 2 {
		t.Errorf("the resume did not continue the session's transcript %s:\n%s", transcript, b)
	}
	noRunFiles(t, w)

	// refused: the transcript edited after the run passed
	orig, _ := os.ReadFile(transcript)
	os.WriteFile(transcript, append(append([]byte{}, orig...), "{}\n"...), 0o600)
	refused("transcript edited", runFakeRedact(t, w, "again", []string{"--resume", sid}), "changed after agent_exit")
	os.WriteFile(transcript, orig, 0o600)

	// refused: another baseline (the entry's timeout)
	lib := filepath.Join(w.home, LibraryFile)
	lb, _ := os.ReadFile(lib)
	os.WriteFile(lib, []byte(strings.Replace(string(lb), `"timeout":20`, `"timeout":21`, 1)), 0o644)
	refused("baseline changed", runFakeRedact(t, w, "again", []string{"--resume", sid}), "another redaction baseline")
	os.WriteFile(lib, lb, 0o644)

	// refused: another config directory derives another transcript
	refused("another transcript", runFakeRedact(t, w, "again", []string{"--resume", sid}, "CLAUDE_CONFIG_DIR="+t.TempDir()), "derives")

	// refused: the transcript holds a value this run's table has
	refused("value in the history", runFakeRedact(t, w, "again", []string{"--resume", sid}, "BUILD_TOKEN=build-id-778899"), "holds a value of this run's table")

	// still resumable after those refusals; then a failing resume (the
	// raw value in the transcript) removes the record and the next resume
	// is refused
	if r := runFakeRedact(t, w, "again", []string{"--resume", sid}); r.code != 0 || r.err != nil {
		t.Fatalf("the second resume: %d %v\n%s", r.code, r.err, r.out)
	}
	bad := runFakeRedact(t, w, "again", []string{"--resume", sid}, `FAKE_TRANSCRIPT={"type":"user","message":{"content":"`+realRaw+`"}}`)
	if bad.code != RunFailedExit || AsRunFailure(bad.err) == nil {
		t.Fatalf("a resume whose transcript holds the raw value: %d %v, want the run failed", bad.code, bad.err)
	}
	if _, err := os.Stat(recPath); !os.IsNotExist(err) {
		t.Errorf("the run record outlived a failed run of its session: %v", err)
	}
	refused("after a failed run", runFakeRedact(t, w, "again", []string{"--resume", sid}), "no usable run record")
}
