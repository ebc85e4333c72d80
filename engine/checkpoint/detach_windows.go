//go:build windows

package checkpoint

import (
	"os/exec"
	"syscall"
)

// detach starts the refresh in a process group of its own with no console
// (CREATE_NEW_PROCESS_GROUP | DETACHED_PROCESS, Win32 process creation
// flags), so the client's console events do not reach it.
func detach(cmd *exec.Cmd) {
	const createNewProcessGroup, detachedProcess = 0x00000200, 0x00000008
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: createNewProcessGroup | detachedProcess}
}
