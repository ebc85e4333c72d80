// Package admit is `hookwarden admit`: it runs one heavy step (a build, a
// test run, a push) once the host has headroom, and refuses a step that asks
// for more parallel jobs than the host's share (issue 19 item 8; the seed
// guide's "Heavy-step admission",
// ../../shared/reference/003_3611979b20cb26d8.txt). The pre-tool row
// refuses heavy steps outside it while hooks.admission.enforce is set
// (policy.Admit).
//
// Headroom is read from the kernel: Linux /proc/meminfo (MemTotal,
// MemAvailable, SwapTotal, SwapFree) and /proc/loadavg; macOS `sysctl -n
// hw.memsize vm.loadavg vm.swapusage` and `vm_stat` (free, inactive and
// speculative pages; not run on a Mac here: the parsers are tested on
// recorded outputs). Any other system has no reader and every step is
// refused, saying so.
package admit

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// Host is one reading of the machine: Cores (logical CPUs), memory and swap
// in bytes, Load1 the one-minute load average.
type Host struct {
	Cores                                       int
	MemTotal, MemAvailable, SwapTotal, SwapFree uint64
	Load1                                       float64
}

// Limits is the headroom a step waits for: MemAvailable at least
// MinAvailableBytes and at least MinAvailableFraction of MemTotal; when the
// host has swap, SwapFree at least MinSwapFreeFraction of SwapTotal; Load1
// at most MaxLoadPerCore × Cores.
type Limits struct {
	MinAvailableBytes    uint64
	MinAvailableFraction float64
	MinSwapFreeFraction  float64
	MaxLoadPerCore       float64
}

// DefaultLimits are the limits `hookwarden admit` uses: 512 MiB and 10 % of
// memory available, a quarter of the swap free, one runnable task per core.
func DefaultLimits() Limits {
	return Limits{MinAvailableBytes: 512 << 20, MinAvailableFraction: 0.10, MinSwapFreeFraction: 0.25, MaxLoadPerCore: 1.0}
}

// Headroom returns "" when h meets l, else why not, naming the readings and
// the limits (MiB, load with two decimals).
func Headroom(h Host, l Limits) string {
	var why []string
	need := l.MinAvailableBytes
	if f := uint64(float64(h.MemTotal) * l.MinAvailableFraction); f > need {
		need = f
	}
	if h.MemAvailable < need {
		why = append(why, fmt.Sprintf("memory available %d MiB < %d MiB", h.MemAvailable>>20, need>>20))
	}
	if h.SwapTotal > 0 {
		if min := uint64(float64(h.SwapTotal) * l.MinSwapFreeFraction); h.SwapFree < min {
			why = append(why, fmt.Sprintf("swap free %d MiB < %d MiB", h.SwapFree>>20, min>>20))
		}
	}
	if max := l.MaxLoadPerCore * float64(h.Cores); h.Load1 > max {
		why = append(why, fmt.Sprintf("load %.2f > %.2f (%d cores)", h.Load1, max, h.Cores))
	}
	return strings.Join(why, ", ")
}

// JobCap returns the most parallel jobs a step may ask for:
// floor(cores / divisor), at least 1 (divisor below 1 counts as 1).
func JobCap(cores, divisor int) int {
	if divisor < 1 {
		divisor = 1
	}
	if n := cores / divisor; n > 1 {
		return n
	}
	return 1
}

// JobCount reads the job count argv asks for: -j N, -jN, --jobs N,
// --jobs=N (make, ninja, cargo, cmake --build, meson, go's -p is not read).
// found is false when argv names none; bare is true for a -j or --jobs
// without a number (make's "unlimited"). An unreadable count is bare.
func JobCount(argv []string) (n int, bare, found bool) {
	for i, a := range argv {
		var v string
		switch {
		case a == "--":
			return n, bare, found
		case a == "-j" || a == "--jobs":
			found = true
			if i+1 < len(argv) {
				if k, err := strconv.Atoi(argv[i+1]); err == nil {
					n = max(n, k)
					continue
				}
			}
			bare = true
			continue
		case strings.HasPrefix(a, "--jobs="):
			v = strings.TrimPrefix(a, "--jobs=")
		case strings.HasPrefix(a, "-j") && !strings.HasPrefix(a, "--"):
			v = strings.TrimPrefix(a, "-j")
		default:
			continue
		}
		found = true
		k, err := strconv.Atoi(v)
		if err != nil || k < 1 {
			bare = true
			continue
		}
		n = max(n, k)
	}
	return n, bare, found
}

// CheckJobs returns "" when argv's job count fits the cap of cores and
// divisor, else the refusal naming the count, the cores and the cap.
func CheckJobs(argv []string, cores, divisor int) string {
	limit := JobCap(cores, divisor)
	n, bare, found := JobCount(argv)
	switch {
	case !found:
		return ""
	case bare:
		return fmt.Sprintf("-j/--jobs without a count asks for unlimited jobs; this host allows %d (%d cores / divisor %d)", limit, cores, divisor)
	case n > limit:
		return fmt.Sprintf("%d jobs asked for; this host allows %d (%d cores / divisor %d)", n, limit, cores, divisor)
	}
	return ""
}

// ErrRefused wraps every refusal of Admit: the step did not run.
var ErrRefused = errors.New("admit refused")

// Options configure Admit. Divisor is hooks.admission.max_jobs_divisor.
// Wait bounds the wait for headroom; Poll is the time between readings.
// Read takes one reading (ReadHost). Limits is the headroom waited for.
type Options struct {
	Divisor int
	Wait    time.Duration
	Poll    time.Duration
	Read    func(ctx context.Context) (Host, error)
	Limits  Limits
}

// Admit checks argv's job count, then waits (at most opts.Wait, ctx's
// cancellation ends it) for headroom. It returns nil when the step may run,
// or an error wrapping ErrRefused with the reason (the job count, the last
// readings, a reader that failed).
func Admit(ctx context.Context, argv []string, opts Options) error {
	if len(argv) == 0 {
		return fmt.Errorf("%w: no command after --", ErrRefused)
	}
	h, err := opts.Read(ctx)
	if err != nil {
		return fmt.Errorf("%w: the host's headroom could not be read: %v", ErrRefused, err)
	}
	if why := CheckJobs(argv, h.Cores, opts.Divisor); why != "" {
		return fmt.Errorf("%w: %s", ErrRefused, why)
	}
	deadline := time.Now().Add(opts.Wait)
	for {
		why := Headroom(h, opts.Limits)
		if why == "" {
			return nil
		}
		if !time.Now().Before(deadline) {
			return fmt.Errorf("%w: no headroom within %s: %s", ErrRefused, opts.Wait, why)
		}
		t := time.NewTimer(min(opts.Poll, time.Until(deadline)))
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%w: interrupted while waiting for headroom (%s)", ErrRefused, why)
		case <-t.C:
		}
		if h, err = opts.Read(ctx); err != nil {
			return fmt.Errorf("%w: the host's headroom could not be read: %v", ErrRefused, err)
		}
	}
}

// ReadHost reads the host (see the package doc for the sources).
func ReadHost(ctx context.Context) (Host, error) {
	switch runtime.GOOS {
	case "linux":
		mem, err := os.ReadFile("/proc/meminfo")
		if err != nil {
			return Host{}, fmt.Errorf("/proc/meminfo: %w", err)
		}
		load, err := os.ReadFile("/proc/loadavg")
		if err != nil {
			return Host{}, fmt.Errorf("/proc/loadavg: %w", err)
		}
		return ParseLinux(mem, load, runtime.NumCPU())
	case "darwin":
		sys, err := exec.CommandContext(ctx, "sysctl", "-n", "hw.memsize", "vm.loadavg", "vm.swapusage").Output()
		if err != nil {
			return Host{}, fmt.Errorf("sysctl: %w", err)
		}
		vm, err := exec.CommandContext(ctx, "vm_stat").Output()
		if err != nil {
			return Host{}, fmt.Errorf("vm_stat: %w", err)
		}
		return ParseDarwin(sys, vm, runtime.NumCPU())
	}
	return Host{}, fmt.Errorf("no headroom reader for %s", runtime.GOOS)
}

// ParseLinux reads /proc/meminfo (kB values) and /proc/loadavg. Missing
// MemTotal, MemAvailable or a load average is an error.
func ParseLinux(meminfo, loadavg []byte, cores int) (Host, error) {
	h := Host{Cores: cores}
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(meminfo))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 {
			continue
		}
		k := strings.TrimSuffix(f[0], ":")
		v, err := strconv.ParseUint(f[1], 10, 64)
		if err != nil {
			continue
		}
		v *= 1024
		switch k {
		case "MemTotal":
			h.MemTotal = v
		case "MemAvailable":
			h.MemAvailable = v
		case "SwapTotal":
			h.SwapTotal = v
		case "SwapFree":
			h.SwapFree = v
		default:
			continue
		}
		seen[k] = true
	}
	if !seen["MemTotal"] || !seen["MemAvailable"] {
		return Host{}, errors.New("/proc/meminfo has no MemTotal or MemAvailable")
	}
	f := strings.Fields(string(loadavg))
	if len(f) == 0 {
		return Host{}, errors.New("/proc/loadavg is empty")
	}
	l, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return Host{}, fmt.Errorf("/proc/loadavg: %w", err)
	}
	h.Load1 = l
	return h, nil
}

// ParseDarwin reads `sysctl -n hw.memsize vm.loadavg vm.swapusage` (three
// lines: bytes; "{ 1.20 1.10 1.00 }"; "total = 2048.00M  used = 512.00M
// free = 1536.00M  (encrypted)") and `vm_stat` ("page size of N bytes",
// "Pages free: N.", "Pages inactive: N.", "Pages speculative: N.").
func ParseDarwin(sysctl, vmstat []byte, cores int) (Host, error) {
	lines := strings.Split(strings.TrimSpace(string(sysctl)), "\n")
	if len(lines) < 3 {
		return Host{}, errors.New("sysctl: want hw.memsize, vm.loadavg and vm.swapusage")
	}
	h := Host{Cores: cores}
	var err error
	if h.MemTotal, err = strconv.ParseUint(strings.TrimSpace(lines[0]), 10, 64); err != nil {
		return Host{}, fmt.Errorf("hw.memsize: %w", err)
	}
	lf := strings.Fields(strings.Trim(strings.TrimSpace(lines[1]), "{}"))
	if len(lf) == 0 {
		return Host{}, errors.New("vm.loadavg is empty")
	}
	if h.Load1, err = strconv.ParseFloat(lf[0], 64); err != nil {
		return Host{}, fmt.Errorf("vm.loadavg: %w", err)
	}
	sf := strings.Fields(lines[2])
	for i := 0; i+2 < len(sf); i++ {
		if sf[i+1] != "=" {
			continue
		}
		v, ok := megabytes(sf[i+2])
		if !ok {
			return Host{}, fmt.Errorf("vm.swapusage: %q", sf[i+2])
		}
		switch sf[i] {
		case "total":
			h.SwapTotal = v
		case "free":
			h.SwapFree = v
		}
	}
	page := uint64(4096)
	var pages uint64
	sc := bufio.NewScanner(bytes.NewReader(vmstat))
	for sc.Scan() {
		l := sc.Text()
		if i := strings.Index(l, "page size of "); i >= 0 {
			if p, err := strconv.ParseUint(strings.Fields(l[i+len("page size of "):])[0], 10, 64); err == nil {
				page = p
			}
			continue
		}
		k, v, ok := strings.Cut(l, ":")
		if !ok {
			continue
		}
		switch k {
		case "Pages free", "Pages inactive", "Pages speculative":
			n, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), "."), 10, 64)
			if err != nil {
				return Host{}, fmt.Errorf("vm_stat %s: %w", k, err)
			}
			pages += n
		}
	}
	h.MemAvailable = pages * page
	return h, nil
}

// megabytes reads sysctl's "2048.00M" (also K and G) as bytes.
func megabytes(s string) (uint64, bool) {
	if s == "" {
		return 0, false
	}
	mult := map[byte]float64{'K': 1 << 10, 'M': 1 << 20, 'G': 1 << 30}[s[len(s)-1]]
	if mult == 0 {
		return 0, false
	}
	f, err := strconv.ParseFloat(s[:len(s)-1], 64)
	if err != nil || f < 0 {
		return 0, false
	}
	return uint64(f * mult), true
}
