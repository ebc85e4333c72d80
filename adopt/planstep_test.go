package adopt

import (
	"slices"
	"testing"

	"github.com/hookwarden/hookwarden/templates"
)

// TestPlanStepsCoverEveryFile: every file adopt renders belongs to a step a
// user can name in --decline (so no rendered file escapes --decline), and
// every decline word belongs to exactly one plan step.
func TestPlanStepsCoverEveryFile(t *testing.T) {
	files, err := templates.Render(templates.DefaultClients())
	if err != nil {
		t.Fatal(err)
	}
	owner := map[string]int{}
	for i, st := range planSteps() {
		for _, n := range st.names {
			if j, dup := owner[n]; dup {
				t.Errorf("decline word %q in steps %d and %d", n, j, i)
			}
			owner[n] = i
		}
	}
	for _, f := range files {
		if _, ok := owner[f.Step]; !ok {
			t.Errorf("%s: step %q is no plan step's decline word", f.Path, f.Step)
		}
	}
	if got := Steps(); got[0] != StepManifest || !slices.Contains(got, StepAgentHooks) || len(got) != len(owner)+1 {
		t.Errorf("Steps() = %v", got)
	}
}
