"""hookwarden standalone interceptor (rendered; do not edit by hand).

Judges one pre-tool hook call with hookwarden's built-in text rules when no
installed hookwarden engine serves the call. Python 3.8+ standard library only.

usage: python3 interceptor.py CLIENT        (payload on stdin, at most 1 MiB)

CLIENT is a client with a pre-tool row: claude, codex, gemini, qwen, droid,
kiro, windsurf, copilot, cursor, cline, agy, opencode or lefthook. The answer is in the
client's dialect, the same bytes the engine gives for the same verdict:
  claude/codex/gemini/qwen/droid/kiro/windsurf/opencode: deny = exit 2,
       refusal on stderr; allow = exit 0
  copilot: deny = {"permissionDecision":"deny","permissionDecisionReason":...}
       on stdout, refusal on stderr, exit 2; allow = exit 0
  cursor: deny = {"permission":"deny","user_message":...,"agent_message":...}
       on stdout, refusal on stderr, exit 2; allow = exit 0
  cline: one JSON object on stdout, exit 0: {"cancel":false} or
       {"cancel":true,"errorMessage":...}
  agy: one JSON object on stdout, {"decision":"allow"} or
       {"decision":"deny","reason":...}, exit 0
  lefthook: deny = exit 1, refusal on stderr; allow = "hookwarden: allow" on stdout
Input it cannot judge is denied. The rules below are data rendered from
hookwarden's policy package (policy.TextRules, policy.Normalisations and the
scan bounds); the refusal texts are the engine's.
"""
import json
import os
import re
import sys
import threading

DATA = json.loads(__HOOKWARDEN_DATA__)

MAX_INPUT_BYTES = DATA["max_input_bytes"]
_ASCII_LOWER = {c: c + 32 for c in range(ord("A"), ord("Z") + 1)}
# Rules are compiled on first use: a rule whose required literals occur in no
# line is never searched, so most calls compile few of the large patterns.
_RULES = [(r["id"], r["pattern"], r["requires"]) for r in DATA["rules"]]
_COMPILED = {}


def _compiled(pattern):
    rx = _COMPILED.get(pattern)
    if rx is None:
        rx = _COMPILED[pattern] = re.compile(pattern)
    return rx
_NORMALISE = [(re.compile(n["pattern"]), n["replacement"]) for n in DATA["normalise"]]


def refusal(rule_id):
    """The refusal text of a built-in rule, as the engine words it."""
    return DATA["reasons"][rule_id]


def cap(text):
    """Cut text to at most max_reason_bytes UTF-8 bytes on a character boundary."""
    b = text.encode("utf-8", "surrogatepass")
    if len(b) <= DATA["max_reason_bytes"]:
        return text
    return b[: DATA["max_reason_bytes"]].decode("utf-8", "ignore")


def judge_text(command):
    """Return (allowed, rule_id) for one command text: empty command allows,
    the scan bounds deny, then the first text rule (priority order) that
    matches a line of the normalised command denies."""
    if command.strip(DATA["ascii_space"]) == "":
        return True, ""
    if len(command.encode("utf-8", "surrogatepass")) > DATA["max_command_bytes"]:
        return False, DATA["bound_command_rule"]
    for line in command.split("\n"):
        if len(line.encode("utf-8", "surrogatepass")) > DATA["max_line_bytes"]:
            return False, DATA["bound_line_rule"]
    text = command
    for pattern, replacement in _NORMALISE:
        text = pattern.sub(lambda _m: replacement, text)
    lines = text.split("\n")
    lower = [line.translate(_ASCII_LOWER) for line in lines]
    for rule_id, pattern, requires in _RULES:
        for k, line in enumerate(lines):
            if requires and not any(lit in lower[k] for lit in requires):
                continue
            if _compiled(pattern).search(line):
                return False, rule_id
    return True, ""


class Unjudgeable(Exception):
    """The payload cannot be judged; the message never quotes it."""


def _not_json(name):
    """NaN, Infinity and -Infinity are not JSON (RFC 8259); Python's json
    accepts them by default, the engine refuses them."""
    raise Unjudgeable("not valid JSON (%s)" % name)


def _no_duplicates(pairs):
    seen = {}
    for k, v in pairs:
        if k in seen:
            raise Unjudgeable("duplicate member name")
        seen[k] = v
    return seen


def _too_deep(obj, limit):
    """True when obj nests more than limit levels of objects and arrays (obj
    itself is level 1), as the engine bounds payloads."""
    stack = [(obj, 1)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, (dict, list)):
            if d > limit:
                return True
            stack.extend((x, d + 1) for x in (v.values() if isinstance(v, dict) else v))
    return False


def _member(obj, key, kind, where):
    if not isinstance(obj, dict) or key not in obj:
        raise Unjudgeable("member %s is missing" % where)
    v = obj[key]
    if not isinstance(v, kind) or isinstance(v, bool) and kind is not bool:
        raise Unjudgeable("member %s has the wrong type" % where)
    return v


def _optional(obj, key, kind, where):
    """The member key of obj when present (None when absent); a present
    member of another type is Unjudgeable, as the engine's optional
    members are."""
    if key not in obj:
        return None
    return _member(obj, key, kind, where)


def _extract_copilot(obj, matcher):
    """GitHub Copilot CLI's native preToolUse payload (protocol/dialect
    copilot.go decodeCopilot): no hook_event_name; optional cwd and
    sessionId strings and a numeric timestamp; toolName selected by the
    row's matcher; toolArgs.command the command."""
    if "hook_event_name" in obj:
        raise Unjudgeable("member hook_event_name: a Claude-format payload, not the Copilot CLI native form")
    _optional(obj, "cwd", str, "cwd")
    _optional(obj, "sessionId", str, "sessionId")
    _optional(obj, "timestamp", (int, float), "timestamp")
    tool = _member(obj, "toolName", str, "toolName")
    if matcher and not matcher.search(tool):
        return None
    args = _member(obj, "toolArgs", dict, "toolArgs")
    return _member(args, "command", str, "toolArgs.command")


def _workspace_paths(obj, key):
    """The optional array of strings obj[key] (Cursor's workspace_roots,
    Cline's workspaceRoots), [] when absent, of at most max_workspace_paths
    entries (dialect.MaxWorkspacePaths); another type is Unjudgeable."""
    roots = _optional(obj, key, list, key) or []
    if not all(isinstance(r, str) for r in roots):
        raise Unjudgeable("member %s has the wrong type" % key)
    if len(roots) > DATA["max_workspace_paths"]:
        raise Unjudgeable("member %s has more than %d entries" % (key, DATA["max_workspace_paths"]))
    return roots


def _extract_cursor(obj, row):
    """Cursor's beforeShellExecution payload (protocol/dialect cursor.go
    decodeCursor): hook_event_name the row's event; optional string
    members; workspace_roots an array of at most max_workspace_paths
    strings; command the command; cwd or workspace_roots names a
    directory."""
    event = _member(obj, "hook_event_name", str, "hook_event_name")
    if event not in row["native_events"]:
        raise Unjudgeable("member hook_event_name names another event")
    for k in ("conversation_id", "generation_id", "cursor_version", "model", "user_email"):
        _optional(obj, k, str, k)
    roots = _workspace_paths(obj, "workspace_roots")
    cwd = _optional(obj, "cwd", str, "cwd")
    command = _member(obj, "command", str, "command")
    if not cwd and not roots:
        raise Unjudgeable("members cwd and workspace_roots: the payload names no directory")
    return command


def _extract_windsurf(obj, row):
    """Windsurf's pre_run_command payload (protocol/dialect windsurf.go
    decodeWindsurf): agent_action_name the row's event; optional string
    members; tool_info.command_line the command, tool_info.cwd optional."""
    event = _member(obj, "agent_action_name", str, "agent_action_name")
    if event not in row["native_events"]:
        raise Unjudgeable("member agent_action_name names another event")
    for k in ("trajectory_id", "execution_id", "timestamp", "model_name"):
        _optional(obj, k, str, k)
    info = _member(obj, "tool_info", dict, "tool_info")
    command = _member(info, "command_line", str, "tool_info.command_line")
    _optional(info, "cwd", str, "tool_info.cwd")
    return command


def _extract_cline(obj, row, matcher):
    """Cline's PreToolUse payload (protocol/dialect cline.go decodeCline): the
    VS Code extension's preToolUse{toolName, parameters} and the npm CLI
    3.0.65's hookName "tool_call" with tool_call{id, name, input}, whose
    input is read instead of the CLI's stringified parameters; a
    tool_call.name other than preToolUse.toolName is refused, checked
    before the matcher. run_commands joins its commands array one a line;
    the argv form {command, args} is refused. workspaceRoots[0] must be an
    absolute directory (the engine places the call by it)."""
    event = _member(obj, "hookName", str, "hookName")
    if event not in row["native_events"]:
        raise Unjudgeable("member hookName names another event")
    for k in ("clineVersion", "taskId", "userId"):
        _optional(obj, k, str, k)
    if "timestamp" in obj and (isinstance(obj["timestamp"], bool) or not isinstance(obj["timestamp"], (str, int, float))):
        raise Unjudgeable("member timestamp has the wrong type")
    roots = _workspace_paths(obj, "workspaceRoots")
    pre = _member(obj, "preToolUse", dict, "preToolUse")
    call = _optional(obj, "tool_call", dict, "tool_call")
    if call is not None:
        name = _member(call, "name", str, "tool_call.name")
        if name != (pre.get("toolName") if isinstance(pre.get("toolName"), str) else ""):
            raise Unjudgeable("member tool_call.name names another tool than preToolUse.toolName")
    tool = _member(pre, "toolName", str, "preToolUse.toolName")
    if matcher and not matcher.search(tool):
        return None
    params = _member(pre, "parameters", dict, "preToolUse.parameters")
    base = "preToolUse.parameters"
    if call is not None:
        params = _member(call, "input", dict, "tool_call.input")
        base = "tool_call.input"
    if tool == "run_commands":
        command = _cline_run_commands(params, base)
    else:
        command = _member(params, "command", str, base + ".command")
    if not roots or not roots[0].startswith("/"):
        raise Unjudgeable("member workspaceRoots: the payload names no absolute directory")
    return command


def _cline_run_commands(params, base):
    """The commands of a Cline CLI run_commands call, one a line (protocol/dialect
    cline.go clineRunCommands): commands (a string or a non-empty array of
    strings), else command (refused beside args: the argv form), else cmd."""
    if "commands" in params:
        cmds = params["commands"]
        if isinstance(cmds, str):
            return cmds
        cmds = _member(params, "commands", list, base + ".commands")
        if not all(isinstance(c, str) for c in cmds):
            raise Unjudgeable("member %s.commands has the wrong type" % base)
        if not cmds:
            raise Unjudgeable("member %s.commands is empty (no command to judge)" % base)
        return "\n".join(cmds)
    if "command" in params:
        if "args" in params:
            raise Unjudgeable("member %s.args: the argv form {command, args} is not judged" % base)
        return _member(params, "command", str, base + ".command")
    if "cmd" in params:
        return _member(params, "cmd", str, base + ".cmd")
    raise Unjudgeable("member %s.commands is missing" % base)


def extract(client, data):
    """Return the command text of a pre-tool payload, or None when the call is
    for a tool the registration does not judge. Raises Unjudgeable."""
    try:
        obj = json.loads(data.decode("utf-8"), object_pairs_hook=_no_duplicates, parse_constant=_not_json)
    except Unjudgeable:
        raise
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise Unjudgeable("stdin is not one JSON object of valid UTF-8")
    if not isinstance(obj, dict):
        raise Unjudgeable("stdin is not a JSON object")
    if _too_deep(obj, DATA["max_depth"]):
        raise Unjudgeable("JSON nests deeper than %d levels" % DATA["max_depth"])
    row = DATA["pre_tool"].get(client)
    if row is None:
        raise Unjudgeable("no pre-tool registration for this client")
    matcher = re.compile(row["matcher"]) if row["matcher"] else None
    if client == "copilot":
        return _extract_copilot(obj, matcher)
    if client == "cursor":
        return _extract_cursor(obj, row)
    if client == "windsurf":
        return _extract_windsurf(obj, row)
    if client == "cline":
        return _extract_cline(obj, row, matcher)
    if client == "agy":
        call = _member(obj, "toolCall", dict, "toolCall")
        tool = _member(call, "name", str, "toolCall.name")
        if matcher and not matcher.search(tool):
            return None
        args = _member(call, "args", dict, "toolCall.args")
        return _member(args, "CommandLine", str, "toolCall.args.CommandLine")
    if client == "opencode":
        inp = _member(obj, "input", dict, "input")
        tool = _member(inp, "tool", str, "input.tool")
        if matcher and not matcher.search(tool):
            return None
        out = _member(obj, "output", dict, "output")
        args = _member(out, "args", dict, "output.args")
        return _member(args, "command", str, "output.args.command")
    if client != "lefthook" or "hook_event_name" in obj:
        event = _member(obj, "hook_event_name", str, "hook_event_name")
        if event not in row["native_events"]:
            raise Unjudgeable("member hook_event_name names another event")
    if client != "lefthook":
        _optional(obj, "cwd", str, "cwd")
    if client != "lefthook":
        tool = _member(obj, "tool_name", str, "tool_name")
        if matcher and not matcher.search(tool):
            return None
    tin = _member(obj, "tool_input", dict, "tool_input")
    return _member(tin, "command", str, "tool_input.command")


def _go_json(obj):
    """JSON as Go's encoding/json writes it (HTML characters escaped)."""
    s = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
    for a, b in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"),
                 ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        s = s.replace(a, b)
    return s + "\n"


def answer(client, kind, reason=""):
    """(stdout, stderr, exit) for a verdict kind (allow, skip, deny) in the
    client's dialect, as the engine encodes it."""
    reason = cap(reason)
    if client == "cline":
        if kind == "deny":
            return _go_json({"cancel": True, "errorMessage": reason}), "", 0
        err = DATA["skip_prefix"] + reason + "\n" if kind == "skip" else ""
        return _go_json({"cancel": False}), err, 0
    if client == "agy":
        if kind == "deny":
            return _go_json({"decision": "deny", "reason": reason}), "", 0
        err = DATA["skip_prefix"] + reason + "\n" if kind == "skip" else ""
        return _go_json({"decision": "allow"}), err, 0
    if kind == "deny" and client == "copilot":
        return _go_json({"permissionDecision": "deny", "permissionDecisionReason": reason}), reason + "\n", 2
    if kind == "deny" and client == "cursor":
        return _go_json({"permission": "deny", "user_message": reason, "agent_message": reason}), reason + "\n", 2
    if kind == "deny":
        return "", reason + "\n", 1 if client == "lefthook" else 2
    if kind == "skip":
        return "", DATA["skip_prefix"] + reason + "\n", 0
    if client == "lefthook":
        return DATA["lefthook_allow"], "", 0
    return "", "", 0


def judge_payload(client, data):
    """Judge one raw pre-tool payload (bytes) for client; returns
    (stdout, stderr, exit) in the client's dialect."""
    if client not in DATA["pre_tool"]:
        client_shown = client if re.match(r"^[a-z-]+$", client or "") else "?"
        return answer(client, "deny", DATA["invalid_input"] % (client_shown, "no pre-tool registration for this client"))
    if len(data) > MAX_INPUT_BYTES:
        return answer(client, "deny", DATA["unreadable_input"] % (client, "stdin is larger than %d bytes" % MAX_INPUT_BYTES))
    try:
        command = extract(client, data)
    except Unjudgeable as e:
        return answer(client, "deny", DATA["invalid_input"] % (client, str(e)))
    if command is None:
        row = DATA["pre_tool"][client]
        return answer(client, "skip", DATA["unjudged_tool"] % (client, row["matcher"]))
    allowed, rule_id = judge_text(command)
    if allowed:
        return answer(client, "allow")
    return answer(client, "deny", refusal(rule_id))


def read_stdin(seconds):
    """Read stdin to end of file (at most MAX_INPUT_BYTES + 1 bytes), or None
    when it is not closed within seconds: a client that never closes stdin
    must get a deny, not a hook that hangs until the client's timeout lets
    the call through."""
    box = {}

    def run():
        try:
            box["data"] = sys.stdin.buffer.read(MAX_INPUT_BYTES + 1)
        except (OSError, ValueError, AttributeError):
            box["data"] = b""

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(max(0.0, seconds))
    return box.get("data")


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: interceptor.py CLIENT  (pre-tool payload on stdin)\n")
        return 2
    row = DATA["pre_tool"].get(argv[1])
    # An unknown client is denied by judge_payload without reading stdin.
    data = read_stdin(row["budget_ms"] / 1000.0) if row else b""
    if data is None:
        out, err, code = answer(argv[1], "deny", DATA["unreadable_input"] % (argv[1], "stdin was not closed within the event's budget"))
    else:
        out, err, code = judge_payload(argv[1], data)
    sys.stdout.buffer.write(out.encode("utf-8", "surrogatepass"))
    sys.stderr.buffer.write(err.encode("utf-8", "surrogatepass"))
    sys.stdout.flush()
    sys.stderr.flush()
    return code


if __name__ == "__main__":
    # os._exit, not sys.exit: a stdin reader thread still blocked in read()
    # makes interpreter shutdown abort (exit 134), which the clients ignore.
    os._exit(main(sys.argv))
