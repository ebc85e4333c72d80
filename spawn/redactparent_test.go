package spawn

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hookwarden/hookwarden/internal/posixtest"
)

// TestRedactionConcurrentRuns is ADR-0134 A2's two concurrent runs on the
// fake claude: two spawn execs under the same redaction entry and home run
// at once (each engine waits until both have started); each gets run files
// of its own (a different table path in its environment), both pass, and
// run/hooks is empty after both.
func TestRedactionConcurrentRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cmd/hookwarden; -short")
	}
	w := newRedactWorld(t, map[string]string{"[GH_TOKEN]": realRaw}, "", "", "")
	gate := filepath.Join(w.work, "gate")
	os.Mkdir(gate, 0o755)
	// each engine leaves a mark and waits (at most 20 s) for the other's
	wait := "FAKE_BEFORE=touch " + shq(gate) + "/$$; i=0; while [ $(ls " + shq(gate) + " | wc -l) -lt 2 ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i+1)); done"
	writeFakeRedact(t, w) // once, before the runs: neither rewrites it under the other's exec
	var wg sync.WaitGroup
	runs := make([]fakeRun, 2)
	for i := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runs[i] = runFakeRedact(t, w, "use "+realRaw, nil, wait)
		}()
	}
	wg.Wait()
	for i, r := range runs {
		if r.err != nil || r.code != 0 {
			t.Errorf("run %d: %d %v\n%s", i, r.code, r.err, r.out)
		}
	}
	if es, _ := os.ReadDir(gate); len(es) != 2 {
		t.Fatalf("%d engines reached the gate, want 2 running at once", len(es))
	}
	started, _ := os.ReadFile(filepath.Join(w.work, "started.log"))
	tables := map[string]bool{}
	for _, ln := range strings.Split(string(started), "\n") {
		if v, ok := strings.CutPrefix(ln, "HOOKWARDEN_HOOK_TABLE="); ok {
			tables[v] = true
		}
	}
	if len(tables) != 2 {
		t.Errorf("the two engines saw %d distinct tables, want 2:\n%s", len(tables), started)
	}
	noRunFiles(t, w)
}

// parentHelperEnv names the environment variable that makes
// TestRedactionParentKilled's test binary run one spawn exec (the JSON
// of parentHelper) instead of the test.
const parentHelperEnv = "HOOKWARDEN_TEST_SPAWN_EXEC"

// parentHelper is what the helper process runs: Exec with the fake claude
// under the redaction entry of Home, as runFakeRedact would.
type parentHelper struct {
	Home, Cwd string
	Argv, Env []string
}

// liveRun is a spawn exec under the redaction entry waiting mid-run (its
// fake engine waits for release), with the names of its files in run/hooks.
type liveRun struct {
	files   map[string]bool
	release func() fakeRun
}

// reapReports counts the reaper's report files (<run>.reap-N) among es:
// the reaper creates its report before it starts the engine (spawn/reap).
func reapReports(es []os.DirEntry) int {
	n := 0
	for _, e := range es {
		if strings.Contains(e.Name(), ".reap-") {
			n++
		}
	}
	return n
}

// startLiveRun starts run A (see liveRun) and waits until its engine runs.
// Its own sweep ran against whatever run/hooks held then.
func startLiveRun(t *testing.T, w *redactWorld) liveRun {
	t.Helper()
	dir := filepath.Join(w.home, RunHooksDir)
	before := map[string]bool{}
	es, _ := os.ReadDir(dir)
	for _, e := range es {
		before[e.Name()] = true
	}
	aStarted, aRelease := filepath.Join(w.work, "a-started"), filepath.Join(w.work, "a-release")
	wait := "FAKE_BEFORE=touch " + shq(aStarted) + "; i=0; while [ ! -e " + shq(aRelease) + " ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done"
	done := make(chan fakeRun, 1)
	go func() { done <- runFakeRedact(t, w, "use "+realRaw, nil, wait) }()
	release := func() fakeRun { os.WriteFile(aRelease, nil, 0o600); return <-done }
	for i := 0; i < 300; i++ {
		if _, err := os.Stat(aStarted); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	l := liveRun{files: map[string]bool{}, release: release}
	es, _ = os.ReadDir(dir)
	for _, e := range es {
		if !before[e.Name()] {
			l.files[e.Name()] = true
		}
		delete(before, e.Name())
	}
	if len(l.files) != 6 || len(before) != 0 {
		r := release()
		t.Fatalf("the live run's files: %v (want its render, table, receipts, read policy, lock and its reaper's report); removed by its sweep: %v\n%s", l.files, before, r.out)
	}
	return l
}

// sweepAfterKill is the second half of TestRedactionParentKilled/killed:
// with the killed run's files (left) in run/hooks and run A live (started
// while the killed run was still alive, so A's sweep saw its lock held and
// left it), run B sweeps: the killed run's files are gone, nothing in
// run/hooks holds the raw value but A's own table, A's files are untouched,
// and A, released, passes with run/hooks empty after it.
func sweepAfterKill(t *testing.T, w *redactWorld, left []string, a liveRun) {
	t.Helper()
	dir := filepath.Join(w.home, RunHooksDir)
	killed, _ := runIDOf(left[0])
	b := runFakeRedact(t, w, "another task", nil)
	if b.code != 0 || b.err != nil {
		t.Errorf("the sweeping run: %d %v\n%s", b.code, b.err, b.out)
	}
	if !strings.Contains(b.out, "sweep: removed the files of run "+killed) {
		t.Errorf("the sweeping run did not report the killed run %s swept:\n%s", killed, b.out)
	}
	es, _ := os.ReadDir(dir)
	var now []string
	for _, e := range es {
		now = append(now, e.Name())
		if !a.files[e.Name()] {
			t.Errorf("after the sweep run/hooks holds %s, not a file of the live run", e.Name())
		}
		if data, _ := os.ReadFile(filepath.Join(dir, e.Name())); bytes.Contains(data, []byte(realRaw)) && !strings.HasSuffix(e.Name(), ".table.json") {
			t.Errorf("after the sweep %s holds the raw value", e.Name())
		}
	}
	if len(now) != len(a.files) {
		t.Errorf("after the sweep run/hooks: %v, want the live run's files %v untouched", now, a.files)
	}
	if r := a.release(); r.code != 0 || r.err != nil {
		t.Errorf("the live run, swept around: %d %v\n%s", r.code, r.err, r.out)
	}
	noRunFiles(t, w)
}

// TestRedactionParentKilled is ADR-0134 A2's "spawn exec's own process
// killed mid-run" (the record's parent that dies): spawn exec runs in a
// helper process (this test binary) under the redaction entry with the fake
// claude waiting mid-run. SIGTERM to spawn exec is relayed to the engine,
// agent_exit still runs and nothing is left in run/hooks. SIGKILL cannot be
// relayed: agent_exit never runs, and the render, the table (0600, still
// holding the raw value), the receipts and the read policy are left in
// run/hooks, marking that run's transcript as unscanned, beside the run's
// free lock, and the report file of the reaper, itself orphaned, which
// writes it when the engine ends (to the removed file once the sweep ran).
// The record does not recover them; hookwarden's next spawn
// exec sweeps them (sweep.go, sweepAfterKill) without touching a
// concurrent live run.
func TestRedactionParentKilled(t *testing.T) {
	if b := os.Getenv(parentHelperEnv); b != "" {
		var h parentHelper
		if err := json.Unmarshal([]byte(b), &h); err != nil {
			t.Fatal(err)
		}
		code, err := Exec(context.Background(), ExecOptions{Argv: h.Argv, Home: h.Home, Gateway: mcpProxyBin(t), Cwd: h.Cwd, Env: h.Env,
			Stdout: os.Stdout, Stderr: os.Stderr})
		t.Logf("helper: exit %d %v", code, err)
		return
	}
	if testing.Short() {
		t.Skip("builds cmd/hookwarden; -short")
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			exitLog := filepath.Join(t.TempDir(), "exit.log")
			w := newRedactWorld(t, map[string]string{"[GH_TOKEN]": realRaw}, "", "echo called >> "+shq(exitLog)+`; exec "$HW" redact "$@"`, "")
			dir := filepath.Join(w.work, "engine")
			os.MkdirAll(dir, 0o755)
			os.WriteFile(filepath.Join(dir, "claude"), []byte(fmt.Sprintf(fakeRedactClaude, shq(filepath.Join(w.work, "started.log")))), 0o755)
			enginePID := filepath.Join(w.work, "engine.pid")
			h := parentHelper{Home: w.home, Cwd: w.repo, Argv: []string{"claude", "-p", "use " + realRaw},
				Env: []string{"PATH=" + dir + ":/usr/bin:/bin", "HOME=" + w.clientHome, "CLAUDE_CONFIG_DIR=" + w.clientHome,
					// the fake engine records its PID and becomes a 30 s sleep (ended by this test)
					"FAKE_BEFORE=echo $$ > " + shq(enginePID) + "; exec sleep 30"}}
			hb, _ := json.Marshal(h)
			cmd := exec.Command(os.Args[0], "-test.run=^TestRedactionParentKilled$", "-test.v")
			cmd.Env = append(os.Environ(), parentHelperEnv+"="+string(hb))
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			pid := 0
			for i := 0; i < 300 && pid == 0; i++ {
				time.Sleep(100 * time.Millisecond)
				b, _ := os.ReadFile(enginePID)
				pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
			}
			if pid == 0 {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("the engine never started:\n%s", out.String())
			}
			var a liveRun
			if sig == syscall.SIGKILL {
				a = startLiveRun(t, w)
			}
			cmd.WaitDelay = 2 * time.Second // the engine a killed spawn exec leaves holds its output pipes
			cmd.Process.Signal(sig)
			cmd.Wait()
			// the fake engine, orphaned by a killed spawn exec, once it is the
			// sleep (it may still be the shell about to exec it)
			for i := 0; i < 50; i++ {
				b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
				if err != nil {
					break
				}
				if bytes.HasPrefix(b, []byte("sleep\x0030")) {
					posixtest.Kill(pid)
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
			called, _ := os.ReadFile(exitLog)
			es, _ := os.ReadDir(filepath.Join(w.home, RunHooksDir))
			var names []string
			for _, e := range es {
				if !a.files[e.Name()] {
					names = append(names, e.Name())
				}
			}
			t.Logf("after %v: agent_exit ran: %v; run/hooks: %v", sig, len(called) > 0, names)
			if strings.Contains(out.String(), realRaw) {
				t.Errorf("spawn exec's output holds the raw value")
			}
			if sig == syscall.SIGTERM {
				if len(called) == 0 {
					t.Errorf("agent_exit did not run after SIGTERM:\n%s", out.String())
				}
				noRunFiles(t, w)
				return
			}
			if len(called) > 0 {
				t.Errorf("agent_exit ran after SIGKILL")
			}
			kinds := map[string]bool{}
			for _, n := range names {
				for _, k := range []string{".settings.json", ".table.json", ".receipts.jsonl", ".policy.json", ".reap-1"} {
					if strings.HasSuffix(n, k) {
						kinds[k] = true
						fi, _ := os.Stat(filepath.Join(w.home, RunHooksDir, n))
						if fi == nil || fi.Mode().Perm() != 0o600 {
							t.Errorf("%s left with mode %v, want 0600", n, fi.Mode())
						}
					}
					if k == ".table.json" && strings.HasSuffix(n, k) {
						if b, _ := os.ReadFile(filepath.Join(w.home, RunHooksDir, n)); !bytes.Contains(b, []byte(realRaw)) {
							t.Errorf("the table left behind does not hold the raw value; the record says it does")
						}
					}
				}
			}
			if len(kinds) != 5 || len(names) != 6 {
				t.Errorf("run/hooks after SIGKILL: %v, want the render, table, receipts and read policy the record names, the run's lock and its reaper's report", names)
			}
			sweepAfterKill(t, w, names, a)
		})
	}
}
