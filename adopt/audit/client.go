package audit

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/tailscale/hujson"

	"github.com/hookwarden/hookwarden/adopt"
	"github.com/hookwarden/hookwarden/adopt/codextrust"
	"github.com/hookwarden/hookwarden/clientjson"
	"github.com/hookwarden/hookwarden/internal/gitdisc"
)

// launcherMark is what every launcher registration command contains
// (templates.RegistrationCommand).
const launcherMark = ".hookwarden/hook.py"

// servedPair returns the (client, event) a handler command asks hookwarden
// to judge, and true, when the command runs the launcher
// (`… .hookwarden/hook.py" <client> <event>`) or the engine
// (`hookwarden hook <client> <event>`); otherwise false. The standalone
// interceptor is not the launcher: it serves no registration row.
func servedPair(cmd string) (string, string, bool) {
	if i := strings.LastIndex(cmd, launcherMark); i >= 0 {
		f := strings.Fields(strings.TrimLeft(cmd[i+len(launcherMark):], `"'`))
		if len(f) >= 2 {
			return f[0], f[1], true
		}
		return "", "", false
	}
	f := strings.Fields(cmd)
	if len(f) >= 4 && f[1] == "hook" && path.Base(strings.Trim(f[0], `"'`)) == "hookwarden" {
		return f[2], f[3], true
	}
	return "", "", false
}

// mentionsHookwarden reports whether a handler command refers to hookwarden
// at all (its binary, launcher, interceptor or directory).
func mentionsHookwarden(cmd string) bool {
	return strings.Contains(strings.ToLower(cmd), "hookwarden")
}

// rowTools returns the tool names a registration row's matcher guards: the
// names of an anchored alternation of literals ("^Bash$",
// "^(Edit|Write)$"); nil for a row without a matcher (every tool or an
// event without tools).
func rowTools(matcher string) []string {
	m := strings.TrimSuffix(strings.TrimPrefix(matcher, "^"), "$")
	m = strings.TrimSuffix(strings.TrimPrefix(m, "("), ")")
	if m == "" {
		return nil
	}
	return strings.Split(m, "|")
}

// clientFile audits one client settings file against the rows the manifest's
// events select for client.
func (r *repoAudit) clientFile(client string, events []string) {
	rel, _ := adopt.SettingsFile(client)
	snap, ok := r.read(rel)
	if !ok {
		return
	}
	abs := relJoin(r.root, rel)
	var all []clientjson.Found
	if snap.Exists {
		var err error
		all, err = clientjson.Registered(rel, snap.Data, client, func(string) bool { return true })
		if err != nil {
			if pe, ok := errorsAs[*clientjson.ParseError](err); ok {
				r.add(IDClientFileInvalid, rel, pe.Line, client, "", unparseableMessage(client, rel)+": "+pe.Msg, pe.Fix)
			} else {
				r.add(IDClientFileInvalid, rel, 0, client, "", unparseableMessage(client, rel)+": "+err.Error(), "repair "+rel+", then run "+r.conform)
			}
			return
		}
		r.disabled(client, rel, snap.Data, all)
	}

	for _, ev := range events {
		row, ok := r.a.table.Lookup(client, ev)
		if !ok {
			continue
		}
		tools := rowTools(row.Matcher)
		var candidates, sel []clientjson.Found
		var stray *clientjson.Found
		for i, h := range all {
			if h.NativeEvent != row.NativeEvent {
				continue
			}
			c, e, served := servedPair(h.Command)
			switch {
			case served && c == client && e == ev:
				candidates = append(candidates, h)
				if selectsAll(client, h.Matcher, tools) {
					sel = append(sel, h)
				}
			case !served && mentionsHookwarden(h.Command) && stray == nil:
				stray = &all[i]
			}
		}
		where := fmt.Sprintf("%s %s (%s", client, ev, row.NativeEvent)
		if row.Matcher != "" {
			where += ", tools " + strings.Join(tools, ", ")
		}
		where += ")"
		switch {
		case len(sel) == 0 && len(candidates) > 0:
			h := candidates[0]
			r.add(IDMatcherMismatch, rel, h.Line, client, ev, fmt.Sprintf("%s: our handler is under matcher %q, which %s does not read as selecting every tool of the row", where, h.Matcher, clientName(client)), r.conform)
		case len(sel) == 0 && stray != nil:
			r.add(IDNotServed, rel, stray.Line, client, ev, where+": a handler refers to hookwarden but runs neither the launcher (.hookwarden/hook.py "+client+" "+ev+") nor `hookwarden hook "+client+" "+ev+"`, so the engine does not judge this event", r.conform)
		case len(sel) == 0:
			r.add(IDRowMissing, rel, 0, client, ev, where+": no handler runs hookwarden for this row"+missingWhy(snap.Exists, rel), r.conform)
		}
		for _, h := range sel {
			r.timeout(client, ev, rel, row.Timeout, row.TimeoutUnit, row.BudgetMillis, h)
		}
		if len(sel) > 1 {
			r.add(IDDuplicateHandler, rel, sel[1].Line, client, ev, fmt.Sprintf("%s: %d handlers serve this row (first at line %d); the client may run each, judging one call more than once", where, len(sel), sel[0].Line), "keep one handler for the row in "+rel)
		}
	}
	for _, h := range all {
		if !mentionsHookwarden(h.Command) {
			continue
		}
		if why := commandPathProblem(h.Command); why != "" {
			r.add(IDCommandPath, rel, h.Line, client, "", "a hookwarden hook command "+why+"; under Git Bash it never runs", r.conform)
		}
	}
	if client == "codex" && snap.Exists {
		r.codex(abs, rel, snap.Data)
	}
	if client == "claude" {
		r.claudeLocal()
	}
}

// claudeLocalFile is the per-checkout Claude settings file: Claude Code
// 2.1.328 reads it with .claude/settings.json as project settings (its
// bundle: "Project settings (.claude/settings.json and
// .claude/settings.local.json)"), usually git-ignored, so a workstation
// audit sees it and CI does not.
const claudeLocalFile = ".claude/settings.local.json"

// claudeLocal reports disableAllHooks: true in .claude/settings.local.json.
func (r *repoAudit) claudeLocal() {
	snap, ok := r.read(claudeLocalFile)
	if !ok || !snap.Exists {
		return
	}
	if off, err := clientjson.HooksDisabled(claudeLocalFile, snap.Data, "claude"); err == nil && off {
		r.add(IDHooksDisabled, claudeLocalFile, lineOfKey(snap.Data, 0, `"disableAllHooks"`), "claude", "", "disableAllHooks: true in the local project settings — Claude Code runs no hook in this checkout, ours included", "remove disableAllHooks from "+claudeLocalFile)
	}
}

func missingWhy(exists bool, rel string) string {
	if !exists {
		return " (" + rel + " does not exist)"
	}
	return ""
}

func clientName(client string) string {
	switch client {
	case "claude":
		return "Claude Code"
	case "codex":
		return "Codex CLI"
	case "gemini":
		return "Gemini CLI"
	}
	return client
}

func unparseableMessage(client, rel string) string {
	switch client {
	case "claude":
		return "Claude Code cannot parse " + rel + " and ignores the whole file (no hook in it runs)"
	case "codex":
		return "Codex CLI cannot parse " + rel + " and runs no hook from it"
	}
	return "Gemini CLI cannot parse " + rel + " (0.61 exits 52 on a trailing comma or BOM)"
}

// selectsAll reports whether matcher selects every tool (true for a row
// without tools).
func selectsAll(client, matcher string, tools []string) bool {
	for _, t := range tools {
		if !clientjson.Selects(client, matcher, t) {
			return false
		}
	}
	return true
}

// timeout checks a serving handler's timeout against the row: the unit
// (Claude and Codex seconds, Gemini milliseconds; engine/registration) and
// the engine's budget (budgetMS milliseconds). An absent timeout is the
// client's default and is not judged.
func (r *repoAudit) timeout(client, ev, rel string, want float64, unit string, budgetMS int, h clientjson.Found) {
	if !h.HasTimeout {
		return
	}
	v := h.Timeout
	valueMS := v * 1000
	if unit == "ms" {
		valueMS = v
	}
	wantText := strconv.FormatFloat(want, 'f', -1, 64)
	got := strconv.FormatFloat(v, 'f', -1, 64)
	budget := float64(budgetMS)
	switch {
	case unit == "ms" && valueMS <= budget && v*1000 > budget:
		r.add(IDTimeoutUnit, rel, h.Line, client, ev, fmt.Sprintf("timeout %s reads as seconds, but %s reads it as milliseconds (%s ms, at or below the engine's %d ms budget); want %s", got, clientName(client), got, budgetMS, wantText), r.conform)
	case unit == "s" && v >= 1000:
		r.add(IDTimeoutUnit, rel, h.Line, client, ev, fmt.Sprintf("timeout %s reads as milliseconds, but %s reads it as seconds (a hung hook would block for %s s); want %s", got, clientName(client), got, wantText), r.conform)
	case valueMS <= budget:
		r.add(IDTimeoutBudget, rel, h.Line, client, ev, fmt.Sprintf("timeout %s %s is at or below the engine's %d ms budget, so %s kills the hook before the engine can answer; want %s", got, unitName(unit), budgetMS, clientName(client), wantText), r.conform)
	}
}

func unitName(unit string) string {
	if unit == "ms" {
		return "ms"
	}
	return "s"
}

// disabled reports the switches that turn hooks off in a client file.
func (r *repoAudit) disabled(client, rel string, src []byte, all []clientjson.Found) {
	off, err := clientjson.HooksDisabled(rel, src, client)
	if err == nil && off {
		switch client {
		case "claude":
			r.add(IDHooksDisabled, rel, lineOfKey(src, 0, `"disableAllHooks"`), client, "", "disableAllHooks: true — Claude Code runs no hook from its settings, ours included", "remove disableAllHooks from "+rel)
		case "gemini":
			at := lineOfKey(src, 0, `"hooksConfig"`)
			if l := lineOfKey(src, offsetOfKey(src, `"hooksConfig"`), `"enabled"`); l > 0 {
				at = l
			}
			r.add(IDHooksDisabled, rel, at, client, "", "hooksConfig.enabled: false — Gemini CLI runs no hook, ours included", "set hooksConfig.enabled to true (or remove it) in "+rel)
		}
	}
	if client != "gemini" {
		return
	}
	v, err := hujson.Parse(src)
	if err != nil {
		return
	}
	v.Standardize()
	var doc struct {
		HooksConfig struct {
			Disabled []string `json:"disabled"`
		} `json:"hooksConfig"`
	}
	if json.Unmarshal(v.Pack(), &doc) != nil {
		return
	}
	for _, name := range doc.HooksConfig.Disabled {
		for _, h := range all {
			if _, _, served := servedPair(h.Command); served && h.Command == name {
				enc, _ := json.Marshal(name)
				r.add(IDHooksDisabled, rel, lineOfKey(src, offsetOfKey(src, `"disabled"`), string(enc)), client, "", "hooksConfig.disabled names our hook command, so Gemini CLI skips it (Gemini CLI 0.61.0: a hook is disabled when its name, or else its command, is listed)", "remove the entry from hooksConfig.disabled in "+rel)
				break
			}
		}
	}
}

func offsetOfKey(src []byte, key string) int {
	i := strings.Index(string(src), key)
	if i < 0 {
		return 0
	}
	return i
}

// lineOfKey returns the 1-based line of the first occurrence of text at or
// after byte offset from; 0 when absent.
func lineOfKey(src []byte, from int, text string) int {
	i := strings.Index(string(src[from:]), text)
	if i < 0 {
		return 0
	}
	return 1 + strings.Count(string(src[:from+i]), "\n")
}

// codex reports Codex hook trust: an error when Codex cannot load the
// file's hooks at all, else a note with the command each user runs.
func (r *repoAudit) codex(abs, rel string, src []byte) {
	entries, err := codextrust.Entries(abs, src, adopt.Ours)
	if err != nil {
		r.add(IDCodexHooksUnloaded, rel, 0, "codex", "", "Codex CLI 0.169.0 loads no hook from this file: "+strings.ReplaceAll(err.Error(), abs, rel), r.conform)
		return
	}
	n := 0
	for _, e := range entries {
		if e.Ours {
			n++
		}
	}
	if n == 0 {
		return
	}
	r.add(IDCodexTrust, rel, 0, "codex", "", fmt.Sprintf("Codex CLI 0.169.0 skips these %d hookwarden hooks silently until the project is trusted and each hook's trusted_hash is in the user's config.toml; that is outside the repository, so audit cannot see it", n), "each developer runs: hookwarden codex-trust "+adopt.ShellQuote(r.res.Path)+" (with --trust-project where Codex does not trust the project yet)")
}

// hooksPath checks core.hooksPath in the repository's git config against
// the hook runner the repository declares: husky (a .husky/ directory)
// wants .husky or .husky/_; lefthook and pre-commit install into the
// default .git/hooks. Any other value sends git's hooks elsewhere.
func (r *repoAudit) hooksPath(clients []string) {
	repo, found, err := gitdisc.Find(r.root)
	if err != nil || !found {
		return
	}
	cfgPath := filepath.Join(repo.GitDir, "config")
	data, err := os.ReadFile(cfgPath)
	if err != nil {
		return
	}
	// git reads its own config file: the last core.hooksPath value, no
	// include.* followed (git config --file reads none by default). Exit 1 is
	// "not set", 3 an unparsable file; either way there is nothing to judge.
	out, err := exec.CommandContext(r.ctx, "git", "config", "--file", cfgPath, "--get", "core.hooksPath").Output()
	if err != nil {
		return
	}
	val := strings.TrimSuffix(string(out), "\n")
	if val == "" {
		return
	}
	accepted := []string{".git/hooks", filepath.Join(repo.GitDir, "hooks")}
	runner := "none (git's default .git/hooks)"
	if fi, err := os.Lstat(filepath.Join(r.root, ".husky")); err == nil && fi.IsDir() {
		runner = "husky (.husky/)"
		accepted = append(accepted, ".husky", ".husky/_", filepath.Join(r.root, ".husky"), filepath.Join(r.root, ".husky", "_"))
	} else {
		for _, n := range []string{"lefthook.yml", ".lefthook.yml", "lefthook.yaml", ".lefthook.yaml"} {
			if _, err := os.Lstat(filepath.Join(r.root, n)); err == nil {
				runner = "lefthook (" + n + ")"
			}
		}
		if slices.Contains(clients, "lefthook") && !strings.HasPrefix(runner, "lefthook") {
			runner = "lefthook (.hookwarden.yaml clients)"
		}
	}
	if slices.Contains(accepted, strings.TrimSuffix(val, "/")) {
		return
	}
	rel := ".git/config"
	if repo.Linked || repo.WorkTree != r.root {
		rel = cfgPath
	}
	r.add(IDHooksPath, rel, configLine(data), "", "", fmt.Sprintf("core.hooksPath is %q, but the repository's declared hook runner is %s; git runs no hook from there", val, runner), "git -C "+adopt.ShellQuote(r.res.Path)+" config --unset core.hooksPath")
}

// configLine returns the 1-based line of the hooksPath key in a git config
// (keys are case-insensitive); 0 when not found.
func configLine(data []byte) int {
	for i, l := range strings.Split(string(data), "\n") {
		t := strings.ToLower(strings.TrimSpace(l))
		if strings.HasPrefix(t, "hookspath") {
			rest := strings.TrimSpace(t[len("hookspath"):])
			if rest == "" || rest[0] == '=' {
				return i + 1
			}
		}
	}
	return 0
}
