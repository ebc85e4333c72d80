package spawn

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestProbeVersionCache: the probe runs the binary with --version from the
// home with empty stdin, caches by file identity, and probes again when the
// binary is replaced.
func TestProbeVersionCache(t *testing.T) {
	home := t.TempDir()
	dir := t.TempDir()
	log := filepath.Join(dir, "probes.log")
	bin := filepath.Join(dir, "claude")
	write := func(version string) {
		script := "#!/bin/sh\necho \"$PWD $* stdin=$(cat | wc -c)\" >> " + shq(log) + "\necho '" + version + " (Claude Code)'\n"
		if err := os.WriteFile(bin+".tmp", []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(bin+".tmp", bin); err != nil {
			t.Fatal(err)
		}
	}
	write("2.1.328")
	for i := 0; i < 2; i++ {
		v, err := ProbeVersion(context.Background(), home, bin, nil)
		if err != nil || v != "2.1.328" {
			t.Fatalf("probe %d: %q %v", i, v, err)
		}
	}
	b, _ := os.ReadFile(log)
	if lines := strings.Split(strings.TrimSpace(string(b)), "\n"); len(lines) != 1 || lines[0] != home+" --version stdin=0" {
		t.Fatalf("probe runs: %q", lines)
	}
	write("2.2.0")
	if v, err := ProbeVersion(context.Background(), home, bin, nil); err != nil || v != "2.2.0" {
		t.Fatalf("after replacement: %q %v", v, err)
	}
}

// TestProbeVersionBounded: an engine that hangs on --version is a refusal
// within the bound, not a hang.
func TestProbeVersionBounded(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "codex")
	os.WriteFile(bin, []byte("#!/bin/sh\nexec sleep 30\n"), 0o755)
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := ProbeVersion(ctx, t.TempDir(), bin, nil)
	if r := AsRefusal(err); r == nil || r.Reason != ReasonEngineVersion {
		t.Fatalf("want %s, got %v", ReasonEngineVersion, err)
	}
	if time.Since(start) > 5*time.Second {
		t.Fatalf("probe took %v", time.Since(start))
	}
}

// TestProbeVersionUsesEngineEnv: the probe runs with the environment the
// engine will run with, not spawn's own: an engine whose interpreter is
// found only on the call's PATH (npm's codex is a node script) answers the
// probe with the call's env and is a refusal without it.
func TestProbeVersionUsesEngineEnv(t *testing.T) {
	dir := t.TempDir()
	interp := filepath.Join(dir, "interp", "fake-node")
	if err := os.MkdirAll(filepath.Dir(interp), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(interp, []byte("#!/bin/sh\necho '0.171.0'\n"), 0o755)
	bin := filepath.Join(dir, "codex")
	os.WriteFile(bin, []byte("#!/bin/sh\nexec fake-node \"$0\" \"$@\"\n"), 0o755)
	env := []string{"PATH=" + filepath.Dir(interp) + ":/usr/bin:/bin"}
	if v, err := ProbeVersion(context.Background(), t.TempDir(), bin, env); err != nil || v != "0.171.0" {
		t.Fatalf("with the engine's PATH: %q %v", v, err)
	}
	if _, err := ProbeVersion(context.Background(), t.TempDir(), bin, []string{"PATH=/usr/bin:/bin"}); AsRefusal(err) == nil || AsRefusal(err).Reason != ReasonEngineVersion {
		t.Fatalf("without it: %v, want %s", err, ReasonEngineVersion)
	}
}
