"""Real-client driver for skewguard's TestRealClients (Python 3 stdlib).

usage: e2e_launcher.py E2E_DIR CLIENT RENDERED_DIR ENGINE_DIR REGISTRATION

Runs the real CLIENT (claude, codex, gemini, opencode) with ../shared/e2e's
recipe and mock model, in a fresh git repository holding the rendered
.hookwarden/ (and .opencode/ for opencode) from RENDERED_DIR, with the
pre-tool hook command REGISTRATION (ignored for opencode: its plugin is the
registration). The scripted model runs one shell command that hookwarden
denies (git commit --no-verify) followed by `touch e2e_tool_ran.txt`.
ENGINE_DIR is put first on PATH ("-" for none: every PATH entry holding a
hookwarden binary is dropped). Prints one JSON object: rc, seconds,
tool_ran, turns, denial_seen (the refusal reached the model),
interceptor_note_seen (the launcher's no-engine note reached the model).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

e2e_dir, client, rendered, engine_dir, registration = sys.argv[1:6]
sys.path.insert(0, e2e_dir)
import e2e  # noqa: E402

e2e.TOOL_COMMAND = "git commit --no-verify -m x; touch " + e2e.SENTINEL
wd = tempfile.mkdtemp(prefix="hw-skewguard-%s-" % client)
result = {}
try:
    repo = os.path.join(wd, "repo")
    e2e.git_init(repo)
    os.makedirs(os.path.join(wd, "out"))
    shutil.copytree(os.path.join(rendered, ".hookwarden"), os.path.join(repo, ".hookwarden"))
    with open(os.path.join(repo, ".hookwarden.yaml"), "w") as f:
        f.write("version: 1\nclients: [%s]\n" % client)
    spec = e2e.CLIENTS[client]
    mock = e2e.Mock(spec["api"], wd)
    orig = e2e.hook_cmd
    e2e.hook_cmd = lambda w, mode: registration if mode == "exit2" else orig(w, mode)
    try:
        cmd, env, _pre, _files = spec["recipe"](wd, mock.port, "record" if client == "opencode" else "deny")
        if client == "opencode":
            os.remove(os.path.join(repo, ".opencode", "plugins", "e2e-hook.js"))
            shutil.copy(os.path.join(rendered, ".opencode", "plugins", "hookwarden.js"),
                        os.path.join(repo, ".opencode", "plugins", "hookwarden.js"))
        path = [p for p in os.environ.get("PATH", "").split(os.pathsep)
                if p and not os.path.exists(os.path.join(p, "hookwarden"))]
        if engine_dir != "-":
            path.insert(0, engine_dir)
        env.update(PATH=os.pathsep.join(path), PWD=repo, XDG_CACHE_HOME=os.path.join(wd, "cache"))
        env.pop("HOOKWARDEN_BIN", None)
        t0 = time.time()
        full = dict(os.environ, **env)
        full.pop("HOOKWARDEN_BIN", None)
        p = subprocess.run(cmd, cwd=repo, env=full, stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=180)
        bodies = json.dumps([e.get("body") for e in mock.entries()])
        result = {"rc": p.returncode, "seconds": round(time.time() - t0, 1),
                  "tool_ran": os.path.exists(os.path.join(repo, e2e.SENTINEL)),
                  "turns": len(mock.model_turns()),
                  "denial_seen": "[BLOCKED BY hookwarden:git-no-verify]" in bodies,
                  "interceptor_note_seen": "standalone interceptor judged this call" in bodies}
    finally:
        mock.stop()
finally:
    shutil.rmtree(wd, ignore_errors=True)
print(json.dumps(result))
