package fileowner

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestOfAndSelf(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	if !Self(fi) {
		t.Errorf("Self(a file this process created) = false")
	}
	if runtime.GOOS == "windows" {
		return
	}
	if uid, gid := Of(fi); uid != os.Geteuid() || gid < 0 {
		t.Errorf("Of = %d, %d; want uid %d and a group", uid, gid, os.Geteuid())
	}
	if os.Geteuid() == 0 {
		if err := os.Chown(p, 4242, 4343); err != nil {
			t.Fatal(err)
		}
		fi, _ = os.Lstat(p)
		if Self(fi) {
			t.Errorf("Self(a file owned by 4242) = true")
		}
		if uid, gid := Of(fi); uid != 4242 || gid != 4343 {
			t.Errorf("Of = %d, %d; want 4242, 4343", uid, gid)
		}
	}
}
