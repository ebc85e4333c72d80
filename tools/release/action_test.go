package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/hookwarden/hookwarden/internal/testbin"

	"go.yaml.in/yaml/v3"
)

// actionScript is the Action's shell steps, relative to this package.
const actionScript = "../../.github/action/hookwarden-action.sh"

// TestActionScript runs the GitHub Action's shell steps the way action.yml
// does, outside GitHub, against the release built here: `install` fetches
// this runner's archive and checksums.txt from a file:// release URL, checks
// the SHA-256 and puts the binaries on GITHUB_PATH (a tampered checksum is
// exit 2 and nothing on the path); `run` audits a fixture repository
// (ungoverned: exit-code 1 and SARIF 2.1.0 with results; adopted: 0),
// `conform-check` reports a drifted one (exit-code 1, the diff in the log),
// and an unknown mode is exit 2.
func TestActionScript(t *testing.T) {
	for _, tool := range []string{"bash", "curl", "git", "tar"} {
		if _, err := exec.LookPath(tool); err != nil {
			skipOrFail(t, tool+" not found")
		}
	}
	dist, v := release(t)
	name := "hookwarden_" + v + "_" + runtime.GOOS + "_" + runtime.GOARCH + ".tar.gz"
	serve := func(sums []byte) string {
		srv := t.TempDir()
		d := filepath.Join(srv, "v"+v)
		os.MkdirAll(d, 0o755)
		data, err := os.ReadFile(filepath.Join(dist, name))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(d, name), data, 0o644)
		os.WriteFile(filepath.Join(d, "checksums.txt"), sums, 0o644)
		return "file://" + srv
	}
	sums, err := os.ReadFile(filepath.Join(dist, "checksums.txt"))
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	// CI's workstation settings, as README's "Audit in CI" has them: CI's
	// Codex config is not the developers', so the trust note is acknowledged.
	os.WriteFile(filepath.Join(home, "config.yaml"), []byte("audit:\n  acknowledge: [codex-trust-required]\n"), 0o644)
	baseEnv := append(os.Environ(), "CODEX_HOME="+filepath.Join(home, "codex"), "HOOKWARDEN_CONFIG="+filepath.Join(home, "config.yaml"),
		"GIT_CONFIG_GLOBAL="+filepath.Join(home, "gitconfig"), "GIT_CONFIG_NOSYSTEM=1")
	os.WriteFile(filepath.Join(home, "gitconfig"), nil, 0o600)
	type step struct {
		out    string
		code   int
		path   string            // GITHUB_PATH's content
		output map[string]string // GITHUB_OUTPUT's name=value lines
	}
	runStep := func(dir, sub string, extraPath string, env ...string) step {
		t.Helper()
		rt := t.TempDir()
		gp, gout := filepath.Join(rt, "path"), filepath.Join(rt, "output")
		os.WriteFile(gp, nil, 0o644)
		os.WriteFile(gout, nil, 0o644)
		abs, _ := filepath.Abs(actionScript)
		cmd := exec.Command("bash", abs, sub)
		cmd.Dir = dir
		e := append(slices.Clone(baseEnv), "RUNNER_TEMP="+rt, "GITHUB_PATH="+gp, "GITHUB_OUTPUT="+gout)
		if extraPath != "" {
			e = append(e, "PATH="+extraPath+string(os.PathListSeparator)+os.Getenv("PATH"))
		}
		cmd.Env = append(e, env...)
		out, err := cmd.CombinedOutput()
		code := testbin.ExitCode(t, err)
		p, _ := os.ReadFile(gp)
		o, _ := os.ReadFile(gout)
		outputs := map[string]string{}
		for _, l := range strings.Split(strings.TrimSpace(string(o)), "\n") {
			if k, val, ok := strings.Cut(l, "="); ok {
				outputs[k] = val
			}
		}
		return step{string(out), code, strings.TrimSpace(string(p)), outputs}
	}

	bad := strings.Replace(string(sums), "  "+name, "X  "+name, 1)
	bad = regexp.MustCompile(`(?m)^[0-9a-f]{64}X  `).ReplaceAllString(bad, strings.Repeat("0", 64)+"  ")
	if s := runStep(t.TempDir(), "install", "", "INPUT_VERSION="+v, "INPUT_RELEASE_URL="+serve([]byte(bad))); s.code != 2 || !strings.Contains(s.out, "SHA-256") || s.path != "" {
		t.Fatalf("install with a wrong checksum: exit %d, GITHUB_PATH %q\n%s", s.code, s.path, s.out)
	}
	if s := runStep(t.TempDir(), "install", "", "INPUT_VERSION=main", "INPUT_RELEASE_URL="+serve(sums)); s.code != 2 || s.path != "" {
		t.Fatalf("install of version main: exit %d, want 2\n%s", s.code, s.out)
	}
	inst := runStep(t.TempDir(), "install", "", "INPUT_VERSION=v"+v, "INPUT_RELEASE_URL="+serve(sums))
	if inst.code != 0 || inst.path == "" || inst.output["path"] != inst.path {
		t.Fatalf("install: exit %d, GITHUB_PATH %q, outputs %v\n%s", inst.code, inst.path, inst.output, inst.out)
	}
	bin := filepath.Join(inst.path, "hookwarden")
	if out, err := exec.Command(bin, "--version").Output(); err != nil || strings.TrimSpace(string(out)) != "hookwarden version "+v {
		t.Fatalf("installed %s --version: %q %v", bin, out, err)
	}

	// The fixture: a git repository, ungoverned, then adopted, then drifted.
	repo := filepath.Join(t.TempDir(), "fixture")
	os.MkdirAll(repo, 0o755)
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	sarif := filepath.Join(t.TempDir(), "hookwarden.sarif")
	audit := func() step {
		return runStep(repo, "run", inst.path, "INPUT_MODE=audit", "INPUT_PATHS=.", "INPUT_STRICT=false", "INPUT_SARIF_FILE="+sarif)
	}
	s := audit()
	if s.code != 0 || s.output["exit-code"] != "1" || !strings.Contains(s.out, "not-governed") {
		t.Fatalf("audit of an ungoverned repository: exit %d, exit-code %q, want 0 and 1\n%s", s.code, s.output["exit-code"], s.out)
	}
	var report struct {
		Version string `json:"version"`
		Runs    []struct {
			Results []json.RawMessage `json:"results"`
		} `json:"runs"`
	}
	data, _ := os.ReadFile(sarif)
	if err := json.Unmarshal(data, &report); err != nil || report.Version != "2.1.0" || len(report.Runs) != 1 || len(report.Runs[0].Results) == 0 {
		t.Fatalf("SARIF: %v, version %q, %d runs\n%.500s", err, report.Version, len(report.Runs), data)
	}
	cmd := exec.Command(bin, "adopt", repo)
	cmd.Env = baseEnv
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("adopt the fixture: %v\n%s", err, out)
	}
	if s := audit(); s.code != 0 || s.output["exit-code"] != "0" {
		t.Fatalf("audit of the adopted fixture: exit %d, exit-code %q, want 0 and 0\n%s", s.code, s.output["exit-code"], s.out)
	}
	check := func() step {
		return runStep(repo, "run", inst.path, "INPUT_MODE=conform-check", "INPUT_PATHS=.", "INPUT_STRICT=false")
	}
	if s := check(); s.code != 0 || s.output["exit-code"] != "0" {
		t.Fatalf("conform-check of the adopted fixture: exit %d, exit-code %q\n%s", s.code, s.output["exit-code"], s.out)
	}
	os.WriteFile(filepath.Join(repo, ".claude", "settings.json"), []byte("{}\n"), 0o644)
	if s := check(); s.code != 0 || s.output["exit-code"] != "1" || !strings.Contains(s.out, "+++ b/.claude/settings.json") {
		t.Fatalf("conform-check of a drifted fixture: exit %d, exit-code %q, want 0 and 1 with the diff\n%s", s.code, s.output["exit-code"], s.out)
	}
	if s := runStep(repo, "run", inst.path, "INPUT_MODE=fix"); s.code != 2 || !strings.Contains(s.out, "mode 'fix'") {
		t.Fatalf("unknown mode: exit %d, want 2\n%s", s.code, s.out)
	}
}

// TestActionManifest reads action.yml: a composite action whose steps call
// the script's install and run, with every input the script reads
// (INPUT_*) passed in some step's env, every inputs.X it references
// declared, and every steps.ID it references defined.
func TestActionManifest(t *testing.T) {
	raw, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var a struct {
		Inputs map[string]struct {
			Required bool `yaml:"required"`
		} `yaml:"inputs"`
		Runs struct {
			Using string `yaml:"using"`
			Steps []struct {
				ID   string            `yaml:"id"`
				Run  string            `yaml:"run"`
				Uses string            `yaml:"uses"`
				Env  map[string]string `yaml:"env"`
			} `yaml:"steps"`
		} `yaml:"runs"`
	}
	if err := yaml.Unmarshal(raw, &a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	if a.Runs.Using != "composite" || !a.Inputs["version"].Required {
		t.Fatalf("action.yml: using %q, version required %v", a.Runs.Using, a.Inputs["version"].Required)
	}
	script, err := os.ReadFile(actionScript)
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]bool{}
	ids := map[string]bool{}
	var calls []string
	for _, s := range a.Runs.Steps {
		for k := range s.Env {
			env[k] = true
		}
		ids[s.ID] = true
		if strings.Contains(s.Run, ".github/action/hookwarden-action.sh") {
			calls = append(calls, strings.Fields(s.Run)[len(strings.Fields(s.Run))-1])
		}
	}
	if !slices.Equal(calls, []string{"install", "run"}) {
		t.Errorf("action.yml calls the script with %v, want install then run", calls)
	}
	for _, m := range regexp.MustCompile(`INPUT_[A-Z_]+`).FindAllString(string(script), -1) {
		if !env[m] {
			t.Errorf("the script reads %s, which no step of action.yml sets", m)
		}
	}
	for _, m := range regexp.MustCompile(`inputs\.([a-z-]+)`).FindAllStringSubmatch(string(raw), -1) {
		if _, ok := a.Inputs[m[1]]; !ok {
			t.Errorf("action.yml references inputs.%s, not declared", m[1])
		}
	}
	for _, m := range regexp.MustCompile(`steps\.([a-z-]+)\.`).FindAllStringSubmatch(string(raw), -1) {
		if !ids[m[1]] {
			t.Errorf("action.yml references steps.%s, no step has that id", m[1])
		}
	}
}
