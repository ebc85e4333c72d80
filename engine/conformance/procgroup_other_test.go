//go:build !unix

package conformance

import "os/exec"

// killGroupOnCancel leaves exec's default outside Unix: cancellation kills
// the client process alone (there is no process group to signal; the
// real-client suite runs on Linux).
func killGroupOnCancel(*exec.Cmd) {}

// killGroup does nothing outside Unix (no process group).
func killGroup(int) {}
