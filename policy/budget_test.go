package policy

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"testing"
)

// adversarialUnits are the text-rule inputs that cost Python's backtracking
// re the most (found by measuring every rule against repeated trigger
// words): each is repeated into 2047-byte lines, so the input stays within
// the scan bounds.
var adversarialUnits = []string{
	"$(", "; a=b ", "{", "; git -C a ", "--unset ", "(rm ",
}

const pythonBudget = `
import json, re, sys, time
d = json.load(sys.stdin)
rules = [re.compile(r["Pattern"]) for r in d["rules"]]
def text(unit, lines):
    line = (unit * (2047 // len(unit) + 1))[:2047]
    return "\n".join([line] * lines)
def cost(s):
    best = None
    for _ in range(2):
        t = time.perf_counter()
        for rx in rules:
            rx.search(s)
        dt = time.perf_counter() - t
        best = dt if best is None or dt < best else best
    return best
benign = cost(text("echo ok ", 32))
out = {"benign": benign, "units": {}, "sum8": 0.0, "sum32": 0.0}
for u in d["units"]:
    c8, c32 = cost(text(u, 8)), cost(text(u, 32))
    out["units"][u] = c32 / benign
    out["sum8"] += c8
    out["sum32"] += c32
json.dump(out, sys.stdout)
`

// TestTextRulesWorkBudget holds Python re's cost on the costliest inputs at
// the scan bound (32 lines of 2047 bytes) to a bounded multiple of a benign
// input of the same size, and checks it grows linearly (32 lines cost about
// four times 8 lines, summed over the inputs). Searches run without the Requires prefilter, as a
// renderer that does not use it would.
func TestTextRulesWorkBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("timing test; skipped with -short")
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not installed")
	}
	payload, err := json.Marshal(map[string]any{"rules": TextRules(), "units": adversarialUnits})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("python3", "-c", pythonBudget)
	cmd.Stdin = bytes.NewReader(payload)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python3: %v", err)
	}
	var res struct {
		Benign float64            `json:"benign"`
		Units  map[string]float64 `json:"units"`
		Sum8   float64            `json:"sum8"`
		Sum32  float64            `json:"sum32"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatal(err)
	}
	// Generous bounds: the machine is shared and timings are noisy; a
	// quadratic rule is off by far more (a 2 KiB line holds hundreds of
	// trigger words, and four times the lines would cost sixteen times).
	worst := 0.0
	for u, ratio := range res.Units {
		worst = max(worst, ratio)
		if ratio > 100 {
			t.Errorf("unit %q: %.0fx the benign input's cost", u, ratio)
		}
	}
	scale := res.Sum32 / res.Sum8
	if scale > 8 {
		t.Errorf("32 lines cost %.1fx 8 lines over the adversarial inputs, not linear", scale)
	}
	t.Logf("benign 64 KiB input: %.1f ms in Python re; worst adversarial input %.1fx; 32/8 lines %.1fx", res.Benign*1000, worst, scale)
}
