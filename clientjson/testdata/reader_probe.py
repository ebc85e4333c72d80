#!/usr/bin/env python3
"""Probe how a real client reads a hook file with one formatting quirk.

Usage: reader_probe.py CLIENT MODE   (CLIENT: claude|codex|gemini;
MODE: bom|trailing|comment|anchored)

Runs the e2e harness's "deny" scenario (../../../shared/e2e/e2e.py; needs
HOOKWARDEN_CLIENTS_DIR with the pinned clients) after rewriting the repo's
hook file: bom = leading U+FEFF, trailing = a trailing comma after the last
top-level member, comment = a leading // line, anchored = matcher Bash ->
^Bash$ (run_shell_command -> ^run_shell_command$). PASS means the client read
the file and honoured the hook's deny.

Measured 2026-11-29 (Claude Code 2.1.328, Codex CLI 0.169.0, Gemini CLI 0.61.0):
  claude bom PASS, anchored PASS, trailing FAIL (file ignored, command ran),
         comment FAIL (file ignored, command ran)
  codex  bom FAIL (hooks skipped, command ran), trailing FAIL (same), anchored PASS
  gemini bom FAIL (exit 52), trailing FAIL (exit 52), comment PASS, anchored PASS
These are why clientjson refuses a trailing comma everywhere, a comment in
strict files, and a BOM in Codex and Gemini files.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "shared", "e2e"))
import e2e  # noqa: E402

client, mode = sys.argv[1], sys.argv[2]
orig_write = e2e.write


def write(path, text):
    if "/repo/" in path and (path.endswith("settings.json") or path.endswith("hooks.json")):
        if mode == "bom":
            text = "\ufeff" + text
        elif mode == "anchored":
            text = text.replace('"Bash"', '"^Bash$"').replace('"run_shell_command"', '"^run_shell_command$"')
        elif mode == "trailing":
            t = text.rstrip()
            text = t[:-2] + ",\n}\n"
        elif mode == "comment":
            text = "// c\n" + text
    return orig_write(path, text)


e2e.write = write
res = e2e.run(client, "deny")
e2e.cleanup(res)
print(client, mode, "PASS" if res["pass"] else "FAIL", res["fails"], res.get("seconds"))
sys.exit(0 if res["pass"] else 1)
