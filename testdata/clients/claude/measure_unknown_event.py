# Recorded 2026-12-04 as 2.1.328/unknown-event/results.json and 2.1.332/unknown-event/results.json:
#   E2E_CLIENTS_BIN=<prefix>/node_modules/.bin HOOKWARDEN_E2E_DIR=../shared/e2e python3 testdata/clients/claude/measure_unknown_event.py OUT.json
# (a settings.json with the e2e recipe's PreToolUse deny row plus a PreSkillShellCommand or an unknown event group:
# hook_ran true and tool_ran false mean the file was read and its PreToolUse row still denied).
# Does a Claude Code release drop .claude/settings.json (its PreToolUse row never runs)
# when the file registers a hook event it does not know (PreSkillShellCommand)?
import json, os, subprocess, sys, tempfile, shutil
sys.path.insert(0, os.environ.get("HOOKWARDEN_E2E_DIR", "../shared/e2e"))
import e2e
cases = [("baseline", None), ("PreSkillShellCommand", "PreSkillShellCommand"), ("unknown-event", "HookwardenNoSuchEvent")]
out = {}
for name, ev in cases:
    wd = os.path.realpath(tempfile.mkdtemp(prefix="hw-claude-ev-"))
    repo = os.path.join(wd, "repo"); e2e.git_init(repo); os.makedirs(os.path.join(wd, "out"))
    mock = e2e.Mock("anthropic", wd)
    try:
        cmd, env, pre, files = e2e.recipe_claude(wd, mock.port, "deny")
        sp = os.path.join(repo, ".claude", "settings.json")
        s = json.load(open(sp))
        if ev:
            s["hooks"][ev] = [{"matcher": "Bash|PowerShell", "hooks": [{"type": "command", "command": "exit 0", "timeout": 15}]}]
        json.dump(s, open(sp, "w"), indent=2)
        p = subprocess.run(cmd, cwd=repo, env=dict(os.environ, **env), stdin=subprocess.DEVNULL, capture_output=True, timeout=120)
        hook_ran = os.path.exists(os.path.join(wd, "out", "PreToolUse.json"))
        tool_ran = os.path.exists(os.path.join(repo, e2e.SENTINEL))
        out[name] = {"rc": p.returncode, "hook_ran": hook_ran, "tool_ran": tool_ran}
        print(name, out[name], p.stderr.decode()[-400:], flush=True)
    finally:
        mock.stop(); shutil.rmtree(wd, ignore_errors=True)
json.dump(out, open(sys.argv[1], "w"), indent=1)
