"""Real-client driver for skewguard's TestRealClaudeOnFailure (Python 3 stdlib).

usage: e2e_onfailure.py E2E_DIR COMMAND TIMEOUT ONFAILURE

Runs the real Claude Code with ../shared/e2e's recipe and mock model in a fresh
git repository whose .claude/settings.json has one PreToolUse handler for
Bash: {"type":"command","command":COMMAND,"timeout":TIMEOUT} plus
"onFailure":ONFAILURE unless ONFAILURE is "-". The scripted model runs
`touch e2e_tool_ran.txt`, which no policy denies: the call is blocked only if
the failing hook blocks it. Prints one JSON object: rc, seconds, tool_ran,
turns.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

e2e_dir, command, timeout, on_failure = sys.argv[1:5]
sys.path.insert(0, e2e_dir)
import e2e  # noqa: E402

e2e.TOOL_COMMAND = "touch " + e2e.SENTINEL
wd = tempfile.mkdtemp(prefix="hw-onfailure-")
result = {}
try:
    repo = os.path.join(wd, "repo")
    e2e.git_init(repo)
    os.makedirs(os.path.join(wd, "out"))
    spec = e2e.CLIENTS["claude"]
    mock = e2e.Mock(spec["api"], wd)
    try:
        cmd, env, _pre, _files = spec["recipe"](wd, mock.port, "deny")
        path = os.path.join(repo, ".claude", "settings.json")
        with open(path) as f:
            settings = json.load(f)
        handler = {"type": "command", "command": command, "timeout": int(timeout)}
        if on_failure != "-":
            handler["onFailure"] = on_failure
        settings["hooks"]["PreToolUse"] = [{"matcher": "Bash", "hooks": [handler]}]
        with open(path, "w") as f:
            json.dump(settings, f, indent=2)
        t0 = time.time()
        full = dict(os.environ, **env)
        p = subprocess.run(cmd, cwd=repo, env=full, stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=180)
        result = {"rc": p.returncode, "seconds": round(time.time() - t0, 1),
                  "tool_ran": os.path.exists(os.path.join(repo, e2e.SENTINEL)),
                  "turns": len(mock.model_turns())}
    finally:
        mock.stop()
finally:
    shutil.rmtree(wd, ignore_errors=True)
print(json.dumps(result))
