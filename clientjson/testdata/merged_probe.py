#!/usr/bin/env python3
"""Check that a real client loads a file clientjson.Merge produced.

Usage: merged_probe.py CLIENT BEFORE_FILE [MERGECLI]

Runs the e2e harness's "deny" scenario (../../../shared/e2e/e2e.py; needs
HOOKWARDEN_CLIENTS_DIR with the pinned clients). Instead of the harness's own
hook file, the repo gets BEFORE_FILE (a fixture's before.json) with the
harness's hook rows merged in by clientjson (matchers anchored, e.g. ^Bash$).
PASS means the client read the merged file and honoured the deny.
MERGECLI defaults to /tmp/hookwarden-mergecli; build it with
  go build -o /tmp/hookwarden-mergecli ./clientjson/testdata/mergecli

Measured 2026-11-29, all PASS: claude with claude-crlf-tabs-no-final-newline,
claude-one-line-groups-in-expanded-list, claude-bom; gemini with
gemini-comment-after-last-member, gemini-tabs-crlf-comments; codex with
codex-bash-exact-group, codex-crlf-4space.
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "shared", "e2e"))
import e2e  # noqa: E402

client, before = sys.argv[1], os.path.abspath(sys.argv[2])
mergecli = sys.argv[3] if len(sys.argv) > 3 else "/tmp/hookwarden-mergecli"
orig_write = e2e.write


def write(path, text):
    if "/repo/" in path and (path.endswith("settings.json") or path.endswith("hooks.json")):
        want = []
        for ev, groups in json.loads(text)["hooks"].items():
            for g in groups:
                m = g.get("matcher", "")
                for h in g["hooks"]:
                    want.append({"NativeEvent": ev, "Matcher": "^%s$" % m if m else "",
                                 "Command": h["command"], "Timeout": h["timeout"]})
        p = subprocess.run([mergecli], input=json.dumps({"client": client, "before_file": before, "want": want}).encode(),
                           capture_output=True)
        if p.returncode != 0:
            raise RuntimeError(p.stderr.decode())
        text = p.stdout.decode("utf-8")
    return orig_write(path, text)


e2e.write = write
res = e2e.run(client, "deny")
e2e.cleanup(res)
print(client, os.path.basename(os.path.dirname(before)), "PASS" if res["pass"] else "FAIL", res["fails"], res.get("seconds"))
sys.exit(0 if res["pass"] else 1)
