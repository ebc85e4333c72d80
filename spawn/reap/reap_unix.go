//go:build unix

package reap

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// Run starts argv (argv[0] an absolute path) with this process's
// environment, working directory and standard files, waits for it,
// forwarding SIGINT, SIGTERM and SIGHUP, then ends what it left (sweep)
// and writes the report to report (mode 0600). The report file is created
// (empty) before the engine starts and written through that descriptor:
// when the spawn exec that started this reaper is killed, the next spawn
// exec's sweep removes the file with the dead run's others, and the late
// report of this reaper, orphaned and still waiting for its engine, goes
// to the removed file instead of leaving a new one in run/hooks. It
// returns the engine's wait status; an error when the report could not be
// created, the engine did not start or the report could not be written.
func Run(argv []string, report string) (syscall.WaitStatus, error) {
	var ws syscall.WaitStatus
	if len(argv) == 0 {
		return ws, errors.New("reap: no engine to run")
	}
	if err := becomeSubreaper(); err != nil {
		return ws, fmt.Errorf("reap: %w", err)
	}
	out, err := os.OpenFile(report, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return ws, fmt.Errorf("reap: %w", err)
	}
	defer out.Close()
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	p, err := os.StartProcess(argv[0], argv, &os.ProcAttr{Files: []*os.File{os.Stdin, os.Stdout, os.Stderr}, Sys: engineAttr()})
	if err != nil {
		return ws, fmt.Errorf("reap: start %s: %w", argv[0], err)
	}
	done := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-sigs:
				_ = p.Signal(s)
			case <-done:
				return
			}
		}
	}()
	ws, err = waitEngine(p.Pid)
	close(done)
	if err != nil {
		return ws, fmt.Errorf("reap: wait for %s: %w", argv[0], err)
	}
	rep := sweep(p.Pid, time.Now().Add(SweepBound))
	if _, err := out.WriteString(rep.String()); err != nil {
		return ws, fmt.Errorf("reap: %s: %w", report, err)
	}
	if err := out.Close(); err != nil {
		return ws, fmt.Errorf("reap: %s: %w", report, err)
	}
	return ws, nil
}

// waitEngine reaps children until pid exits (an orphan reparented to the
// reaper meanwhile is reaped too) and returns pid's status.
func waitEngine(pid int) (syscall.WaitStatus, error) {
	for {
		var ws syscall.WaitStatus
		got, err := syscall.Wait4(-1, &ws, 0, nil)
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case err != nil:
			return ws, err
		case got == pid:
			return ws, nil
		}
	}
}

// sweep kills (SIGKILL) every process still under the reaper, round after
// round (a killed process's own children are reparented to the reaper),
// reaping each, until none is left or the deadline passes. Outside Linux
// the engine's process group (pid) is killed first (killGroup).
func sweep(pid int, deadline time.Time) Report {
	var r Report
	killGroup(pid)
	seen := map[int]bool{}
	for {
		reapAll()
		kids := children()
		if len(kids) == 0 {
			return r
		}
		if time.Now().After(deadline) {
			r.Survived = len(kids)
			return r
		}
		for _, k := range kids {
			if !seen[k] {
				seen[k] = true
				r.Killed++
			}
			_ = syscall.Kill(k, syscall.SIGKILL)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// reapAll reaps every child that has exited, without blocking.
func reapAll() {
	for {
		var ws syscall.WaitStatus
		got, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		if got <= 0 || (err != nil && !errors.Is(err, syscall.EINTR)) {
			return
		}
	}
}

// Exit ends this process as the engine ended: with its exit code, or by
// its terminating signal (default action restored first; 128+signal if
// the process still lives).
func Exit(ws syscall.WaitStatus) {
	if ws.Signaled() {
		s := ws.Signal()
		signal.Reset(s)
		_ = syscall.Kill(os.Getpid(), s)
		time.Sleep(time.Second)
		os.Exit(128 + int(s))
	}
	os.Exit(ws.ExitStatus())
}
