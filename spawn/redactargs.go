package spawn

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// Claude Code 2.1.328's options as `spawn exec` reads them under a
// redaction entry (its --help, 2026-12-01, commander.js option parsing:
// an option taking <value> takes the next argument whatever it is, an
// option taking <values...> takes every following argument up to one that
// starts with "-"). An option outside these lists refuses the spawn
// (redaction-argv): an argument spawn exec cannot place is either model
// input no hook saw or a positional prompt it would mistake for a value.
// --max-turns is not in --help; the binary's bundle lists it among the
// options that take a value, and `claude -p … --max-turns 1` ended a run
// with a result of subtype error_max_turns (measured 2026-12-01), the
// stop `spawn exec --auto-finish` continues (continuation.go).
var (
	claudeRedactNoValue = []string{"-p", "--print", "--verbose", "--strict-mcp-config", "--include-partial-messages",
		"--include-hook-events", "--replay-user-messages", "--no-session-persistence", "--disable-slash-commands",
		"--exclude-dynamic-system-prompt-sections", "--forward-subagent-text"}
	claudeRedactOneValue = []string{"--output-format", "--input-format", "--model", "--fallback-model",
		"--effort", "--session-id", "--json-schema", "--system-prompt", "--append-system-prompt", "--agents",
		"--max-budget-usd", "--name", "-n", "--agent", "--autocompact", "--system-prompt-snapshot", "--max-turns"}
	claudeRedactVariadic = []string{"--disallowedTools", "--disallowed-tools",
		"--tools", "--add-dir", "--betas"}
	// claudeResumeByID resume the session a value names (`-r, --resume
	// [value]`, an optional value in Claude Code 2.1.328's --help): under
	// the entry only with a session id whose run record shows it started
	// under the same redaction baseline (resume.go); without a value the
	// engine asks which session, so that refuses.
	claudeResumeByID = []string{"-r", "--resume"}
	// claudeResumeFlags load a session's history spawn exec cannot tie to
	// a run record (the latest session, a fork under a new id, a pull
	// request's or a remote session): refused (ADR-0134 D7 "Native
	// resume").
	claudeResumeFlags = []string{"-c", "--continue", "--fork-session", "--from-pr", "--teleport"}
	// claudeMCPFlags name MCP servers (`--mcp-config <configs...>`, JSON
	// files or strings): under the entry spawn exec reads them and puts
	// each server behind a redacting proxy (mcpproxy.go).
	claudeMCPFlags = []string{"--mcp-config"}
	// claudePostureNoValue, claudePostureOneValue and claudePostureVariadic
	// are the posture flags by how Claude Code 2.1.328 parses them (no
	// value, one value, variadic), which --auto-finish outside the entry
	// places in the continuation's argv (continuation.go)
	claudePostureNoValue  = []string{"--dangerously-skip-permissions", "--allow-dangerously-skip-permissions"}
	claudePostureOneValue = []string{"--permission-mode", "--permission-prompts"}
	claudePostureVariadic = []string{"--allowedTools", "--allowed-tools"}
)

// claudePostureFlags reports whether name is one of the flags that would
// widen the permission posture the render sets under the entry (default
// mode, permissions.ask ["*"] and the PermissionRequest arbiter, render.go):
// they let a call run that no arbiter was asked about (--allowedTools rules
// allow before any ask, the bypass modes skip the permission check, a prompt
// tool or the SDK host answers when the arbiter gives no decision): the
// three claudePosture lists and --permission-prompt-tool. Refused
// (redaction-posture), except --permission-mode default and
// --permission-prompts none, which are the posture or narrow it. A function
// rather than a concatenated slice, which package initialisation would build
// in every hook process.
func claudePostureFlags(name string) bool {
	return slices.Contains(claudePostureNoValue, name) || slices.Contains(claudePostureOneValue, name) ||
		slices.Contains(claudePostureVariadic, name) || name == "--permission-prompt-tool"
}

// claudeGatedTools are the built-in tools a Claude spawn under a
// redaction entry is offered, each one the pre-tool hook has a route for
// (spawn/redact PreTool): Read, performed by the hook under the read
// policy; Bash, rewritten so its output passes the redactor; ToolSearch
// and the MCP resource tools, admitted only for the run's proxied servers
// and denied with a receipt otherwise. The render passes them as
// `--tools Bash,Read,…` (Claude Code 2.1.328 --help: "--tools <tools...>
// Built-in tools to make available: "" for none, "default" for the
// default set, or tool names"); MCP tools are not built-in and stay
// offered, from the run's proxies only (--strict-mcp-config, mcpproxy.go).
// TestRealClaudeAllToolsGated measured on 2026-12-01 that under this
// list every other tool (Edit, Write, Glob, Grep, Agent, Task, WebFetch,
// Skill, TodoWrite, NotebookEdit, …) is refused before any hook with
// "No such tool available" (ADR-0134 D7: "Every other tool is denied,
// native search, edit and write tools and nested agents included").
// An allow list, not --disallowedTools or a settings permissions.deny
// (both deny lists in 2.1.328: --help "tool names to deny", and
// TestRealClaudeCallerPermissions saw a deny rule withhold Bash): a tool a
// later version adds is not offered until it is named here.
var claudeGatedTools = []string{"Bash", "Read", "ToolSearch", "ListMcpResourcesTool", "ReadMcpResourceTool", "ReadMcpResourceDirTool"}

// claudeAgentKeys are the members an --agents entry may carry under a
// redaction entry: its texts (the agent_prompt channels), a tools or
// disallowedTools list within claudeGatedTools, and its model. Any other
// member (mcpServers, hooks, permissionMode, skills, …) is refused: it
// would bring a server outside the proxies, a hook outside the registry
// or a wider permission, and a member added by a later Claude Code is
// refused until measured.
var claudeAgentKeys = []string{"description", "prompt", "tools", "disallowedTools", "model"}

// toolNames splits a Claude tool-list option's values ("Comma or
// space-separated list of tool names", Claude Code 2.1.328 --help) into
// tool names, each rule's name before its "(" ("Bash(git *)" is Bash).
func toolNames(vals []string) []string {
	var out []string
	depth, cur := 0, strings.Builder{}
	flush := func() {
		if cur.Len() > 0 {
			n, _, _ := strings.Cut(cur.String(), "(")
			out = append(out, strings.TrimSpace(n))
			cur.Reset()
		}
	}
	for _, v := range vals {
		for _, r := range v {
			switch {
			case r == '(':
				depth++
			case r == ')' && depth > 0:
				depth--
			case depth == 0 && (r == ',' || r == ' ' || r == '\t' || r == '\n'):
				flush()
				continue
			}
			cur.WriteRune(r)
		}
		flush()
	}
	return out
}

// checkToolList refuses (redaction-tools) a caller's --tools value or an
// --agents entry's tools naming a tool outside claudeGatedTools: --tools
// may only narrow the rendered list (not "default"); an agent's tools may
// also name MCP tools (mcp__…), which the pre-tool hook admits only for
// the run's proxied servers. --disallowedTools only narrows and is not
// checked; --allowedTools is refused whole before (redaction-posture: an
// allow rule runs a call the entry's arbiter is never asked about).
func checkToolList(name string, vals []string) error {
	for _, n := range toolNames(vals) {
		if slices.Contains(claudeGatedTools, n) || (name != "--tools" && strings.HasPrefix(n, "mcp__")) {
			continue
		}
		return refuse(ReasonRedactionTools, "the caller's %s names %q; under the redaction entry the engine is offered only %s (and the run's proxied MCP tools)", name, n, strings.Join(claudeGatedTools, ", "))
	}
	return nil
}

// claudePostureKeep returns whether the posture flag name with value v
// keeps the entry's posture: --permission-mode default (the render's own
// mode) and --permission-prompts none (nobody answers a prompt; Claude
// Code 2.1.328 --help: "anything that would prompt is denied
// automatically").
func claudePostureKeep(name, v string) bool {
	return name == "--permission-mode" && v == "default" || name == "--permission-prompts" && v == "none"
}

// promptSlot is one model-input text in the caller's argv: the channel
// name, the index of the argument that holds it, the text, and for an
// --agents entry its name and field.
type promptSlot struct {
	Channel string
	Index   int
	Text    string
	agent   string
	field   string
}

// claudeRedactArgv is the caller's Claude argv as read under a redaction
// entry: the model-input texts (positional prompt, --system-prompt,
// --append-system-prompt, each --agents entry's description and prompt),
// the index of the --json-schema value (-1 when none), the caller's
// --session-id (empty when none) and the --add-dir directories.
type claudeRedactArgv struct {
	Slots     []promptSlot
	Schema    int
	SessionID string
	// Resume is the session id of --resume/-r ("" when not resuming).
	Resume  string
	AddDirs []string
	// MCPConfigs are the --mcp-config values in order; mcpAt the indices
	// of those arguments and of the flags naming them, which the rewritten
	// argv leaves out.
	MCPConfigs []string
	mcpAt      []int
	agentsAt   int
}

// parseClaudeRedactArgs reads args (the caller's arguments after argv[0],
// with --settings and --setting-sources already taken out) under a
// redaction entry. It refuses a native resume (redaction-resume), an
// option outside the lists above or a short
// option cluster (redaction-argv), and an --agents value that is not a JSON
// object of objects (redaction-argv).
func parseClaudeRedactArgs(args []string) (*claudeRedactArgv, error) {
	p := &claudeRedactArgv{Schema: -1, agentsAt: -1}
	positional := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if positional || a == "-" || !strings.HasPrefix(a, "-") {
			p.Slots = append(p.Slots, promptSlot{Channel: "prompt", Index: i, Text: a})
			continue
		}
		if a == "--" {
			positional = true
			continue
		}
		name, inline, hasInline := claudeOption(a)
		switch {
		case claudePostureFlags(name):
			v := inline
			if !hasInline && i+1 < len(args) && (name == "--permission-mode" || name == "--permission-prompts") {
				i++
				v = args[i]
			}
			if !claudePostureKeep(name, v) {
				return nil, refuse(ReasonRedactionPosture, "the caller passes %s; under the redaction entry the permission posture is the render's (default mode, every tool asked, the entry's arbiter answering), which it would widen", name)
			}
		case slices.Contains(claudeResumeFlags, name):
			return nil, refuse(ReasonRedactionResume, "the caller passes %s; that native resume loads history no run record of this home ties to the redaction baseline", name)
		case slices.Contains(claudeResumeByID, name):
			v := inline
			if !hasInline {
				if i+1 >= len(args) || strings.HasPrefix(args[i+1], "-") {
					return nil, refuse(ReasonRedactionResume, "the caller passes %s without a session id; the engine would pick the session itself", name)
				}
				i++
				v = args[i]
			}
			if !sessionIDForm().MatchString(v) || p.Resume != "" {
				return nil, refuse(ReasonRedactionResume, "%s takes one session id (a UUID) under the redaction entry", name)
			}
			p.Resume = v
		case slices.Contains(claudeMCPFlags, name):
			p.mcpAt = append(p.mcpAt, i)
			had := len(p.MCPConfigs)
			if hasInline {
				p.MCPConfigs = append(p.MCPConfigs, inline)
			}
			for i+1 < len(args) && !(len(args[i+1]) > 1 && strings.HasPrefix(args[i+1], "-")) {
				i++
				p.mcpAt = append(p.mcpAt, i)
				p.MCPConfigs = append(p.MCPConfigs, args[i])
			}
			if len(p.MCPConfigs) == had {
				return nil, refuse(ReasonRedactionArgv, "%s needs a value", name)
			}
		case slices.Contains(claudeRedactNoValue, name):
			if hasInline {
				return nil, refuse(ReasonRedactionArgv, "%s takes no value", name)
			}
		case slices.Contains(claudeRedactOneValue, name):
			vi := i
			if !hasInline {
				if i+1 >= len(args) {
					return nil, refuse(ReasonRedactionArgv, "%s needs a value", name)
				}
				i++
				vi, inline = i, args[i]
			}
			if err := p.value(name, vi, inline, hasInline); err != nil {
				return nil, err
			}
		case slices.Contains(claudeRedactVariadic, name):
			var vals []string
			if hasInline {
				vals = append(vals, inline)
			}
			for i+1 < len(args) && !(len(args[i+1]) > 1 && strings.HasPrefix(args[i+1], "-")) {
				i++
				vals = append(vals, args[i])
			}
			switch name {
			case "--add-dir":
				p.AddDirs = append(p.AddDirs, vals...)
			case "--tools":
				if err := checkToolList(name, vals); err != nil {
					return nil, err
				}
			}
		default:
			return nil, refuse(ReasonRedactionArgv, "the caller passes %s, which spawn exec cannot place under the redaction entry (Claude Code 2.1.328 options it reads: see spawn redactargs.go)", name)
		}
	}
	return p, nil
}

// claudeOption returns an option argument's name and its inline value as
// Claude Code's (commander.js) parser reads it: "--name=value" splits at
// the first "="; a short option ("-r") is its whole text, never split.
func claudeOption(a string) (name, inline string, hasInline bool) {
	if !strings.HasPrefix(a, "--") {
		return a, "", false
	}
	return strings.Cut(a, "=")
}

// value records a one-value option's value at index vi (inline when it
// was written --name=value).
func (p *claudeRedactArgv) value(name string, vi int, v string, inline bool) error {
	if inline {
		// a channel written --name=value is rewritten whole; keep it simple
		// and exact: only the separate-argument spelling is rewritten
		switch name {
		case "--system-prompt", "--append-system-prompt", "--agents":
			return refuse(ReasonRedactionArgv, "write %s and its text as two arguments under the redaction entry", name)
		}
	}
	switch name {
	case "--system-prompt":
		p.Slots = append(p.Slots, promptSlot{Channel: "system_prompt", Index: vi, Text: v})
	case "--append-system-prompt":
		p.Slots = append(p.Slots, promptSlot{Channel: "append_system_prompt", Index: vi, Text: v})
	case "--json-schema":
		p.Schema = vi
	case "--session-id":
		p.SessionID = v
	case "--agent":
		return refuse(ReasonRedactionTools, "the caller passes --agent; under the redaction entry the session runs as no agent definition, whose tools, servers or hooks the render does not bound")
	case "--agents":
		var agents map[string]map[string]json.RawMessage
		if err := json.Unmarshal([]byte(v), &agents); err != nil {
			return refuse(ReasonRedactionArgv, "--agents is not a JSON object of agent objects: %v", err)
		}
		names := make([]string, 0, len(agents))
		for n := range agents {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			for k, raw := range agents[n] {
				if !slices.Contains(claudeAgentKeys, k) {
					return refuse(ReasonRedactionTools, "--agents %q carries %q; under the redaction entry an agent may carry only %s", n, k, strings.Join(claudeAgentKeys, ", "))
				}
				if k == "tools" || k == "disallowedTools" {
					var list []string
					if err := json.Unmarshal(raw, &list); err != nil {
						return refuse(ReasonRedactionTools, "--agents %q %s is not a list of tool names", n, k)
					}
					if k == "tools" {
						if err := checkToolList("--agents "+n+" tools", list); err != nil {
							return err
						}
					}
				}
			}
			for _, f := range []string{"description", "prompt"} {
				raw, ok := agents[n][f]
				if !ok {
					continue
				}
				var s string
				if err := json.Unmarshal(raw, &s); err != nil {
					return refuse(ReasonRedactionArgv, "--agents %q %s is not a string", n, f)
				}
				p.Slots = append(p.Slots, promptSlot{Channel: "agents." + n + "." + f, Index: vi, Text: s, agent: n, field: f})
			}
		}
		p.agentsAt = vi
	}
	return nil
}

// apply returns a copy of args with each slot's text replaced by texts[i]
// (the agent_prompt hook's reply, same order); the --agents value is
// re-encoded with its descriptions and prompts replaced.
func (p *claudeRedactArgv) apply(args []string, texts []string) ([]string, error) {
	out := slices.Clone(args)
	var agents map[string]map[string]json.RawMessage
	if p.agentsAt >= 0 {
		if err := json.Unmarshal([]byte(args[p.agentsAt]), &agents); err != nil {
			return nil, err
		}
	}
	for i, s := range p.Slots {
		if s.agent == "" {
			out[s.Index] = texts[i]
			continue
		}
		b, err := json.Marshal(texts[i])
		if err != nil {
			return nil, err
		}
		agents[s.agent][s.field] = b
	}
	if agents != nil {
		b, err := json.Marshal(agents)
		if err != nil {
			return nil, err
		}
		out[p.agentsAt] = string(b)
	}
	return out, nil
}

// withoutMCP returns args (the caller's argv or apply's result, same
// indices) without the caller's --mcp-config arguments; the proxies'
// configuration takes their place.
func (p *claudeRedactArgv) withoutMCP(args []string) []string {
	out := make([]string, 0, len(args))
	for i, a := range args {
		if !slices.Contains(p.mcpAt, i) {
			out = append(out, a)
		}
	}
	return out
}

// credentialName is the name rule of the table's second part (ADR-0134
// D7): an unanchored, case-insensitive match of a credential word in a
// variable name, an assignment argument's name, or an argument's text.
var credentialName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)key|token|secret|passw(or)?d|auth|credential`) })

// minNamedValue is the shortest value the name rule takes (ADR-0134 D7:
// eight characters); a declared name's value is taken at any length the
// matcher accepts.
const minNamedValue = 8

// namedValue is one value of the table's second part and the name its
// token is minted from.
type namedValue struct{ Name, Value string }

// namedSecrets returns the second part of a run's secret set from the
// engine's environment and the caller's arguments, in order and without
// repeated values: each variable declared (any length), each variable
// whose name matches credentialName with a value of at least eight bytes,
// each assignment argument NAME=VALUE whose name matches with a value of
// at least eight bytes, and each argument of at least eight bytes that
// follows an argument whose text matches, unless it starts with "-". A
// value that is not valid UTF-8 is an error (no table can hold it).
func namedSecrets(env, args, declared []string) ([]namedValue, error) {
	var out []namedValue
	seen := map[string]bool{}
	add := func(name, v string) error {
		if seen[v] {
			return nil
		}
		if !utf8.ValidString(v) {
			return fmt.Errorf("the value of %s is not valid UTF-8; no redaction table can hold it", name)
		}
		seen[v] = true
		out = append(out, namedValue{name, v})
		return nil
	}
	for _, kv := range env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || v == "" {
			continue
		}
		if slices.Contains(declared, k) || (credentialName().MatchString(k) && len(v) >= minNamedValue) {
			if err := add(k, v); err != nil {
				return nil, err
			}
		}
	}
	for i, a := range args {
		if k, v, ok := strings.Cut(a, "="); ok && credentialName().MatchString(k) && len(v) >= minNamedValue {
			if err := add(strings.TrimLeft(k, "-"), v); err != nil {
				return nil, err
			}
		}
		if i > 0 && credentialName().MatchString(args[i-1]) && len(a) >= minNamedValue && !strings.HasPrefix(a, "-") {
			if err := add(fmt.Sprintf("ARG_%d", i), a); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// mintToken returns "[NAME]" for a variable name (bytes outside A-Z, 0-9
// and _ become _, upper-cased, at most 100 bytes), with _2, _3 … appended
// while taken reports the token in use.
func mintToken(name string, taken func(string) bool) string {
	b := []byte(strings.ToUpper(name))
	for i, c := range b {
		if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			b[i] = '_'
		}
	}
	if len(b) > 100 {
		b = b[:100]
	}
	base := string(b)
	tok := "[" + base + "]"
	for n := 2; taken(tok); n++ {
		tok = fmt.Sprintf("[%s_%d]", base, n)
	}
	return tok
}
