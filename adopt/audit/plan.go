package audit

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/hookwarden/hookwarden/adopt/hookplan"
	"github.com/hookwarden/hookwarden/internal/shellquote"
)

// plan adds the effective hook plan (adopt/hookplan) of the repository,
// started in start, to the result, and a finding for every state in which
// one of our handlers does not fire or does not guard as written, and for
// every handler not ours outside the operator's allow-list. A kind the
// checks above already reported for a file is not repeated.
func (r *repoAudit) plan(start string, workstation bool) {
	p, err := hookplan.Build(r.root, hookplan.Options{Getenv: r.a.getenv, Workstation: workstation, Start: start, SystemRoot: r.a.systemRoot})
	if err != nil {
		r.add(IDRenderUnavailable, "", 0, "", "", "the hook plan could not be built: "+err.Error(), "use a hookwarden build whose templates render")
		return
	}
	r.res.Plan = p
	// The checks above report per file; the plan does not repeat a kind
	// they already reported for the file, nor one of its own at the same
	// line.
	base := map[string]bool{}
	for _, f := range r.res.Findings {
		base[f.ID+"\x00"+f.File] = true
	}
	own := map[string]bool{}
	add := func(id, file string, line int, client, event, msg, fix string) {
		k := id + "\x00" + file + "\x00" + strconv.Itoa(line)
		if base[id+"\x00"+file] || own[k] {
			return
		}
		own[k] = true
		r.add(id, file, line, client, event, msg, fix)
	}
	for _, c := range p.Clients {
		files := map[string]hookplan.File{}
		for _, f := range c.Files {
			files[f.Path] = f
		}
		for _, h := range c.Hooks {
			switch {
			case h.Ours && !h.Fires && h.Why == c.Off && c.OffID == hookplan.ReasonManagedOnly:
				add(h.ReasonID, c.OffFile, c.OffLine, c.Client, "", c.Off, "have the administrator register hookwarden's rows in the managed settings, or lift the switch in "+c.OffFile)
			case h.Ours && !h.Fires && h.Why == c.Off:
				add(h.ReasonID, c.OffFile, c.OffLine, c.Client, "", c.Off, "remove the switch from "+c.OffFile)
			case h.Ours && !h.Fires && files[h.File].ReasonID == h.ReasonID && files[h.File].Why == h.Why:
				f := files[h.File]
				add(h.ReasonID, f.Path, f.Line, c.Client, "", f.Why, fileFix(h.ReasonID, f.Path, r))
			case h.Ours && !h.Fires:
				add(h.ReasonID, h.File, h.Line, c.Client, h.Event, fmt.Sprintf("%s %s (%s): %s", c.Client, h.Event, h.NativeEvent, h.Why), hookFix(h.ReasonID, c.Client, r))
			}
			if h.Ours && h.Caveat != "" {
				add(h.CaveatID, h.File, h.Line, c.Client, h.Event, h.Caveat, "upgrade "+c.Client)
			}
			if !h.Ours && !h.Allowed {
				add(hookplan.ReasonNotAllowed, h.File, h.Line, c.Client, "", fmt.Sprintf("%s %s handler (%s, not ours) runs a command no pattern of audit.allowed_commands matches; %s runs it unjudged", c.Client, h.NativeEvent, h.Scope, c.Client),
					"remove the handler from "+h.File+" if nobody put it there on purpose, or add a pattern for it to audit.allowed_commands in the fleet or workstation settings")
			}
		}
	}
}

func fileFix(id, file string, r *repoAudit) string {
	switch id {
	case hookplan.ReasonStartBelowRoot:
		return "start the client at the repository root (" + r.res.Root + "), or adopt the directory it starts in"
	case hookplan.ReasonGeminiUntrusted:
		return "trust the repository in Gemini CLI: answer its folder-trust dialog, or add " + shellquote.Word(`"`+r.res.Root+`": "TRUST_FOLDER"`) + " to trustedFolders.json (the message names the file)"
	case hookplan.ReasonRejected, hookplan.ReasonUnparseable:
		return "repair " + file + " (the message names the setting and line)"
	}
	return r.conform
}

func hookFix(id, client string, r *repoAudit) string {
	switch {
	case id == hookplan.ReasonUntrusted:
		return "hookwarden codex-trust --trust-project " + shellquote.Word(r.fixPath)
	case id == hookplan.ReasonDisabled && client == "codex":
		return "remove enabled = false from the hook's [hooks.state] entry in the file the message names"
	case id == hookplan.ReasonDisabled:
		return "remove the command from hooksConfig.disabled in the file the message names"
	case id == hookplan.ReasonVersion:
		// The row's event is newer than the installed client
		// (templates.RowAccepted): conform renders by the declared version
		// only, so upgrading the client is what makes the row fire.
		return "upgrade " + client
	}
	return r.conform
}

// writePlan writes a repository's plan as text: per client a heading (its
// installed version and where it was found, whether the manifest selects
// it, how it runs matching hooks, and the switch that turns it off), its
// files, the hook sources it cannot see ("not seen"), then per native
// event every handler in order.
func writePlan(b *strings.Builder, p *hookplan.Plan) {
	start := ""
	if p.Start != p.Root {
		start = " (session started in " + p.Start + ")"
	}
	fmt.Fprintf(b, "plan%s:\n", start)
	for _, c := range p.Clients {
		version := "version not found"
		if c.Version != "" {
			version = c.Version + " (" + c.VersionFrom + ")"
		}
		sel := "not selected"
		if c.Selected {
			sel = "selected"
		}
		fmt.Fprintf(b, "  %s: %s; %s\n", c.Client, version, sel)
		if c.Runs != "" {
			fmt.Fprintf(b, "    %s\n", c.Runs)
		}
		if c.Off != "" {
			fmt.Fprintf(b, "    OFF: %s\n", c.Off)
		}
		for _, l := range c.Limits {
			fmt.Fprintf(b, "    not seen: %s\n", l)
		}
		for _, f := range c.Files {
			state := "present"
			if !f.Exists {
				state = "absent"
			}
			switch {
			case f.Why != "" && f.ReasonID == "":
				state += "; " + f.Why
			case f.Why != "":
				state += "; NOT READ: " + f.Why
			}
			if f.Managed {
				state += " (managed)"
			}
			fmt.Fprintf(b, "    file %s (%s): %s\n", f.Path, f.Scope, state)
		}
		var events []string
		byEvent := map[string][]hookplan.Hook{}
		for _, h := range c.Hooks {
			if _, ok := byEvent[h.NativeEvent]; !ok {
				events = append(events, h.NativeEvent)
			}
			byEvent[h.NativeEvent] = append(byEvent[h.NativeEvent], h)
		}
		for _, ev := range events {
			fmt.Fprintf(b, "    %s\n", ev)
			for _, h := range byEvent[ev] {
				fires := "fires"
				if !h.Fires {
					fires = "SKIPPED"
				}
				who := "foreign"
				if h.Ours {
					who = "ours (" + h.Kind + " " + h.Event + ")"
				} else if !h.Allowed {
					who = "foreign, NOT ALLOWED"
				}
				matcher := h.Matcher
				if matcher == "" {
					matcher = "(all)"
				}
				timeout := "default"
				if h.HasTimeout {
					timeout = strconv.FormatFloat(h.Timeout, 'f', -1, 64) + " " + h.TimeoutUnit
				}
				cmd := h.Command
				if len(h.Args) > 0 {
					cmd += " " + strings.Join(h.Args, " ")
				}
				loc := h.File
				if h.Line > 0 {
					// A plugin file's row (opencode's in-process hook) has
					// no line.
					loc += ":" + strconv.Itoa(h.Line)
				}
				fmt.Fprintf(b, "      %d. %s  %s  %s  matcher %s  timeout %s\n         %s\n", h.Order, fires, who, loc, matcher, timeout, cmd)
				if !h.Fires {
					fmt.Fprintf(b, "         why: %s\n", h.Why)
				}
				if h.Caveat != "" {
					fmt.Fprintf(b, "         caveat: %s\n", h.Caveat)
				}
			}
		}
	}
}
