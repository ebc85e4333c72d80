package skewguard

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func benchRun(b *testing.B, dir string, env []string, stdin string, argv ...string) {
	b.Helper()
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir = dir
		cmd.Env = env
		cmd.Stdin = strings.NewReader(inDir(stdin, dir))
		if err := cmd.Run(); err != nil {
			if _, ok := err.(*exec.ExitError); !ok {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkLauncherOverhead compares, whole process, a direct engine call
// (`hookwarden hook claude pre-tool`) with the same call through the
// launcher with a warm listing cache. The difference is the launcher's
// overhead (one Python start plus the cache read).
func BenchmarkLauncherOverhead(b *testing.B) {
	w := newWorld(b)
	bin := realEngine(b)
	env := w.env("HOOKWARDEN_BIN=" + bin)
	stdin := claudePre("git status")
	b.Run("direct-engine", func(b *testing.B) {
		benchRun(b, w.repo, env, stdin, bin, "hook", "claude", "pre-tool")
	})
	py := filepath.Join(w.tools, "python3")
	hook := filepath.Join(w.repo, ".hookwarden", "hook.py")
	benchRun(&testing.B{N: 1}, w.repo, env, stdin, py, "-I", "-S", hook, "claude", "pre-tool") // warm the cache
	b.Run("launcher-warm-cache", func(b *testing.B) {
		benchRun(b, w.repo, env, stdin, py, "-I", "-S", hook, "claude", "pre-tool")
	})
}

// BenchmarkInterceptor compares one standalone interceptor call (python3
// interceptor.py claude, a harmless command) and one launcher call that falls
// back to it (no engine installed) with `python3 -c pass`.
func BenchmarkInterceptor(b *testing.B) {
	w := newWorld(b)
	env := w.env()
	py := filepath.Join(w.tools, "python3")
	stdin := claudePre("git status && ls -la")
	b.Run("python3-c-pass", func(b *testing.B) {
		benchRun(b, w.repo, env, "", py, "-c", "pass")
	})
	b.Run("python3-I-S-c-pass", func(b *testing.B) {
		benchRun(b, w.repo, env, "", py, "-I", "-S", "-c", "pass")
	})
	b.Run("interceptor", func(b *testing.B) {
		benchRun(b, w.repo, env, stdin, py, "-I", "-S", filepath.Join(w.repo, ".hookwarden", "interceptor.py"), "claude")
	})
	b.Run("launcher-no-engine", func(b *testing.B) {
		benchRun(b, w.repo, env, stdin, py, "-I", "-S", filepath.Join(w.repo, ".hookwarden", "hook.py"), "claude", "pre-tool")
	})
}
