# Measures which .claude/settings.json values make Claude Code skip the whole file (its
# PreToolUse hook never runs), and whether a session started in a subdirectory runs the
# root file's hooks. Run with HOOKWARDEN_CLIENTS_DIR set:
#   HOOKWARDEN_E2E_DIR=../shared/e2e python3 testdata/clients/claude/measure_settings.py OUT.json
# (recorded as 2.1.328/settings-rejected.json on 2026-12-01 with Claude Code 2.1.328).
# Which Claude Code 2.1.328 settings make it skip .claude/settings.json, and does a session
# started in a subdirectory read the root's file? Uses ../shared/e2e's mock and recipe.
import json, os, subprocess, sys, tempfile, shutil
sys.path.insert(0, os.environ.get("HOOKWARDEN_E2E_DIR", "../shared/e2e"))
import e2e
cases = [("baseline", None, ""), ("permissions-5", ("permissions", 5), ""), ("model-5", ("model", 5), ""),
         ("env-value-number", ("env", {"A": 1}), ""), ("cleanupPeriodDays--1", ("cleanupPeriodDays", -1), ""),
         ("statusLine-5", ("statusLine", 5), ""), ("unknown-key", ("hookwardenUnknown", 1), ""),
         ("includeCoAuthoredBy-str", ("includeCoAuthoredBy", "yes"), ""), ("enabledPlugins-5", ("enabledPlugins", 5), ""),
         ("hooks-PreToolUse-5", ("hooks.Stop", 5), ""),
         ("start-subdir", None, "sub"), ("onFailure-bogus", ("onFailure", "bogus"), "")]
out = {}
for name, kv, sub in cases:
    wd = os.path.realpath(tempfile.mkdtemp(prefix="p20-claude-"))
    repo = os.path.join(wd, "repo"); e2e.git_init(repo); os.makedirs(os.path.join(wd, "out"))
    mock = e2e.Mock("anthropic", wd)
    try:
        cmd, env, pre, files = e2e.recipe_claude(wd, mock.port, "deny")
        sp = os.path.join(repo, ".claude", "settings.json")
        s = json.load(open(sp))
        if kv:
            k, v = kv
            if k == "onFailure":
                s["hooks"]["PreToolUse"][0]["hooks"][0]["onFailure"] = v
            elif k.startswith("hooks."):
                s["hooks"][k[6:]] = v
            else:
                s[k] = v
        json.dump(s, open(sp, "w"), indent=2)
        cwd = repo
        if sub:
            cwd = os.path.join(repo, sub); os.makedirs(cwd)
        env["PWD"] = cwd
        p = subprocess.run(cmd, cwd=cwd, env=dict(os.environ, **env), stdin=subprocess.DEVNULL, capture_output=True, timeout=120)
        hook_ran = os.path.exists(os.path.join(wd, "out", "PreToolUse.json"))
        tool_ran = os.path.exists(os.path.join(cwd, e2e.SENTINEL))
        out[name] = {"rc": p.returncode, "hook_ran": hook_ran, "tool_ran": tool_ran}
        print(name, out[name], flush=True)
    finally:
        mock.stop(); shutil.rmtree(wd, ignore_errors=True)
json.dump(out, open(sys.argv[1] if len(sys.argv) > 1 else "settings-rejected.json", "w"), indent=1)
