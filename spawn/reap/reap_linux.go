package reap

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// becomeSubreaper makes this process the subreaper of its descendants:
// an orphan among them is reparented here, not to init.
func becomeSubreaper() error {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil { // Linux 3.4
		return fmt.Errorf("prctl(PR_SET_CHILD_SUBREAPER): %w", err)
	}
	return nil
}

// engineAttr leaves the engine in the reaper's process group (and so in
// the terminal's foreground group): the subreaper finds whatever it
// starts, in any group.
func engineAttr() *syscall.SysProcAttr { return nil }

// killGroup does nothing on Linux: children() lists every leftover.
func killGroup(int) {}

// children lists the processes whose parent is this one, from
// /proc/<pid>/stat (the field after the command's closing parenthesis is
// the state, then the parent's pid); a zombie is left to reapAll.
func children() []int {
	self := os.Getpid()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) < 2 || f[0] == "Z" {
			continue
		}
		if pp, _ := strconv.Atoi(f[1]); pp == self {
			out = append(out, pid)
		}
	}
	return out
}
