//go:build !unix

package safewrite

import "testing"

func TestRefusesDevice(t *testing.T) {
	t.Skip("no device node can be created in this platform's file system (Windows devices live under \\\\.\\, not in a directory)")
}
