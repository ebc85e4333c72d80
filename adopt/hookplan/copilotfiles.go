package hookplan

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hookwarden/hookwarden/templates"
)

// copilotHookFile is the native schema of a Copilot CLI hooks file:
// {"version":1,"hooks":{EVENT:[{"type":"command","bash":CMD,
// "timeoutSec":N}]}} (protocol/dialect copilot.go, measured on
// @github/copilot 1.0.102).
type copilotHookFile struct {
	Hooks map[string][]struct {
		Type       string   `json:"type"`
		Bash       *string  `json:"bash"`
		TimeoutSec *float64 `json:"timeoutSec"`
	} `json:"hooks"`
}

// copilotOthers lists the hooks of every other *.json of .github/hooks
// beside our rendered file: GitHub Copilot CLI 1.0.102 runs every *.json in
// .github/hooks of the git root (the bundle's getHooksDir; protocol/dialect
// copilot.go), so a foreign file there runs beside our rows. The files are
// listed by name (the order Copilot loads them in was not measured); a
// handler without a bash command is not listed, a file that is not JSON is
// client-file-unparseable (what Copilot does with it was not measured).
// Copilot's folder trust, which gates every repository hook, is not read
// (a stated limit).
func (pl *clientPlanner) copilotOthers() {
	dir := filepath.Join(pl.p.Root, ".github", "hooks")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	var names []string
	for _, e := range entries {
		rel := ".github/hooks/" + e.Name()
		if strings.HasSuffix(e.Name(), ".json") && rel != templates.CopilotHooksPath && !e.IsDir() {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	order := map[string]int{}
	for _, h := range pl.c.Hooks {
		order[h.NativeEvent]++
	}
	for _, n := range names {
		abs := filepath.Join(dir, n)
		f := File{Path: pl.display(abs), Scope: ScopeProject, abs: abs}
		data, exists, err := pl.read(abs)
		f.Exists = exists
		var doc copilotHookFile
		switch {
		case err != nil:
			f.ReasonID, f.Why = ReasonUnparseable, "cannot be read safely: "+err.Error()
		case !exists:
		case json.Unmarshal(data, &doc) != nil:
			f.ReasonID, f.Why = ReasonUnparseable, "not a JSON hooks file of Copilot CLI's schema {\"version\":1,\"hooks\":{EVENT:[…]}}; what Copilot CLI does with it was not measured"
		}
		pl.c.Files = append(pl.c.Files, f)
		if f.ReasonID != "" || !exists {
			continue
		}
		events := make([]string, 0, len(doc.Hooks))
		for ev := range doc.Hooks {
			events = append(events, ev)
		}
		sort.Strings(events)
		cursor := 0
		for _, ev := range events {
			for _, h := range doc.Hooks[ev] {
				if h.Bash == nil || (h.Type != "" && h.Type != "command") {
					continue
				}
				order[ev]++
				quoted, _ := json.Marshal(*h.Bash)
				claim := pl.owner.Claim(*h.Bash, nil, false)
				hk := Hook{NativeEvent: ev, Order: order[ev], File: f.Path, Line: lineFrom(data, string(quoted), &cursor), Scope: ScopeProject,
					Command: *h.Bash, Ours: claim.Ours(), Kind: kindName(claim.Kind), Fires: true, Allowed: true, TimeoutUnit: "s"}
				if h.TimeoutSec != nil {
					hk.Timeout, hk.HasTimeout = *h.TimeoutSec, true
				}
				if hk.Ours {
					hk.Event = claim.Event
				}
				if !hk.Ours && len(pl.allow) > 0 {
					hk.Allowed = allowed(pl.allow, *h.Bash, nil)
				}
				pl.c.Hooks = append(pl.c.Hooks, hk)
			}
		}
	}
}
