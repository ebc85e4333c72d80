package audit

import (
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// openPTY returns the two ends of a new pseudo-terminal (Linux /dev/ptmx),
// or skips the test where there is none.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	fd := int(m.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Skipf("unlockpt: %v", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Skipf("ptsname: %v", err)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("open the pseudo-terminal's slave: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return m, s
}

// TestProgressBarOnlyOnTerminal runs `hookwarden audit --fleet` over three
// adopted repositories: with stderr a terminal it draws the plan and audit
// bars there (ending at 3/3); with stderr a pipe, stderr stays empty. The
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
		if err != nil || strings.Contains(drawn.String(), "audit [") && strings.Contains(drawn.String(), "3/3\r\n") && strings.Count(drawn.String(), "3/3") >= 2 {
			break
		}
	}
	for _, want := range []string{"plan  [", "audit [##############################] 3/3"} {
		if !strings.Contains(drawn.String(), want) {
			t.Errorf("stderr a terminal: no %q in %q", want, drawn.String())
		}
	}
	if onTTY != piped {
		t.Errorf("the report differs with the bar:\n%s\nagainst\n%s", onTTY, piped)
	}
}
