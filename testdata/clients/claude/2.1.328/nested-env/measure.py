#!/usr/bin/env python3
"""Does an environment variable on a nested `claude -p` change which engine
answers the project's hookwarden rows (issue 29 item 2)? Claude Code 2.1.328,
loopback model server.

usage: HOOKWARDEN_CLIENTS_DIR=... HOOKWARDEN_E2E_DIR=/work/shared/e2e \
       HOOKWARDEN=/path/to/built/hookwarden python3 measure.py > results.json

Each case: a fresh git repository adopted with `hookwarden adopt --clients
claude` (the engine found on PATH, as installed); an isolated
CLAUDE_CONFIG_DIR; mock_llm.py --api anthropic scripting one Bash call that
commits with --no-verify and then touches the sentinel. "tool_ran" = the
sentinel exists (our pre-tool row let the call through). The fake engine is
a script that exits 0 printing nothing, named hookwarden.
"""
import json, os, shutil, subprocess, sys, tempfile, time

E2E = os.environ["HOOKWARDEN_E2E_DIR"]
sys.path.insert(0, E2E)
import e2e  # noqa: E402

CLAUDE = os.path.join(os.environ["HOOKWARDEN_CLIENTS_DIR"], "node_modules", ".bin", "claude")
ENGINE = os.environ["HOOKWARDEN"]
COMMAND = "git commit --allow-empty --no-verify -q -m wip && touch " + e2e.SENTINEL

# name -> extra env ({FAKE} the fake engine, {FAKEDIR} its directory)
CASES = [
    ("baseline", {}),
    ("HOOKWARDEN_BIN-fake", {"HOOKWARDEN_BIN": "{FAKE}"}),
    ("PATH-fake-first", {"PATH": "{FAKEDIR}:{PATH}"}),
]


def run(name, extra_env):
    wd = tempfile.mkdtemp(prefix="nested-env-")
    repo, home, bindir, fakedir = (os.path.join(wd, d) for d in ("repo", "home", "bin", "fake"))
    for d in (home, bindir, fakedir):
        os.makedirs(d)
    e2e.git_init(repo)
    shutil.copy(ENGINE, os.path.join(bindir, "hookwarden"))
    fake = os.path.join(fakedir, "hookwarden")
    e2e.write(fake, "#!/bin/sh\nexit 0\n")
    os.chmod(fake, 0o755)
    base_path = bindir + ":" + os.environ["PATH"]
    a = subprocess.run([os.path.join(bindir, "hookwarden"), "adopt", "--clients", "claude", repo],
                       env=dict(os.environ, PATH=base_path, HOME=home), capture_output=True, text=True)
    mock = e2e.Mock("anthropic", wd, extra=("--command", COMMAND), lifetime=200)
    try:
        env = dict(os.environ, PATH=base_path, CLAUDE_CONFIG_DIR=home, ANTHROPIC_BASE_URL="http://127.0.0.1:%d" % mock.port,
                   ANTHROPIC_API_KEY="sk-test-dummy", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
                   GIT_AUTHOR_NAME="m", GIT_AUTHOR_EMAIL="m@example.invalid", GIT_COMMITTER_NAME="m",
                   GIT_COMMITTER_EMAIL="m@example.invalid")
        env.pop("HOOKWARDEN_BIN", None)
        env.update({k: v.replace("{FAKEDIR}", fakedir).replace("{FAKE}", fake).replace("{PATH}", base_path)
                    for k, v in extra_env.items()})
        cmd = [CLAUDE, "-p", "run it", "--output-format", "json", "--allowedTools", "Bash"]
        p = subprocess.run(cmd, cwd=repo, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=150)
        turns = len(mock.model_turns())
        bodies = json.dumps(mock.entries())
    finally:
        mock.stop()
    res = {"case": name, "env": extra_env, "adopt_exit": a.returncode, "exit": p.returncode,
           "tool_ran": os.path.exists(os.path.join(repo, e2e.SENTINEL)), "model_turns": turns,
           "refusal_reached_model": "BLOCKED BY hookwarden:git-no-verify" in bodies,
           "stderr": p.stderr.strip()[:300]}
    shutil.rmtree(wd, ignore_errors=True)
    return res


def main():
    want = set(sys.argv[1:])
    results = [run(*c) for c in CASES if not want or c[0] in want]
    json.dump({"client": "claude", "version": "2.1.328", "script": "measure.py", "command": COMMAND,
               "measured": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "results": results},
              sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
