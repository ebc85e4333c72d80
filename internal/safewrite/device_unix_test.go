//go:build unix

package safewrite

import (
	"errors"
	"path/filepath"
	"syscall"
	"testing"
)

func TestRefusesDevice(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, ".gitignore")
	// A character device (1,3 is /dev/null's numbers); needs CAP_MKNOD.
	if err := syscall.Mknod(p, syscall.S_IFCHR|0o644, 1<<8|3); err != nil {
		t.Skipf("cannot create a device node here (needs CAP_MKNOD): %v", err)
	}
	if _, err := Preflight(root, ".gitignore"); !errors.Is(err, ErrRefused) {
		t.Fatalf("err = %v, want ErrRefused", err)
	}
}
