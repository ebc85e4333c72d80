package audit

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestProgressBarOnlyOnTerminal runs `hookwarden audit --fleet` over three
// adopted repositories: with stderr a terminal it draws one audit bar
// there, conform's dry run included (ending at 3/3); with stderr a pipe,
// stderr stays empty. The
// report on stdout is the same either way.
func TestProgressBarOnlyOnTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary; skipped with -short")
	}
	bin := buildBinary(t)
	fleet, _ := makeFleet(t, 3)
	home := t.TempDir()
	run := func(stderr *os.File) (string, string) {
		cmd := exec.Command(bin, "audit", "--fleet", fleet)
		cmd.Env = []string{"HOME=" + home, "CODEX_HOME=" + home, "PATH=" + os.Getenv("PATH")}
		var so, se bytes.Buffer
		cmd.Stdout = &so
		if stderr != nil {
			cmd.Stderr = stderr
		} else {
			cmd.Stderr = &se
		}
		cmd.Run() // exit 1: one repository lost its Claude settings
		return so.String(), se.String()
	}
	piped, errOut := run(nil)
	if errOut != "" {
		t.Errorf("stderr a pipe: want no bar, got %q", errOut)
	}
	master, slave := openPTY(t)
	onTTY, _ := run(slave)
	slave.Close()
	var drawn bytes.Buffer
	buf := make([]byte, 4096)
	master.SetReadDeadline(time.Now().Add(5 * time.Second))
	for {
		n, err := master.Read(buf)
		drawn.Write(buf[:n])
		if err != nil || strings.Contains(drawn.String(), "audit [") && strings.Contains(drawn.String(), "3/3\r\n") {
			break
		}
	}
	if want := "audit [##############################] 3/3"; !strings.Contains(drawn.String(), want) {
		t.Errorf("stderr a terminal: no %q in %q", want, drawn.String())
	}
	if strings.Contains(drawn.String(), "plan  [") {
		t.Errorf("stderr a terminal: a plan bar besides the audit's (conform's dry run is part of each repository's audit): %q", drawn.String())
	}
	if onTTY != piped {
		t.Errorf("the report differs with the bar:\n%s\nagainst\n%s", onTTY, piped)
	}
}
