package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/tailscale/hujson"

	"github.com/hookwarden/hookwarden/adopt"
	"github.com/hookwarden/hookwarden/adopt/codextrust"
	"github.com/hookwarden/hookwarden/clientjson"
	"github.com/hookwarden/hookwarden/internal/clientname"
	"github.com/hookwarden/hookwarden/internal/gitdisc"
	"github.com/hookwarden/hookwarden/internal/shellquote"
	"github.com/hookwarden/hookwarden/templates"
)

// mentionsHookwarden reports whether a handler command refers to hookwarden
// at all (its binary, launcher, interceptor or directory).
func mentionsHookwarden(cmd string) bool {
	return strings.Contains(strings.ToLower(cmd), "hookwarden")
}

// clientFile audits one client settings file against the rows the
// manifest's events select for client (none when the client is not
// selected: conform then retracts every row of ours). It judges ownership
// with adopt.Owner, the definition conform's merge uses, and reports as an
// error every change conform would make to the file: a row missing or
// under a matcher that is not equivalent to the row's, a stale form, a
// near miss, a timeout that differs from the table, a row of ours that
// serves no selected row.
func (r *repoAudit) clientFile(client string, events []string, selected bool) {
	rel, _ := adopt.SettingsFile(client)
	snap, ok := r.read(rel)
	if !ok {
		return
	}
	if !selected && !snap.Exists {
		return
	}
	owner, err := r.a.shared.Owner(client, r.a.table)
	if err != nil {
		r.add(IDRenderUnavailable, rel, 0, client, "", "rows not checked: "+err.Error(), "use a hookwarden build whose templates render")
		return
	}
	abs := relJoin(r.root, rel)
	var all []clientjson.Found
	if snap.Exists {
		all, err = r.a.memo.Registered(rel, snap.Data, client, owner)
		if err != nil {
			if pe, ok := errorsAs[*clientjson.ParseError](err); ok {
				r.add(IDClientFileInvalid, rel, pe.Line, client, "", unparseableMessage(client, rel)+": "+pe.Msg, pe.Fix)
			} else {
				r.add(IDClientFileInvalid, rel, 0, client, "", unparseableMessage(client, rel)+": "+err.Error(), "repair "+rel+", then run "+r.conform)
			}
			return
		}
		if selected {
			r.disabled(client, rel, snap.Data, all)
			if client == "cursor" {
				r.cursorVersion(rel, snap.Data)
			}
			if client == "droid" {
				r.droidHooksFile()
			}
		}
	}
	if !selected {
		events = nil
	}

	accounted := make([]bool, len(all)) // handlers of ours a selected row explains
	cv := adopt.ResolveClientVersion(client, r.declared)
	for _, ev := range events {
		row, ok := r.a.table.Lookup(client, ev)
		if !ok {
			continue
		}
		if _, gated := adopt.GatedRow(client, ev, cv); gated {
			continue // not rendered for this client version: a handler of ours for it is reported below
		}
		// A row may be registered under more than one native event
		// (registration.Row.AlsoNative): each needs its handler.
		for _, native := range row.NativeEvents() {
			where := fmt.Sprintf("%s %s (%s", client, ev, native)
			if row.Matcher != "" {
				where += ", matcher " + row.Matcher
			}
			where += ")"
			var sel []int
			misplaced, near, stray := -1, -1, -1
			for i, h := range all {
				if h.NativeEvent != native {
					continue
				}
				switch {
				case h.Serves(client, native, row.Matcher, ev):
					sel = append(sel, i)
				case h.Claim.Serves(ev) && misplaced < 0:
					misplaced = i
				case h.Claim.Kind == clientjson.NearMiss && h.Claim.Event == ev && clientjson.Equivalent(client, h.Matcher, row.Matcher) && !h.HasArgs && near < 0:
					near = i
				case !h.Claim.Ours() && mentionsHookwarden(h.Command) && stray < 0:
					stray = i
				}
			}
			switch {
			case len(sel) > 0:
			case near >= 0:
				accounted[near] = true
				r.add(IDNearMiss, rel, all[near].Line, client, ev, where+": the handler starts like our row but is not one of our forms (another argument, client or event), so the engine is not called as the row wants; conform rewrites it", r.conform)
			case misplaced >= 0:
				accounted[misplaced] = true
				r.add(IDMatcherMismatch, rel, all[misplaced].Line, client, ev, fmt.Sprintf("%s: our handler is under matcher %q, which %s does not read as selecting exactly the row's tools; conform moves it", where, all[misplaced].Matcher, clientname.Title(client)), r.conform)
			case stray >= 0:
				r.add(IDNotServed, rel, all[stray].Line, client, ev, where+": a handler refers to hookwarden but runs none of our registration forms for this row, so the engine does not judge this event as registered", r.conform)
			default:
				r.add(IDRowMissing, rel, 0, client, ev, where+": no handler runs hookwarden for this row"+missingWhy(snap.Exists, rel), r.conform)
			}
			for _, i := range sel {
				accounted[i] = true
				h := all[i]
				if h.Claim.Kind == clientjson.Stale {
					r.add(IDRowStale, rel, h.Line, client, ev, where+": the handler runs the form an earlier hookwarden version wrote; conform rewrites it to this version's", r.conform)
				}
			}
			if len(sel) == 1 {
				if clientjson.HasTimeouts(client) {
					r.timeout(client, ev, rel, row.Timeout, row.TimeoutUnit, row.BudgetMillis, all[sel[0]])
				}
				if want, err := templates.CommandWindows(client, ev); err == nil && want != "" && all[sel[0]].CommandWindows != want {
					r.add(IDCommandWindows, rel, all[sel[0]].Line, client, ev, fmt.Sprintf("%s: our handler has no \"commandWindows\": %q, so Codex on Windows runs the POSIX command through PowerShell or cmd.exe, where it fails; conform writes it", where, want), r.conform)
				}
				if want, err := templates.OnFailure(client, ev); err == nil && want != "" && all[sel[0]].OnFailure != want {
					r.add(IDOnFailure, rel, all[sel[0]].Line, client, ev, fmt.Sprintf("%s: our handler has no \"onFailure\": %q, so Claude Code lets the call through when the hook cannot start, crashes or times out; conform writes it", where, want), r.conform)
				}
			}
			if len(sel) > 1 {
				r.add(IDDuplicateHandler, rel, all[sel[1]].Line, client, ev, fmt.Sprintf("%s: %d handlers serve this row (first at line %d); the client may run each, judging one call more than once", where, len(sel), all[sel[0]].Line), "keep one handler for the row in "+rel)
			}
		}
	}
	for i, h := range all {
		if accounted[i] || !h.Claim.Ours() {
			continue
		}
		why := "serves no row the manifest selects for " + client
		if !selected {
			why = client + " is not selected in " + adopt.ManifestFile
		}
		if g, gated := adopt.GatedRow(client, h.Claim.Event, cv); gated && selected {
			r.add(IDRowNewerThanClient, rel, h.Line, client, h.Claim.Event, fmt.Sprintf("a handler of ours under %s needs a newer client: %s; conform removes it", h.NativeEvent, g), r.conform)
			continue
		}
		r.add(IDRowUnwanted, rel, h.Line, client, h.Claim.Event, fmt.Sprintf("a handler of ours (%s) under %s %s; conform removes it", h.Claim.Kind, h.NativeEvent, why), r.conform)
	}
	for _, h := range all {
		if !mentionsHookwarden(h.Command) {
			continue
		}
		if why := r.a.pathProblem(h.Command); why != "" {
			fix := r.conform
			if !h.Claim.Ours() {
				fix = "rewrite that handler's command in " + rel + " with quoted, forward-slash paths, or delete it (conform never edits a handler that is not one of our forms)"
			}
			r.add(IDCommandPath, rel, h.Line, client, "", "a hook command that refers to hookwarden "+why+"; under Git Bash it never runs", fix)
		}
	}
	if client == "codex" && snap.Exists && selected {
		r.codex(abs, rel, snap.Data, owner)
	}
	if client == "claude" && selected {
		r.claudeLocal()
	}
}

// claudeLocalFile is the per-checkout Claude settings file
// (clientjson.ClaudeLocalSettings), usually git-ignored, so a workstation
// audit sees it and CI does not.
const claudeLocalFile = clientjson.ClaudeLocalSettings

// claudeLocal reports disableAllHooks: true in .claude/settings.local.json.
func (r *repoAudit) claudeLocal() {
	snap, ok := r.read(claudeLocalFile)
	if !ok || !snap.Exists {
		return
	}
	if off, err := r.a.memo.HooksDisabled(claudeLocalFile, snap.Data, "claude"); err == nil && off {
		r.add(IDHooksDisabled, claudeLocalFile, lineOfKey(snap.Data, 0, `"disableAllHooks"`), "claude", "", "disableAllHooks: true in the local project settings — Claude Code runs no hook in this checkout, ours included", "remove disableAllHooks from "+claudeLocalFile)
	}
}

func missingWhy(exists bool, rel string) string {
	if !exists {
		return " (" + rel + " does not exist)"
	}
	return ""
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

// timeout checks a serving handler's timeout against the row: the unit
// (Claude and Codex seconds, Gemini milliseconds; protocol/registration) and
// the engine's budget (budgetMS milliseconds). An absent timeout is the
// client's default and is not judged.
func (r *repoAudit) timeout(client, ev, rel string, want float64, unit string, budgetMS int, h clientjson.Found) {
	if !h.HasTimeout {
		if want > 0 {
			r.add(IDTimeoutDrift, rel, h.Line, client, ev, fmt.Sprintf("our handler has no timeout (the client's default applies); the row wants %s %s; conform writes it", strconv.FormatFloat(want, 'f', -1, 64), unitName(unit)), r.conform)
		}
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
		r.add(IDTimeoutUnit, rel, h.Line, client, ev, fmt.Sprintf("timeout %s reads as seconds, but %s reads it as milliseconds (%s ms, at or below the engine's %d ms budget); want %s", got, clientname.Title(client), got, budgetMS, wantText), r.conform)
	case unit == "s" && v >= 1000:
		r.add(IDTimeoutUnit, rel, h.Line, client, ev, fmt.Sprintf("timeout %s reads as milliseconds, but %s reads it as seconds (a hung hook would block for %s s); want %s", got, clientname.Title(client), got, wantText), r.conform)
	case valueMS <= budget:
		r.add(IDTimeoutBudget, rel, h.Line, client, ev, fmt.Sprintf("timeout %s %s is at or below the engine's %d ms budget, so %s kills the hook before the engine can answer; want %s", got, unitName(unit), budgetMS, clientname.Title(client), wantText), r.conform)
	case v != want:
		r.add(IDTimeoutDrift, rel, h.Line, client, ev, fmt.Sprintf("timeout %s %s differs from the row's %s %s; conform writes the row's", got, unitName(unit), wantText, unitName(unit)), r.conform)
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
	off, err := r.a.memo.HooksDisabled(rel, src, client)
	if err == nil && off {
		switch client {
		case "claude", "qwen":
			r.add(IDHooksDisabled, rel, lineOfKey(src, 0, `"disableAllHooks"`), client, "", "disableAllHooks: true — "+clientname.Title(client)+" runs no hook from its settings, ours included", "remove disableAllHooks from "+rel)
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
			if h.Claim.Ours() && h.Command == name {
				// As the file spells it: json.Marshal would write > and &
				// (the sourced rows' `>&2`) as \u003e and \u0026.
				var buf bytes.Buffer
				e := json.NewEncoder(&buf)
				e.SetEscapeHTML(false)
				e.Encode(name)
				enc := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
				r.add(IDHooksDisabled, rel, lineOfKey(src, offsetOfKey(src, `"disabled"`), string(enc)), client, "", "hooksConfig.disabled names our hook command, so Gemini CLI skips it (Gemini CLI 0.61.0: a hook is disabled when its name, or else its command, is listed)", "remove the entry from hooksConfig.disabled in "+rel)
				break
			}
		}
	}
}

// cursorVersion reports a .cursor/hooks.json whose top level does not hold
// "version": 1 (the schema version every documented Cursor hook file
// declares; the rule's help gives the sources).
func (r *repoAudit) cursorVersion(rel string, src []byte) {
	var doc struct {
		Version json.RawMessage `json:"version"`
	}
	if json.Unmarshal(src, &doc) != nil {
		return
	}
	switch v := string(bytes.TrimSpace(doc.Version)); {
	case v == "":
		r.add(IDCursorVersion, rel, 1, "cursor", "", rel+" declares no \"version\"; every documented Cursor hook file declares \"version\": 1", "add \"version\": 1 at the top level of "+rel)
	case v != "1":
		r.add(IDCursorVersion, rel, lineOfKey(src, 0, `"version"`), "cursor", "", rel+" declares \"version\": "+v+"; the documented schema version is the number 1", "set \"version\" to 1 in "+rel)
	}
}

// droidHooksFile reports a .factory/hooks.json in the repository: newer
// Droids read it instead of the settings.json hooks key (the rule's help
// gives the sources).
func (r *repoAudit) droidHooksFile() {
	const rel = clientjson.DroidHooksFile
	if s, ok := r.read(rel); ok && s.Exists {
		r.add(IDDroidHooksFile, rel, 0, "droid", "", rel+" exists: newer Factory Droids read hooks from it and skip the hooks key of .factory/settings.json, where hookwarden's rows are", "move its hooks into .factory/settings.json, delete "+rel+", then run "+r.conform)
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
// file's hooks at all; else, unless this machine's Codex config (the one
// codex-trust writes: $CODEX_HOME/config.toml) already trusts the project
// and holds the trusted_hash of each of our rows, a note with the exact
// codex-trust command. The note can be acknowledged fleet-wide (settings
// `audit.acknowledge: [codex-trust-required]`), e.g. in CI, whose Codex
// config is not the developers'.
func (r *repoAudit) codex(abs, rel string, src []byte, owner *clientjson.Owner) {
	entries, err := codextrust.Entries(abs, src, templates.ServingCommand(owner))
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
	var cfg []byte
	cfgPath, err := codextrust.ConfigPath(r.a.getenv)
	if err == nil {
		cfg, err = os.ReadFile(cfgPath)
		if errors.Is(err, fs.ErrNotExist) {
			err = nil
		}
	}
	st, checkErr := codextrust.Check(cfg, r.root, entries)
	if err == nil && checkErr == nil && st.ProjectTrusted && len(st.Pending) == 0 {
		return
	}
	fix := "hookwarden codex-trust "
	state := "on this machine"
	switch {
	case err != nil || checkErr != nil:
		fix += "--trust-project "
		state = "this machine's Codex config could not be read"
	case !st.ProjectTrusted:
		fix += "--trust-project "
		state = cfgPath + " does not trust the project"
		if len(st.Pending) > 0 {
			state += fmt.Sprintf(" and lacks the trusted_hash of %d of them", len(st.Pending))
		}
	default:
		state = fmt.Sprintf("%s lacks the trusted_hash of %d of them", cfgPath, len(st.Pending))
	}
	r.add(IDCodexTrust, rel, 0, "codex", "", fmt.Sprintf("Codex CLI 0.169.0 skips these %d hookwarden hooks silently until the project is trusted and each hook's trusted_hash is in the user's config.toml; %s. Each developer runs the fix once; acknowledge the note fleet-wide with `audit: {acknowledge: [codex-trust-required]}` in the fleet or workstation settings", n, state), fix+shellquote.Word(r.fixPath))
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
	// A file that never spells the variable's name (git compares it
	// case-insensitively and reads no include.* here) cannot set it: no git
	// process for it, which is most of a fleet.
	if !bytes.Contains(bytes.ToLower(data), []byte("hookspath")) {
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
	r.add(IDHooksPath, rel, configLine(data), "", "", fmt.Sprintf("core.hooksPath is %q, but the repository's declared hook runner is %s; git runs no hook from there", val, runner), "git config --file "+shellquote.Word(cfgPath)+" --unset-all core.hooksPath")
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
