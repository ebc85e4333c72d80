#!/bin/sh
# measure_managed.sh CASE_DIR RUN_DIR: run the e2e harness's Claude Code "deny"
# scenario (../shared/e2e/e2e.py: a project .claude/settings.json PreToolUse
# hook that records its payload and denies) with CASE_DIR/etc laid over /etc
# in a private mount namespace (unshare -m + overlayfs, root only), so
# /etc/claude-code/managed-settings.json and managed-settings.d/ exist for this
# run alone and the machine's /etc is untouched; CASE_DIR/home, when present,
# is copied to RUN_DIR/home (CLAUDE_CONFIG_DIR). Prints the harness's JSON
# report. A managed hook of a case records itself by appending to a file
# named in its command. Recorded for 2.1.328/managed/ on 2026-12-02.
set -e
C=$(realpath "$1"); R=$(realpath -m "$2"); W=$(mktemp -d)
rm -rf "$R"; mkdir -p "$R"
[ -d "$C/home" ] && cp -a "$C/home" "$R/home"
unshare -m --propagation private sh -c "mount -t overlay overlay -o lowerdir=/etc,upperdir=$C/etc,workdir=$W /etc && cd ${E2E_DIR:-/work/shared/e2e} && python3 e2e.py run claude -s deny --keep --workdir $R --json"
