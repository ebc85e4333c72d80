#!/usr/bin/env python3
"""Print Codex's own hook list for a session directory: codex app-server (stdio JSON-RPC)
initialize, then hooks/list {cwds:[CWD]}, with CODEX_HOME and HOME set to HOME.

usage: measure_hooks_list.py CODEX HOME CWD > hooks-list.json

Used to record plan-layers/*/hooks-list.json on Codex CLI 0.169.0 (2026-12-02); see README.md there.
"""
import json, os, select, subprocess, sys, time
codex, home, cwd = sys.argv[1:4]
env = dict(os.environ, CODEX_HOME=home, HOME=home)
p = subprocess.Popen([codex, "app-server"], cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
def send(o):
    p.stdin.write((json.dumps(o) + "\n").encode()); p.stdin.flush()
def recv(want, timeout=30):
    end = time.time() + timeout
    while time.time() < end:
        r, _, _ = select.select([p.stdout], [], [], 1)
        if r:
            line = p.stdout.readline()
            if not line: break
            o = json.loads(line)
            if o.get("id") == want:
                return o
    raise RuntimeError("no reply")
try:
    send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"clientInfo": {"name": "plan-measure", "version": "0.0.1"}}})
    recv(1)
    send({"jsonrpc": "2.0", "method": "initialized"})
    send({"jsonrpc": "2.0", "id": 2, "method": "hooks/list", "params": {"cwds": [cwd]}})
    print(json.dumps(recv(2), indent=1))
finally:
    p.terminate()
    try: p.wait(5)
    except subprocess.TimeoutExpired: p.kill()
