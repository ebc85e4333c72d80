package main

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hookwarden/hookwarden/internal/buildinfo"
)

// requireE2E reports whether a skip must be a failure
// (HOOKWARDEN_E2E=require, as CI sets it).
func requireE2E() bool { return os.Getenv("HOOKWARDEN_E2E") == "require" }

// skipOrFail skips the test with why, or fails it under
// HOOKWARDEN_E2E=require.
func skipOrFail(t *testing.T, why string) {
	t.Helper()
	if requireE2E() {
		t.Fatalf("HOOKWARDEN_E2E=require: %s", why)
	}
	t.Skip(why)
}

// release returns a release run's output directory and version (the
// commit's, internal/buildinfo/VERSION): the run CI made
// (HOOKWARDEN_RELEASE_DIR, every target, the npm tarballs packed), else a
// fresh build of this machine's target alone (with the npm tarballs when
// npm is there).
func release(t *testing.T) (string, string) {
	t.Helper()
	if dir := os.Getenv("HOOKWARDEN_RELEASE_DIR"); dir != "" {
		return dir, buildinfo.Current()
	}
	if testing.Short() {
		t.Skip("builds the release; skipped with -short")
	}
	built.once.Do(func() {
		built.v = buildinfo.Current()
		built.dir, built.err = os.MkdirTemp("", "hookwarden-release-test-")
		if built.err != nil {
			return
		}
		_, npmErr := exec.LookPath("npm")
		ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
		defer cancel()
		_, built.err = Build(ctx, Config{Version: built.v, Root: "../..", Out: built.dir, Targets: []string{runtime.GOOS + "/" + runtime.GOARCH},
			NPM: true, Pack: npmErr == nil, Epoch: time.Unix(0, 0)})
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.dir, built.v
}

// built is the one release build this test binary makes (shared by the
// tests that need one; TestMain removes it).
var built struct {
	once sync.Once
	dir  string
	v    string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// TestReleaseArtefacts checks a release's archives against checksums.txt,
// their members (the binary, mode 0755, and README.md, owner 0), the
// version the host's binary prints, and the npm package manifests: no
// install script anywhere, one platform package per archive with npm's os
// and cpu, the launcher naming every platform as an optional dependency.
func TestReleaseArtefacts(t *testing.T) {
	dir, v := release(t)
	sums, err := os.ReadFile(filepath.Join(dir, "checksums.txt"))
	if err != nil {
		t.Fatal(err)
	}
	archives, _ := filepath.Glob(filepath.Join(dir, "hookwarden_*.tar.gz"))
	zips, _ := filepath.Glob(filepath.Join(dir, "hookwarden_*.zip"))
	archives = append(archives, zips...)
	if n := strings.Count(string(sums), "\n"); n != len(archives) || n == 0 {
		t.Fatalf("checksums.txt has %d lines for %d archives:\n%s", n, len(archives), sums)
	}
	sc := bufio.NewScanner(bytes.NewReader(sums))
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			t.Fatalf("checksums.txt line %q: not sha256sum's format", sc.Text())
		}
		got, err := sha256File(filepath.Join(dir, name))
		if err != nil || got != sum {
			t.Fatalf("%s: sha256 %s, checksums.txt says %s (%v)", name, got, sum, err)
		}
	}
	for _, a := range archives {
		members, prefix, exe := readArchive(t, a)
		for _, c := range Commands {
			bin, ok := members[prefix+"/"+c+exe]
			if !ok || bin.mode != 0o755 || bin.uid != 0 || len(members) != len(Commands)+2 {
				t.Fatalf("%s: members %v; want %s/%s%s (0755, owner 0), the other commands, README.md and LICENSE", a, keys(members), prefix, c, exe)
			}
		}
		for _, f := range []string{"README.md", "LICENSE"} {
			if _, ok := members[prefix+"/"+f]; !ok {
				t.Fatalf("%s: no %s", a, f)
			}
		}
	}
	hostDir := filepath.Join(dir, "hookwarden_"+v+"_"+runtime.GOOS+"_"+runtime.GOARCH)
	for c, want := range map[string]string{"hookwarden": "hookwarden version " + v, "hookwarden-mcp-proxy": "hookwarden-mcp-proxy " + v} {
		out, err := exec.Command(filepath.Join(hostDir, c), "--version").Output()
		if err != nil || strings.TrimSpace(string(out)) != want {
			t.Fatalf("%s --version: %q (%v), want %q", c, out, err, want)
		}
	}

	var launcher map[string]any
	readJSON(t, filepath.Join(dir, "npm", "hookwarden", "package.json"), &launcher)
	opt, _ := launcher["optionalDependencies"].(map[string]any)
	for _, tgt := range DefaultTargets {
		goos, goarch, _ := strings.Cut(tgt, "/")
		if opt["hookwarden-"+npmOS(goos)+"-"+npmCPU(goarch)] != v {
			t.Errorf("launcher's optionalDependencies %v lack %s at %s", opt, tgt, v)
		}
	}
	pkgs, _ := filepath.Glob(filepath.Join(dir, "npm", "*", "package.json"))
	if len(pkgs) != len(archives)+1 {
		t.Fatalf("%d npm packages for %d archives: %v", len(pkgs), len(archives), pkgs)
	}
	for _, p := range pkgs {
		var m map[string]any
		readJSON(t, p, &m)
		if _, has := m["scripts"]; has {
			t.Errorf("%s has scripts: an npm package of ours runs nothing at install", p)
		}
		if m["version"] != v {
			t.Errorf("%s: version %v, want %s", p, m["version"], v)
		}
		if m["license"] != License {
			t.Errorf("%s: license %v, want %s", p, m["license"], License)
		}
		if _, err := os.Stat(filepath.Join(filepath.Dir(p), "LICENSE")); err != nil {
			t.Errorf("%s: no LICENSE beside it: %v", p, err)
		}
		if name := m["name"].(string); name != "hookwarden" {
			if len(m["os"].([]any)) != 1 || len(m["cpu"].([]any)) != 1 {
				t.Errorf("%s: os %v cpu %v, want one each", p, m["os"], m["cpu"])
			}
			bin := "hookwarden"
			if strings.Contains(name, "-win32-") {
				bin += ".exe"
			}
			if fi, err := os.Stat(filepath.Join(filepath.Dir(p), "bin", bin)); err != nil || fi.Mode().Perm() != 0o755 {
				t.Errorf("%s: bin/%s: %v", name, bin, err)
			}
		}
	}
}

// TestArchiveReproducible: the same inputs give the same archive bytes.
func TestArchiveReproducible(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "bin")
	os.WriteFile(src, []byte("binary"), 0o755)
	var got [2][]byte
	for i := range got {
		p := filepath.Join(dir, "a.tar.gz")
		if err := writeArchive(p, "x", time.Unix(0, 0), []entry{{"hookwarden", src, 0o755}, {"README.md", src, 0o644}}); err != nil {
			t.Fatal(err)
		}
		got[i], _ = os.ReadFile(p)
		now := time.Now().Add(time.Duration(i+1) * time.Hour)
		os.Chtimes(src, now, now)
	}
	if !bytes.Equal(got[0], got[1]) {
		t.Fatal("two archives of the same files differ")
	}
}

// TestWindowsInReleaseMatrix: a release builds windows/amd64 and
// windows/arm64, as .zip archives holding hookwarden.exe and
// hookwarden-mcp-proxy.exe, and the npm launcher knows their packages
// (npm's "win32"), so a Windows user of npx gets the .exe.
func TestWindowsInReleaseMatrix(t *testing.T) {
	for _, want := range []string{"windows/amd64", "windows/arm64"} {
		if !slices.Contains(DefaultTargets, want) {
			t.Errorf("DefaultTargets %v lack %s", DefaultTargets, want)
		}
		goos, goarch, _ := strings.Cut(want, "/")
		pkg := "hookwarden-" + npmOS(goos) + "-" + npmCPU(goarch)
		if !bytes.Contains(launcherJS, []byte("'win32-"+npmCPU(goarch)+"': '"+pkg+"'")) {
			t.Errorf("npm/hookwarden.js does not map win32-%s to %s", npmCPU(goarch), pkg)
		}
	}
	if ArchiveExt("windows") != ".zip" || exeSuffix("windows") != ".exe" || ArchiveExt("linux") != ".tar.gz" || exeSuffix("darwin") != "" {
		t.Errorf("archive and executable names: windows %q %q, linux %q, darwin %q", ArchiveExt("windows"), exeSuffix("windows"), ArchiveExt("linux"), exeSuffix("darwin"))
	}
	if !bytes.Contains(launcherJS, []byte("process.platform === 'win32' ? '.exe' : ''")) {
		t.Error("npm/hookwarden.js does not resolve bin/hookwarden.exe on win32")
	}
}

// TestZipReproducible: the windows archive of the same inputs is the same
// bytes, its members sorted under the prefix with their modes.
func TestZipReproducible(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "bin")
	os.WriteFile(src, []byte("binary"), 0o755)
	var got [2][]byte
	p := filepath.Join(dir, "a.zip")
	for i := range got {
		if err := writeZip(p, "x", time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC), []entry{{"hookwarden.exe", src, 0o755}, {"LICENSE", src, 0o644}}); err != nil {
			t.Fatal(err)
		}
		got[i], _ = os.ReadFile(p)
		now := time.Now().Add(time.Duration(i+1) * time.Hour)
		os.Chtimes(src, now, now)
	}
	if !bytes.Equal(got[0], got[1]) {
		t.Fatal("two zips of the same files differ")
	}
	m := readZip(t, p)
	if len(m) != 2 || m["x/hookwarden.exe"].mode != 0o755 || m["x/LICENSE"].mode != 0o644 {
		t.Fatalf("members %v", m)
	}
}

// TestNPMInstall installs the packed npm tarballs (the launcher and this
// platform's package) into a scratch project without the network (npm
// --offline), then runs what a user runs: `npx hookwarden --version`
// prints the release version, `npx hookwarden adopt REPO` governs a git
// repository, a usage error keeps its exit code 2 through the launcher,
// and the launcher without its platform package exits 2 saying why.
func TestNPMInstall(t *testing.T) {
	if _, err := exec.LookPath("npm"); err != nil {
		skipOrFail(t, "npm not found")
	}
	if _, err := exec.LookPath("git"); err != nil {
		skipOrFail(t, "git not found")
	}
	dir, v := release(t)
	plat := "hookwarden-" + npmOS(runtime.GOOS) + "-" + npmCPU(runtime.GOARCH)
	main := filepath.Join(dir, "npm", "hookwarden-"+v+".tgz")
	platTgz := filepath.Join(dir, "npm", plat+"-"+v+".tgz")
	for _, p := range []string{main, platTgz} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("npm tarball: %v", err)
		}
	}
	home := t.TempDir()
	env := append(os.Environ(), "npm_config_cache="+filepath.Join(home, "npm-cache"), "npm_config_update_notifier=false",
		"CODEX_HOME="+filepath.Join(home, "codex"), "XDG_CONFIG_HOME="+filepath.Join(home, "xdg"))
	run := func(dir string, name string, args ...string) (string, int) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return string(out), ee.ExitCode()
		}
		if err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
		return string(out), 0
	}
	project := func(tarballs ...string) string {
		p := t.TempDir()
		os.WriteFile(filepath.Join(p, "package.json"), []byte(`{"name":"scratch","version":"1.0.0","private":true}`+"\n"), 0o644)
		args := append([]string{"install", "--offline", "--no-audit", "--no-fund", "--save-dev"}, tarballs...)
		if out, code := run(p, "npm", args...); code != 0 {
			t.Fatalf("npm install %v: exit %d\n%s", tarballs, code, out)
		}
		return p
	}
	p := project(main, platTgz)
	if out, code := run(p, "npx", "--offline", "hookwarden", "--version"); code != 0 || strings.TrimSpace(out) != "hookwarden version "+v {
		t.Fatalf("npx hookwarden --version: exit %d, %q", code, out)
	}
	// spawn exec looks for the MCP proxy beside the binary the launcher runs.
	proxy := filepath.Join(p, "node_modules", plat, "bin", "hookwarden-mcp-proxy")
	if out, code := run(p, proxy, "--version"); code != 0 || strings.TrimSpace(out) != "hookwarden-mcp-proxy "+v {
		t.Fatalf("%s --version: exit %d, %q", proxy, code, out)
	}
	repo := filepath.Join(t.TempDir(), "repo")
	os.MkdirAll(repo, 0o755)
	if out, code := run(repo, "git", "init", "-q"); code != 0 {
		t.Fatalf("git init: %s", out)
	}
	if out, code := run(p, "npx", "--offline", "hookwarden", "adopt", repo); code != 0 || !strings.Contains(out, repo+": changed") {
		t.Fatalf("npx hookwarden adopt: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(repo, ".hookwarden.yaml")); err != nil {
		t.Fatalf("adopt through npx wrote no manifest: %v", err)
	}
	if out, code := run(p, "npx", "--offline", "hookwarden", "adopt", "--diff=some", repo); code != 2 {
		t.Fatalf("a usage error through the launcher: exit %d, want 2\n%s", code, out)
	}
	bare := project(main)
	if out, code := run(bare, "npx", "--offline", "hookwarden", "--version"); code != 2 || !strings.Contains(out, plat+" is not installed") {
		t.Fatalf("the launcher without %s: exit %d, want 2 naming it\n%s", plat, code, out)
	}
}

type member struct {
	mode int64
	uid  int
}

// readArchive reads a release archive's members (a .zip for windows, else
// a .tar.gz), with the directory prefix every member sits under and the
// executables' suffix (".exe" in a .zip).
func readArchive(t *testing.T, path string) (map[string]member, string, string) {
	t.Helper()
	base := filepath.Base(path)
	if prefix, ok := strings.CutSuffix(base, ".zip"); ok {
		return readZip(t, path), prefix, ".exe"
	}
	return readTarGz(t, path), strings.TrimSuffix(base, ".tar.gz"), ""
}

// readZip reads a .zip's members: the Unix mode its external attributes
// carry, owner 0 (a zip records none).
func readZip(t *testing.T, path string) map[string]member {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	defer zr.Close()
	out := map[string]member{}
	for _, f := range zr.File {
		out[f.Name] = member{int64(f.Mode().Perm()), 0}
	}
	return out
}

func readTarGz(t *testing.T, path string) map[string]member {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	tr := tar.NewReader(gz)
	out := map[string]member{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out[h.Name] = member{h.Mode, h.Uid}
	}
}

func keys(m map[string]member) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
