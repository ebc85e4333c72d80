//go:build !unix && !windows

package checkpoint

import "os/exec"

// detach does nothing on a platform without sessions or process groups.
func detach(*exec.Cmd) {}
