package ignorecheck

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

type testCase struct {
	Name    string  `json:"name"`
	Exclude *string `json:"exclude"`
	Files   []struct {
		Dir  string `json:"dir"`
		Data string `json:"data"`
	} `json:"files"`
	Dirs    []string `json:"dirs"`
	Ignored bool     `json:"ignored"`
	Error   bool     `json:"error"`
}

func loadCases(t *testing.T) []testCase {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []testCase
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Fatal("no cases")
	}
	return cases
}

func (c testCase) rules() Rules {
	var r Rules
	if c.Exclude != nil {
		r.Exclude = []byte(*c.Exclude)
	}
	for _, f := range c.Files {
		r.Files = append(r.Files, File{Dir: f.Dir, Data: []byte(f.Data)})
	}
	return r
}

// TestIgnored replays testdata/cases.json: git's own verdict on whether
// .hookwarden/backups/ would be ignored under each set of rules.
func TestIgnored(t *testing.T) {
	for _, c := range loadCases(t) {
		t.Run(c.Name, func(t *testing.T) {
			got, err := Ignored(context.Background(), c.rules(), c.Dirs)
			if c.Error {
				if err == nil {
					t.Fatalf("got %v and no error, want an error", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != c.Ignored {
				t.Errorf("ignored = %v, want %v", got, c.Ignored)
			}
		})
	}
}

// TestIgnoredSkipsUserExcludes: a user's global excludes file and a GIT_DIR
// in the environment change nothing; the verdict is the rules' alone.
func TestIgnoredSkipsUserExcludes(t *testing.T) {
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".config", "git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".config", "git", "ignore"), []byte(".hookwarden/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[core]\n\texcludesFile = "+filepath.Join(home, ".config", "git", "ignore")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_DIR", filepath.Join(home, "elsewhere"))
	got, err := Ignored(context.Background(), Rules{}, []string{".hookwarden", ".hookwarden/backups"})
	if err != nil {
		t.Fatal(err)
	}
	if got {
		t.Error("the user's global excludes decided the verdict")
	}
}

// TestIgnoredWithoutGit: with no git on PATH the verdict is an error, never
// a guess.
func TestIgnoredWithoutGit(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	got, err := Ignored(context.Background(), Rules{Files: []File{{Data: []byte(".hookwarden/\n")}}}, []string{".hookwarden"})
	if err == nil {
		t.Fatalf("got %v and no error without git", got)
	}
}

// TestCacheRemembersVerdicts: a Cache gives git's verdict, answers the
// same rules again without git (PATH emptied), and asks git for rules it
// has not seen (an error without git, not a remembered verdict).
func TestCacheRemembersVerdicts(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not on PATH")
	}
	ignored := Rules{Files: []File{{Data: []byte(".hookwarden/\n")}}}
	kept := Rules{Files: []File{{Data: []byte("dist/\n")}}}
	dirs := []string{".hookwarden", ".hookwarden/backups"}
	var c Cache
	for _, tc := range []struct {
		rules Rules
		want  bool
	}{{ignored, true}, {kept, false}} {
		if got, err := c.Ignored(context.Background(), tc.rules, dirs); err != nil || got != tc.want {
			t.Fatalf("%q: %v %v, want %v", tc.rules.Files[0].Data, got, err, tc.want)
		}
	}
	t.Setenv("PATH", "")
	if got, err := c.Ignored(context.Background(), ignored, dirs); err != nil || !got {
		t.Errorf("remembered rules: %v %v, want true", got, err)
	}
	if got, err := c.Ignored(context.Background(), kept, dirs); err != nil || got {
		t.Errorf("remembered rules: %v %v, want false", got, err)
	}
	other := Rules{Exclude: []byte{}, Files: ignored.Files}
	if _, err := c.Ignored(context.Background(), other, dirs); err == nil {
		t.Errorf("rules never judged (an empty info/exclude) answered without git")
	}
}
