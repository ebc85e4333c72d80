package templates

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/hookwarden/hookwarden/internal/testbin"
	"github.com/hookwarden/hookwarden/policy/policycases"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// corpusCase is one case of testdata/policy/cases.json or
// testdata/templates/parity_seed.json.
type corpusCase = policycases.Case

func loadCases(t testing.TB, path string) []corpusCase {
	t.Helper()
	cases, err := policycases.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return cases
}

// renderRepo writes the files Render returns for clients under a new
// temporary directory (with an empty .hookwarden.yaml) and returns it.
func renderRepo(t testing.TB, clients ...string) string {
	t.Helper()
	dir := t.TempDir()
	files, err := Render(clients)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Body, f.Mode); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, ".hookwarden.yaml"), []byte("version: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func need(t testing.TB, bin string) string {
	t.Helper()
	return testbin.Need(t, bin)
}

// runDriver runs a test driver with req as JSON stdin and decodes its JSON
// stdout into out.
func runDriver(t testing.TB, dir string, env []string, out any, req any, argv ...string) {
	t.Helper()
	in, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdin = bytes.NewReader(in)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(argv, " "), err, stderr.String())
	}
	if err := json.Unmarshal(stdout.Bytes(), out); err != nil {
		t.Fatalf("%s: decoding output: %v\n%s", argv[0], err, stderr.String())
	}
}

// noEngineEnv is an environment in which no hookwarden engine can be found:
// PATH holds only the directories of the named tools, HOOKWARDEN_BIN is unset.
func noEngineEnv(t testing.TB, tools ...string) []string {
	t.Helper()
	var dirs []string
	for _, tool := range tools {
		dirs = append(dirs, filepath.Dir(need(t, tool)))
	}
	env := []string{"PATH=" + strings.Join(dirs, string(os.PathListSeparator))}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "PATH", "HOOKWARDEN_BIN":
		default:
			env = append(env, kv)
		}
	}
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "hookwarden")); err == nil {
			t.Fatalf("%s holds a hookwarden binary; the no-engine environment cannot use it", d)
		}
	}
	return env
}

// copyPluginMJS copies the rendered opencode plugin of a rendered repository
// to a .mjs path node loads as an ES module, and returns that path.
func copyPluginMJS(t testing.TB, dir string) string {
	t.Helper()
	body, err := os.ReadFile(filepath.Join(dir, ".opencode", "plugins", "hookwarden.js"))
	if err != nil {
		t.Fatal(err)
	}
	mjs := filepath.Join(dir, "plugin.mjs")
	if err := os.WriteFile(mjs, body, 0o644); err != nil {
		t.Fatal(err)
	}
	return mjs
}

// fmtSscanf parses a driver progress line "start <i>".
func fmtSscanf(line string, i *int) (int, error) {
	return fmt.Sscanf(line, "start %d", i)
}

// realPython returns the absolute path of the Python interpreter python3
// runs (sys.executable), so tests can run it with a PATH that holds no
// hookwarden (a pyenv shim needs its own PATH entries).
func realPython(t testing.TB) string {
	t.Helper()
	out, err := exec.Command(need(t, "python3"), "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		t.Fatalf("python3: %v", err)
	}
	return strings.TrimSpace(string(out))
}
