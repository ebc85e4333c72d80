//go:build !unix

package safewrite

import (
	"os"
)

func canOwn(int, int) bool { return true }

func setOwner(*os.File, int, int) error { return nil }

func setPathOwner(string, int, int) error { return nil }

// writable: this platform relies on the write itself failing.
func writable(string, bool) error { return nil }

// freeBytes: unknown on this platform; the write itself reports a full disk.
func freeBytes(string) (uint64, error) { return ^uint64(0), nil }
