package spawn

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sync"
	"time"

	"github.com/hookwarden/hookwarden/internal/atomicfile"
)

// ProbeTimeout bounds one engine --version probe (issue 8: 10 seconds).
const ProbeTimeout = 10 * time.Second

var versionRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b(\d+\.\d+\.\d+)\b`) })

// binaryStamp identifies one file version: path, device, inode, size,
// mtime and ctime (nanoseconds). A changed file changes the stamp.
type binaryStamp struct {
	Path  string `json:"path"`
	Dev   uint64 `json:"dev"`
	Ino   uint64 `json:"ino"`
	Size  int64  `json:"size"`
	Mtime int64  `json:"mtime_ns"`
	Ctime int64  `json:"ctime_ns"`
}

type versionCache struct {
	Version int            `json:"version"`
	Entries []versionEntry `json:"entries"`
}

type versionEntry struct {
	Stamp   binaryStamp `json:"stamp"`
	Version string      `json:"engine_version"`
}

// ProbeVersion returns the version ("2.1.328") the engine binary at the
// absolute path bin reports for `--version`: run without a shell, with home
// as its working directory, env as its environment (KEY=VALUE; nil: this
// process's, as exec.Cmd takes it), the one the engine itself will run with
// (npm's claude and codex are node scripts: a PATH without node fails the
// probe as it would fail the run), empty stdin and a ProbeTimeout bound. Results
// are cached in <home>/cache/engine-versions.json keyed by the binary's
// path, device, inode, size, mtime and ctime (the stat of the file the path
// resolves to), so a replaced binary is probed again. It returns a
// *Refusal with ReasonEngineVersion when the probe fails or prints no
// x.y.z version.
func ProbeVersion(ctx context.Context, home, bin string, env []string) (string, error) {
	stamp, err := stampOf(bin)
	if err != nil {
		return "", refuse(ReasonEngineNotFound, "%s: %v", bin, err)
	}
	cachePath := filepath.Join(home, VersionCache)
	var cache versionCache
	if b, err := readSmall(cachePath); err == nil {
		_ = json.Unmarshal(b, &cache) // an unreadable cache is only a miss
	}
	for _, e := range cache.Entries {
		if e.Stamp == stamp && e.Version != "" {
			return e.Version, nil
		}
	}
	ctx, cancel := context.WithTimeout(ctx, ProbeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--version")
	cmd.Env = env
	cmd.Dir = home
	if _, err := os.Stat(home); err != nil {
		cmd.Dir = "/"
	}
	cmd.Stdin = bytes.NewReader(nil)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.WaitDelay = time.Second
	if err := cmd.Run(); err != nil {
		return "", refuse(ReasonEngineVersion, "%s --version: %v", bin, err)
	}
	m := versionRE().FindSubmatch(out.Bytes())
	if m == nil {
		return "", refuse(ReasonEngineVersion, "%s --version printed no x.y.z version", bin)
	}
	v := string(m[1])
	kept := cache.Entries[:0]
	for _, e := range cache.Entries {
		if e.Stamp.Path != bin {
			kept = append(kept, e)
		}
	}
	cache.Version = 1
	cache.Entries = append(kept, versionEntry{Stamp: stamp, Version: v})
	if b, err := json.MarshalIndent(cache, "", "  "); err == nil {
		if os.MkdirAll(filepath.Dir(cachePath), 0o700) == nil {
			_ = atomicfile.WriteFile(cachePath, append(b, '\n'), 0o600) // a cache write failure costs only a re-probe
		}
	}
	return v, nil
}
