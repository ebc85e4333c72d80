package spawn

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// sweepCase is one case of testdata/spawn/sweep-cases.json.
type sweepCase struct {
	Name    string `json:"name"`
	DirMode string `json:"dir_mode"`
	Entries []struct {
		Name   string `json:"name"`
		Kind   string `json:"kind"`
		Mode   string `json:"mode"`
		Record bool   `json:"record"`
		Held   bool   `json:"held"`
		UID    *int   `json:"uid"`
	} `json:"entries"`
	WantRemaining []string          `json:"want_remaining"`
	WantLeft      map[string]string `json:"want_left"`
	WantSwept     []string          `json:"want_swept"`
	WantLive      int               `json:"want_live"`
}

// TestSweepRunDir replays testdata/spawn/sweep-cases.json against
// sweepRunDir: a free lock with an owner record is a dead run whose files
// go; a lock the test holds open and flock'ed (as a live spawn exec in this
// process would) keeps its run; what the sweep cannot judge stays with its
// reason. The foreign-owner cases chown to uid 65534 and need root (CI runs
// as root); they fail, not skip, without it.
func TestSweepRunDir(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "testdata", "spawn", "sweep-cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Cases []sweepCase `json:"cases"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	ids := strings.NewReplacer("R1", strings.Repeat("a", 32), "R2", strings.Repeat("b", 32), "R3", strings.Repeat("c", 32))
	for _, c := range doc.Cases {
		t.Run(c.Name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "run", "hooks")
			if err := os.MkdirAll(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			for _, e := range c.Entries {
				p := filepath.Join(dir, ids.Replace(e.Name))
				mode := os.FileMode(0o600)
				if e.Mode != "" {
					m, _ := strconv.ParseUint(e.Mode, 8, 32)
					mode = os.FileMode(m)
				}
				switch e.Kind {
				case "symlink":
					err = os.Symlink("/dev/null", p)
				case "dir":
					err = os.Mkdir(p, 0o700)
				case "lock":
					var l *runLock
					l, err = acquireRunLock(dir, strings.TrimSuffix(ids.Replace(e.Name), runLockSuffix))
					if err == nil && !e.Record {
						err = l.f.Truncate(0)
					}
					if err == nil && e.Held {
						t.Cleanup(func() { l.f.Close() })
					} else if err == nil {
						l.f.Close() // dropped without removal: its owner is gone
					}
				default:
					err = os.WriteFile(p, []byte("raw value"), mode)
					if err == nil {
						err = os.Chmod(p, mode)
					}
				}
				if err == nil && e.UID != nil {
					err = os.Lchown(p, *e.UID, -1)
				}
				if err != nil {
					t.Fatalf("set up %s: %v", e.Name, err)
				}
			}
			if c.DirMode != "" {
				m, _ := strconv.ParseUint(c.DirMode, 8, 32)
				os.Chmod(dir, os.FileMode(m))
			}
			res := sweepRunDir(dir)
			var remaining []string
			es, _ := os.ReadDir(dir)
			for _, e := range es {
				remaining = append(remaining, e.Name())
			}
			want := []string{}
			for _, n := range c.WantRemaining {
				want = append(want, ids.Replace(n))
			}
			slices.Sort(want)
			if !slices.Equal(remaining, want) && !(len(remaining) == 0 && len(want) == 0) {
				t.Errorf("run/hooks after the sweep: %v, want %v", remaining, want)
			}
			left := map[string]string{}
			for _, l := range res.Left {
				left[l.Name] = string(l.Reason)
			}
			wantLeft := map[string]string{}
			for n, r := range c.WantLeft {
				wantLeft[ids.Replace(n)] = r
			}
			if len(left) != len(wantLeft) {
				t.Errorf("left %v, want %v", left, wantLeft)
			}
			for n, r := range wantLeft {
				if left[n] != r {
					t.Errorf("left %s with %q, want %q (all: %v)", n, left[n], r, left)
				}
			}
			var swept []string
			for _, s := range res.Swept {
				swept = append(swept, s.RunID)
				if s.PID != os.Getpid() {
					t.Errorf("swept run %s reports pid %d, want the recording process %d", s.RunID, s.PID, os.Getpid())
				}
			}
			var wantSwept []string
			for _, id := range c.WantSwept {
				wantSwept = append(wantSwept, ids.Replace(id))
			}
			if !slices.Equal(swept, wantSwept) {
				t.Errorf("swept %v, want %v", swept, wantSwept)
			}
			if res.Live != c.WantLive {
				t.Errorf("live runs %d, want %d", res.Live, c.WantLive)
			}
			for _, n := range res.Notes() {
				if strings.Contains(n, "raw value") {
					t.Errorf("a note holds a file's content: %s", n)
				}
			}
		})
	}
}
