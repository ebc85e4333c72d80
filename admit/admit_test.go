package admit

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestJobCount(t *testing.T) {
	for _, tc := range []struct {
		argv        []string
		n           int
		bare, found bool
	}{
		{[]string{"make"}, 0, false, false},
		{[]string{"make", "-j", "4"}, 4, false, true},
		{[]string{"make", "-j8"}, 8, false, true},
		{[]string{"cargo", "build", "--jobs", "3"}, 3, false, true},
		{[]string{"ninja", "--jobs=12"}, 12, false, true},
		{[]string{"make", "-j"}, 0, true, true},
		{[]string{"make", "-j", "all"}, 0, true, true},
		{[]string{"make", "--jobs"}, 0, true, true},
		{[]string{"make", "-jx"}, 0, true, true},
		{[]string{"make", "-j2", "-j", "6"}, 6, false, true},
		{[]string{"sh", "-c", "make", "--", "-j9"}, 0, false, false},
	} {
		n, bare, found := JobCount(tc.argv)
		if n != tc.n || bare != tc.bare || found != tc.found {
			t.Errorf("%q: %d %v %v, want %d %v %v", tc.argv, n, bare, found, tc.n, tc.bare, tc.found)
		}
	}
}

func TestCheckJobs(t *testing.T) {
	if got := JobCap(16, 3); got != 5 {
		t.Errorf("JobCap(16, 3) = %d, want 5", got)
	}
	if got := JobCap(2, 3); got != 1 {
		t.Errorf("JobCap(2, 3) = %d, want 1 (at least one job)", got)
	}
	if why := CheckJobs([]string{"make", "-j", "5"}, 16, 3); why != "" {
		t.Errorf("5 jobs of 16 cores / 3: refused %q", why)
	}
	why := CheckJobs([]string{"make", "-j", "6"}, 16, 3)
	for _, want := range []string{"6 jobs", "allows 5", "16 cores", "divisor 3"} {
		if !strings.Contains(why, want) {
			t.Errorf("refusal %q does not name %q", why, want)
		}
	}
	if why := CheckJobs([]string{"make", "-j"}, 16, 3); !strings.Contains(why, "unlimited") {
		t.Errorf("bare -j: %q", why)
	}
}

func TestHeadroom(t *testing.T) {
	l := DefaultLimits()
	ok := Host{Cores: 4, MemTotal: 16 << 30, MemAvailable: 8 << 30, SwapTotal: 4 << 30, SwapFree: 4 << 30, Load1: 1.5}
	if why := Headroom(ok, l); why != "" {
		t.Errorf("a quiet host is refused: %s", why)
	}
	for _, tc := range []struct {
		h    Host
		want string
	}{
		{Host{Cores: 4, MemTotal: 16 << 30, MemAvailable: 1 << 30, Load1: 1}, "memory available 1024 MiB < 1638 MiB"},
		{Host{Cores: 4, MemTotal: 2 << 30, MemAvailable: 256 << 20, Load1: 1}, "memory available 256 MiB < 512 MiB"},
		{Host{Cores: 4, MemTotal: 16 << 30, MemAvailable: 8 << 30, SwapTotal: 4 << 30, SwapFree: 512 << 20}, "swap free 512 MiB < 1024 MiB"},
		{Host{Cores: 2, MemTotal: 16 << 30, MemAvailable: 8 << 30, Load1: 3.5}, "load 3.50 > 2.00 (2 cores)"},
	} {
		if why := Headroom(tc.h, l); !strings.Contains(why, tc.want) {
			t.Errorf("%+v: %q, want it to name %q", tc.h, why, tc.want)
		}
	}
}

// TestAdmitWaits: a busy host is read again until it has headroom; one
// that stays busy is refused at the wait's end naming the readings; a job
// count over the cap and a reader that fails are refused at once.
func TestAdmitWaits(t *testing.T) {
	busy := Host{Cores: 2, MemTotal: 8 << 30, MemAvailable: 4 << 30, Load1: 9}
	quiet := busy
	quiet.Load1 = 0.5
	reads := 0
	read := func(context.Context) (Host, error) {
		reads++
		if reads < 3 {
			return busy, nil
		}
		return quiet, nil
	}
	opts := Options{Divisor: 1, Wait: time.Minute, Poll: time.Millisecond, Read: read, Limits: DefaultLimits()}
	if err := Admit(context.Background(), []string{"make"}, opts); err != nil || reads != 3 {
		t.Errorf("err %v after %d readings, want admitted on the third", err, reads)
	}
	opts.Read = func(context.Context) (Host, error) { return busy, nil }
	opts.Wait = 5 * time.Millisecond
	err := Admit(context.Background(), []string{"make"}, opts)
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "load 9.00") {
		t.Errorf("a busy host: %v, want a refusal naming the load", err)
	}
	opts.Read = func(context.Context) (Host, error) { return quiet, nil }
	if err := Admit(context.Background(), []string{"make", "-j", "3"}, opts); !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "3 jobs") {
		t.Errorf("3 jobs on 2 cores: %v", err)
	}
	opts.Read = func(context.Context) (Host, error) { return Host{}, errors.New("no /proc") }
	if err := Admit(context.Background(), []string{"make"}, opts); !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "no /proc") {
		t.Errorf("a failing reader: %v", err)
	}
	if err := Admit(context.Background(), nil, opts); !errors.Is(err, ErrRefused) {
		t.Errorf("no command: %v", err)
	}
}

func TestParseLinux(t *testing.T) {
	mem := []byte("MemTotal:       24683656 kB\nMemFree:        1000 kB\nMemAvailable:   23914472 kB\nSwapTotal:       2097148 kB\nSwapFree:        1048574 kB\n")
	h, err := ParseLinux(mem, []byte("3.85 6.50 11.66 5/186 28650\n"), 2)
	if err != nil {
		t.Fatal(err)
	}
	if h.MemTotal != 24683656*1024 || h.MemAvailable != 23914472*1024 || h.SwapTotal != 2097148*1024 || h.SwapFree != 1048574*1024 || h.Load1 != 3.85 || h.Cores != 2 {
		t.Errorf("%+v", h)
	}
	if _, err := ParseLinux([]byte("MemTotal: 1 kB\n"), []byte("1 1 1"), 2); err == nil {
		t.Error("meminfo without MemAvailable (kernels before 3.14) read as a host")
	}
	if _, err := ParseLinux(mem, []byte(""), 2); err == nil {
		t.Error("an empty loadavg read as a host")
	}
}

func TestParseDarwin(t *testing.T) {
	sys := []byte("17179869184\n{ 2.31 2.05 1.98 }\ntotal = 2048.00M  used = 512.00M  free = 1536.00M  (encrypted)\n")
	vm := []byte("Mach Virtual Memory Statistics: (page size of 16384 bytes)\nPages free:                               10000.\nPages active:                             50000.\nPages inactive:                           20000.\nPages speculative:                         1000.\n")
	h, err := ParseDarwin(sys, vm, 8)
	if err != nil {
		t.Fatal(err)
	}
	if h.MemTotal != 17179869184 || h.Load1 != 2.31 || h.SwapTotal != 2048<<20 || h.SwapFree != 1536<<20 || h.MemAvailable != 31000*16384 {
		t.Errorf("%+v", h)
	}
	if _, err := ParseDarwin([]byte("1\n"), vm, 8); err == nil {
		t.Error("a short sysctl output read as a host")
	}
}
