//go:build unix

package checkpoint

import (
	"os/exec"
	"syscall"
)

// detach puts the refresh in a session of its own (setsid), so a client
// that signals the hook's process group does not stop it and it holds no
// terminal.
func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
}
