//go:build unix && !linux

package reap

import "syscall"

// becomeSubreaper has no counterpart on the other Unix systems: only the engine's
// process group is ended (sweep), and a process that left it survives.
func becomeSubreaper() error { return nil }

// engineAttr puts the engine in a process group of its own, which sweep
// kills.
func engineAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// children is empty outside Linux (no /proc to list them from).
func children() []int { return nil }

// killGroup kills the engine's process group (its pid, engineAttr).
func killGroup(pid int) { _ = syscall.Kill(-pid, syscall.SIGKILL) }
