#!/usr/bin/env python3
"""Which command-line spellings make a nested `claude -p` skip the project's
PreToolUse row (Claude Code 2.1.328, loopback model server).

usage: HOOKWARDEN_CLIENTS_DIR=... HOOKWARDEN_E2E_DIR=/work/shared/e2e \
       python3 measure.py > results.json

Each case: a fresh git repository whose .claude/settings.json holds one
PreToolUse row (matcher Bash) that records its call and denies with exit 2;
an isolated CLAUDE_CONFIG_DIR; mock_llm.py --api anthropic scripting one Bash
call `touch e2e_tool_ran.txt`. "hook_ran" = the row was called; "tool_ran" =
the sentinel exists (the command ran). A case switches our row off when
hook_ran is false and tool_ran is true.
"""
import json, os, shutil, subprocess, sys, tempfile, time

E2E = os.environ["HOOKWARDEN_E2E_DIR"]
sys.path.insert(0, E2E)
import e2e  # noqa: E402  (Mock, write, git_init)

CLAUDE = os.path.join(os.environ["HOOKWARDEN_CLIENTS_DIR"], "node_modules", ".bin", "claude")
OFF = json.dumps({"disableAllHooks": True})

# name -> (extra argv, extra env, user settings.json content or None, settings file content or None)
CASES = [
    ("baseline", [], {}, None, None),
    ("settings-inline-disableAllHooks", ["--settings", OFF], {}, None, None),
    ("settings-inline-eq-disableAllHooks", ["--settings=" + OFF], {}, None, None),
    ("settings-file-disableAllHooks", ["--settings", "{FILE}"], {}, None, OFF),
    ("settings-inline-other", ["--settings", json.dumps({"env": {"X": "1"}})], {}, None, None),
    ("settings-inline-hooks-empty", ["--settings", json.dumps({"hooks": {}})], {}, None, None),
    ("setting-sources-user", ["--setting-sources", "user"], {}, None, None),
    ("setting-sources-user-local", ["--setting-sources", "user,local"], {}, None, None),
    ("setting-sources-empty", ["--setting-sources", ""], {}, None, None),
    ("setting-sources-project", ["--setting-sources", "project"], {}, None, None),
    ("bare", ["--bare"], {}, None, None),
    ("dangerously-skip-permissions", ["--dangerously-skip-permissions"], {"IS_SANDBOX": "1"}, None, None),
    ("permission-mode-bypass", ["--permission-mode", "bypassPermissions"], {"IS_SANDBOX": "1"}, None, None),
    ("user-settings-disableAllHooks", [], {}, OFF, None),
    ("env-CLAUDE_CODE_SIMPLE", [], {"CLAUDE_CODE_SIMPLE": "1"}, None, None),
    ("env-CLAUDE_CODE_PERSONAL_HOOKS_OFF", [], {"CLAUDE_CODE_PERSONAL_HOOKS_OFF": "1"}, None, None),
    # HOME=home, no CLAUDE_CONFIG_DIR: the user settings are home/.claude/settings.json
    ("home-settings-disableAllHooks", [], {"HOME": "{HOME}"}, OFF, None),
]


def run(name, argv, extra_env, user_settings, settings_file):
    wd = tempfile.mkdtemp(prefix="nested-claude-")
    repo, home, out = (os.path.join(wd, d) for d in ("repo", "home", "out"))
    os.makedirs(home)
    e2e.git_init(repo)
    hook = "%s %s exit2" % (e2e.HOOK, out)
    e2e.write(os.path.join(repo, ".claude", "settings.json"), json.dumps({"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": hook, "timeout": 15}]}]}}, indent=2) + "\n")
    via_home = extra_env.get("HOME") == "{HOME}"
    if user_settings is not None:
        e2e.write(os.path.join(home, ".claude" if via_home else "", "settings.json"), user_settings + "\n")
    fpath = os.path.join(wd, "off.json")
    if settings_file is not None:
        e2e.write(fpath, settings_file + "\n")
    argv = [fpath if a == "{FILE}" else a for a in argv]
    mock = e2e.Mock("anthropic", wd, lifetime=200)
    try:
        env = dict(os.environ, CLAUDE_CONFIG_DIR=home, ANTHROPIC_BASE_URL="http://127.0.0.1:%d" % mock.port,
                   ANTHROPIC_API_KEY="sk-test-dummy", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1")
        env.update({k: (home if v == "{HOME}" else v) for k, v in extra_env.items()})
        if via_home:
            del env["CLAUDE_CONFIG_DIR"]
        cmd = [CLAUDE, "-p", "run it", "--output-format", "json", "--allowedTools", "Bash"] + argv
        p = subprocess.run(cmd, cwd=repo, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=150)
        turns = len(mock.model_turns())
    finally:
        mock.stop()
    res = {"case": name, "argv": argv if settings_file is None else [("FILE" if a == fpath else a) for a in argv],
           "env": extra_env, "user_settings": user_settings, "settings_file": settings_file,
           "exit": p.returncode, "hook_ran": len(e2e.hook_calls(wd, "PreToolUse")) > 0,
           "tool_ran": os.path.exists(os.path.join(repo, e2e.SENTINEL)), "model_turns": turns,
           "stderr": p.stderr.strip()[:300]}
    res["rows_off"] = res["tool_ran"] and not res["hook_ran"]
    shutil.rmtree(wd, ignore_errors=True)
    return res


def main():
    want = set(sys.argv[1:])
    results = [run(*c) for c in CASES if not want or c[0] in want]
    json.dump({"client": "claude", "version": "2.1.328", "script": "measure.py",
               "measured": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "results": results},
              sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
