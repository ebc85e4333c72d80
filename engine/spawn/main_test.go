package spawn

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// hwBuild is this package's test binary of cmd/hookwarden, built once
// by the first test that asks for it and removed by TestMain.
var hwBuild struct {
	once      sync.Once
	dir, path string
	out       []byte
	err       error
}

func TestMain(m *testing.M) {
	if os.Getenv(mcpUpstreamEnv) != "" {
		os.Exit(serveTestMCPUpstream())
	}
	code := m.Run()
	if hwBuild.dir != "" {
		os.RemoveAll(hwBuild.dir)
	}
	os.Exit(code)
}

// mcpProxyBin builds cmd/hookwarden-mcp-proxy beside hookwardenBin's
// binary (where `hookwarden spawn exec` looks for it) and returns its path.
func mcpProxyBin(t *testing.T) string {
	t.Helper()
	p := filepath.Join(filepath.Dir(hookwardenBin(t)), MCPProxyName)
	if out, err := exec.Command("go", "build", "-o", p, "../../cmd/hookwarden-mcp-proxy").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return p
}

// hookwardenBin returns the path of cmd/hookwarden built from this tree.
func hookwardenBin(t *testing.T) string {
	t.Helper()
	hwBuild.once.Do(func() {
		hwBuild.dir, hwBuild.err = os.MkdirTemp("", "hookwarden-spawn-test-")
		if hwBuild.err != nil {
			return
		}
		hwBuild.path = filepath.Join(hwBuild.dir, "hookwarden")
		hwBuild.out, hwBuild.err = exec.Command("go", "build", "-o", hwBuild.path, "../../cmd/hookwarden").CombinedOutput()
	})
	if hwBuild.err != nil {
		t.Fatalf("go build: %v\n%s", hwBuild.err, hwBuild.out)
	}
	return hwBuild.path
}
