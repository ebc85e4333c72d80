"""hookwarden skew-guard launcher (rendered; do not edit by hand).

The Python form of the launcher. On Linux and macOS the registrations call
.hookwarden/hook.sh (no interpreter start); this file serves the rows that
earlier versions wrote and Codex's Windows command (commandWindows):

    python3 -I -S hook.py CLIENT EVENT        (the client's hook payload on stdin)

It hands the call to the first installed hookwarden engine that serves the
(CLIENT, EVENT) pair, so a repository keeps working when the engine on a
machine is missing, older than the rows the repository carries, or newer.
Python 3.8+ standard library only; it runs the same under sh, cmd.exe and
PowerShell. The probe protocol is documented in hookwarden's skewguard package.

Candidates, in order: $HOOKWARDEN_BIN; the first hookwarden on PATH (only
engines the user installed: a binary inside the repository is never one). Each is asked which pairs it serves (`<bin> hook`
with no arguments prints one "client event" line per served pair); the answer
is cached per binary (path, size, modification time) in the user cache
directory, so the common case costs one engine process. The call, stdin
included, goes to the first candidate serving the pair; its stdout, stderr and
exit code pass through unchanged.

When no candidate serves the pair: pre-tool runs the standalone interceptor
(.hookwarden/interceptor.py, the built-in text rules) and says so on stderr;
other events are a stated skip in the client's dialect. Every probe and the
hand-off end before the client's timeout for the row; an engine that does not
answer in time is ended and the call is denied (pre-tool, pre-edit) or skipped
with the reason stated (other events). Malformed arguments exit 2.
"""
import json
import os
import re
import subprocess
import sys
import threading
import time

TABLE = json.loads(__HOOKWARDEN_TABLE__)

_NAME = re.compile(r"^[a-z-]+$")
_LISTING_LINE = re.compile(r"^[a-z-]+ [a-z-]+$")
CACHE_VERSION = 1
CACHE_MAX_ENTRIES = 16


def _go_json(obj):
    s = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
    for a, b in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"),
                 ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        s = s.replace(a, b)
    return s + "\n"


def _cap(text):
    b = text.encode("utf-8", "surrogatepass")
    if len(b) <= TABLE["max_reason_bytes"]:
        return text
    return b[: TABLE["max_reason_bytes"]].decode("utf-8", "ignore")


def clock_answer(client, event):
    """The answer holding the clock line for a row that carries it (the
    prompt rows, and post-tool where the client takes added context after a
    tool; the form is rendered from hookwarden's protocol/dialect into
    TABLE), else None. The line's fields come from one reading of the
    clock: UTC and the local zone, ISO 8601 with the offset."""
    row = TABLE["rows"].get(client + " " + event)
    if not row or not row.get("clock"):
        return None
    now = time.time()
    utc = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now)) + "+00:00"
    lt = time.localtime(now)
    off = lt.tm_gmtoff or 0
    sign = "-" if off < 0 else "+"
    off = abs(off) // 60
    offset = "%s%02d%02d" % (sign, off // 60, off % 60)
    local = time.strftime("%Y-%m-%dT%H:%M:%S", lt) + offset[:3] + ":" + offset[3:]
    zone = "".join(c for c in (lt.tm_zone or "") if c.isascii() and (c.isalnum() or c in "+-")) or offset
    out = row["clock"].replace("@UTC@", utc, 1).replace("@LOCAL@", local, 1).replace("@ZONE@", zone, 1)
    return out + "\n"


def answer(client, kind, reason, event=None):
    """(stdout, stderr, exit) of a deny or a stated skip in the client's
    dialect; a skip of a row that carries the clock line carries it."""
    reason = _cap(reason)
    if kind == "skip" and event:
        out = clock_answer(client, event)
        if out is not None:
            return out, TABLE["skip_prefix"] + reason + "\n", 0
    if client == "agy":
        if kind == "deny":
            return _go_json({"decision": "deny", "reason": reason}), "", 0
        return _go_json({"decision": "allow"}), TABLE["skip_prefix"] + reason + "\n", 0
    if kind == "deny":
        return "", reason + "\n", 1 if client == "lefthook" else 2
    return "", TABLE["skip_prefix"] + reason + "\n", 0


def emit(out, err, code):
    if isinstance(out, str):
        out = out.encode("utf-8", "surrogatepass")
    if isinstance(err, str):
        err = err.encode("utf-8", "surrogatepass")
    try:
        sys.stdout.buffer.write(out)
        sys.stdout.flush()
    except OSError:
        pass
    try:
        sys.stderr.buffer.write(err)
        sys.stderr.flush()
    except OSError:
        pass
    return code


def fail_closed(client, event, why):
    """The answer when no verdict could be reached: deny for events that gate
    an action (pre-tool, pre-skill-shell, pre-edit, pre-dispatch,
    pre-handback), a stated skip otherwise."""
    if event in ("pre-tool", "pre-skill-shell", "pre-edit", "pre-dispatch", "pre-handback"):
        return answer(client, "deny", "[BLOCKED BY hookwarden:launcher] %s; the call is refused because it was not judged" % why)
    return answer(client, "skip", "launcher: %s; the %s call was not judged" % (why, event), event)


def read_stdin(deadline):
    """Read stdin to end of file (at most max_input_bytes + 1 bytes), or None
    when it is not closed before the deadline."""
    box = {}

    def run():
        try:
            box["data"] = sys.stdin.buffer.read(TABLE["max_input_bytes"] + 1)
        except (OSError, ValueError, AttributeError):
            box["data"] = b""

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(max(0.0, deadline - time.monotonic()))
    return box.get("data")


def repo_root():
    """The nearest directory at or above this file's directory holding a
    .hookwarden directory (the governed repository's root), or None."""
    d = os.path.dirname(os.path.abspath(__file__))
    for _ in range(16):
        if os.path.isdir(os.path.join(d, ".hookwarden")):
            return d
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent
    return None


def candidates(root):
    """Engine candidates in order, as (label, absolute path), duplicates dropped."""
    out = []
    env = os.environ.get("HOOKWARDEN_BIN", "")
    if env:
        out.append(("HOOKWARDEN_BIN", os.path.abspath(env)))
    import shutil
    p = shutil.which("hookwarden")
    if p and os.path.isabs(p):
        real = os.path.normcase(os.path.realpath(p))
        inside = root and (real + os.sep).startswith(os.path.normcase(os.path.realpath(root)) + os.sep)
        if not inside:
            out.append(("hookwarden on PATH", os.path.abspath(p)))
    seen, uniq = set(), []
    for label, p in out:
        key = os.path.normcase(os.path.realpath(p))
        if key not in seen:
            seen.add(key)
            uniq.append((label, p))
    return uniq


def cache_path():
    """launcher-cache.json in the user cache directory: %LOCALAPPDATA% on
    Windows, ~/Library/Caches on macOS, else $XDG_CACHE_HOME or ~/.cache."""
    if os.name == "nt":
        base = os.environ.get("LOCALAPPDATA") or os.path.join(os.path.expanduser("~"), "AppData", "Local")
    elif sys.platform == "darwin":
        base = os.path.join(os.path.expanduser("~"), "Library", "Caches")
    else:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "hookwarden", "launcher-cache.json")


def load_cache(path):
    """The cache's entries; a missing, unreadable or corrupt cache is empty."""
    try:
        with open(path, "rb") as f:
            doc = json.loads(f.read(1 << 20).decode("utf-8"))
        if isinstance(doc, dict) and doc.get("version") == CACHE_VERSION and isinstance(doc.get("entries"), dict):
            return doc["entries"]
    except (OSError, ValueError):
        pass
    return {}


def save_cache(path, entries):
    """Write the cache atomically (temporary file + rename in the same
    directory); failures are ignored: the cache only saves a probe."""
    try:
        d = os.path.dirname(path)
        os.makedirs(d, exist_ok=True)
        if len(entries) > CACHE_MAX_ENTRIES:
            keep = sorted(entries.items(), key=lambda kv: kv[1].get("t", 0), reverse=True)[:CACHE_MAX_ENTRIES]
            entries = dict(keep)
        import tempfile
        fd, tmp = tempfile.mkstemp(prefix=".launcher-cache.", dir=d)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(json.dumps({"version": CACHE_VERSION, "entries": entries}, sort_keys=True).encode("utf-8"))
            os.replace(tmp, path)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
    except (OSError, ValueError):
        pass


def probe(path, deadline):
    """Ask the engine at path which pairs it serves: `<path> hook`, stdin
    empty, within min(probe_ms, time left). Returns (pairs, cacheable): pairs
    is the served set, or None when the binary gave no valid listing (exit not
    0, or a line that is not "client event"); cacheable is False when the
    probe could not finish (timeout, start failure), which is never cached."""
    left = min(TABLE["probe_ms"] / 1000.0, deadline - time.monotonic())
    if left <= 0:
        return None, False
    try:
        p = subprocess.run([path, "hook"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, timeout=left)
    except subprocess.TimeoutExpired:
        return None, False
    except OSError:
        return None, False
    if p.returncode != 0:
        return None, True
    try:
        text = p.stdout.decode("utf-8")
    except UnicodeDecodeError:
        return None, True
    pairs = []
    for line in text.replace("\r\n", "\n").split("\n"):
        if not line:
            continue
        if not _LISTING_LINE.match(line):
            return None, True
        pairs.append(line)
    return pairs, True


def served(path, pair, deadline, cache, dirty):
    """The pairs the engine at path serves (a list) or None, from the cache
    when its key (real path, size, mtime in ns) still matches and it lists
    pair. A cached answer without pair is probed again: the cache is a file
    the user (and so the agent) can write, and a forged "not served" must not
    turn the engine's verdict into the interceptor's or a stated skip."""
    try:
        real = os.path.realpath(path)
        st = os.stat(real)
    except OSError:
        return None
    key = os.path.normcase(real)
    e = cache.get(key)
    if isinstance(e, dict) and e.get("size") == st.st_size and e.get("mtime_ns") == st.st_mtime_ns:
        pairs = e.get("pairs")
        if isinstance(pairs, list) and pair in pairs and all(isinstance(x, str) for x in pairs):
            return pairs
    pairs, cacheable = probe(path, deadline)
    if cacheable:
        cache[key] = {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "pairs": pairs, "t": time.time()}
        dirty.append(True)
    return pairs


def hand_off(path, client, event, data, deadline):
    """Run `<path> hook CLIENT EVENT` with data on stdin and return its
    (stdout, stderr, exit) unchanged, or a fail-closed answer when it does not
    end before the deadline or dies of a signal."""
    left = deadline - time.monotonic()
    if left <= 0:
        return fail_closed(client, event, "no time was left to run the hookwarden engine")
    kw = {}
    if os.name == "nt":
        kw["creationflags"] = getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)
    else:
        kw["start_new_session"] = True
    try:
        p = subprocess.Popen([path, "hook", client, event], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)
    except OSError as e:
        return fail_closed(client, event, "the hookwarden engine could not be started (%s)" % e.strerror)
    try:
        out, err = p.communicate(input=data, timeout=left)
    except subprocess.TimeoutExpired:
        _kill(p)
        return fail_closed(client, event, "the hookwarden engine did not answer within %d ms" % TABLE["rows"][client + " " + event]["deadline_ms"])
    if p.returncode < 0:
        return fail_closed(client, event, "the hookwarden engine ended on signal %d" % -p.returncode)
    return out, err, p.returncode


def _kill(p):
    try:
        if os.name != "nt":
            import signal
            os.killpg(p.pid, signal.SIGKILL)
        else:
            p.kill()
    except OSError:
        try:
            p.kill()
        except OSError:
            pass
    try:
        p.communicate(timeout=1)
    except (subprocess.TimeoutExpired, OSError, ValueError):
        pass


def run_interceptor(root, client, data, deadline):
    """Judge a pre-tool call with the standalone interceptor, run as a child
    process of this Python (so a rule that backtracks too long cannot hold the
    call past the deadline); a missing interceptor, a failure or the deadline
    denies."""
    path = os.path.join(root, ".hookwarden", "interceptor.py") if root else ""
    if not path or not os.path.isfile(path):
        return answer(client, "deny", "[BLOCKED BY hookwarden:launcher] no installed hookwarden engine serves this call and the standalone interceptor .hookwarden/interceptor.py is missing; the call is refused because it was not judged")
    left = deadline - time.monotonic()
    if left <= 0:
        return fail_closed(client, "pre-tool", "no time was left to run the standalone interceptor")
    kw = {"start_new_session": True} if os.name != "nt" else {}
    try:
        p = subprocess.Popen([sys.executable, "-I", "-S", path, client], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)
    except OSError as e:
        return fail_closed(client, "pre-tool", "the standalone interceptor could not be started (%s)" % e.strerror)
    try:
        out, err = p.communicate(input=data, timeout=left)
    except subprocess.TimeoutExpired:
        _kill(p)
        return fail_closed(client, "pre-tool", "the standalone interceptor did not answer within %d ms" % TABLE["rows"][client + " pre-tool"]["deadline_ms"])
    if p.returncode not in {"lefthook": (0, 1), "agy": (0,)}.get(client, (0, 2)):
        return fail_closed(client, "pre-tool", "the standalone interceptor failed (exit %d)" % p.returncode)
    return out, err, p.returncode


def usage(argv):
    err = "hookwarden: launcher: usage: hook.py CLIENT EVENT (one of: %s)\n" % ", ".join(sorted(TABLE["rows"]))
    out = ""
    if len(argv) > 1 and argv[1] == "agy":
        out = _go_json({"decision": "deny", "reason": "[BLOCKED BY hookwarden:invalid-input] malformed launcher arguments"})
    return out, err, 2


def main(argv):
    start = time.monotonic()
    if len(argv) != 3 or not _NAME.match(argv[1]) or not _NAME.match(argv[2]) or argv[1] + " " + argv[2] not in TABLE["rows"]:
        return emit(*usage(argv))
    client, event = argv[1], argv[2]
    pair = client + " " + event
    deadline = start + TABLE["rows"][pair]["deadline_ms"] / 1000.0
    # Stdin must end within the engine's own budget for the event, as the
    # engine requires; the rest of the deadline is for the engine's answer.
    data = read_stdin(min(deadline, start + TABLE["rows"][pair]["budget_ms"] / 1000.0))
    if data is None:
        return emit(*fail_closed(client, event, "stdin was not closed in time"))
    root = repo_root()
    cpath = cache_path()
    cache = load_cache(cpath)
    dirty = []
    tried = []
    chosen = None
    for label, path in candidates(root):
        pairs = served(path, pair, deadline, cache, dirty)
        if pairs is not None and pair in pairs:
            chosen = path
            break
        tried.append(label)
    if dirty:
        save_cache(cpath, cache)
    if chosen:
        return emit(*hand_off(chosen, client, event, data, deadline))
    why = "no installed hookwarden engine serves %s (%s)" % (pair, "tried: " + ", ".join(tried) if tried else "none installed")
    if event == "pre-tool":
        out, err, code = run_interceptor(root, client, data, deadline)
        note = "hookwarden: launcher: %s; the standalone interceptor judged this call with the built-in rules only\n" % why
        if isinstance(err, str):
            err = err.encode("utf-8", "surrogatepass")
        return emit(out, err + note.encode("utf-8"), code)
    if event == "pre-skill-shell":
        return emit(*fail_closed(client, event, "%s; install or upgrade hookwarden" % why))
    if event == "pre-edit" and names_guard(data, root):
        return emit(*answer(client, "deny", "[BLOCKED BY hookwarden:launcher] %s, and this edit may touch a file of the guard (.hookwarden.yaml, .hookwarden/, a client's hook settings, a lefthook config), which only an engine can judge; install or upgrade hookwarden; the call is refused because it was not judged" % why))
    return emit(*answer(client, "skip", "launcher: %s; install or upgrade hookwarden" % why, event))


def names_guard(data, root):
    """True when the payload (bytes) may name one of the guard's own files:
    once the client's cwd and transcript_path (which name where the
    repository lives, not what the edit touches) are dropped and the
    repository's own path is cut out, its text (JSON escapes decoded) holds
    one of the words every guard path contains (TABLE guard_words, from
    hookwarden's policy.GuardFileWords; compared case-insensitively); or it
    is over the input bound or not a JSON object."""
    if len(data) > TABLE["max_input_bytes"]:
        return True
    try:
        obj = json.loads(data)
    except ValueError:
        return True
    if not isinstance(obj, dict):
        return True
    obj.pop("cwd", None)
    obj.pop("transcript_path", None)
    text = json.dumps(obj, ensure_ascii=False)
    for cut in (root, os.getcwd()):
        if cut:
            text = text.replace(cut, "")
    low = text.replace("\\\\", "/").replace("\\", "/").lower()
    return any(w in low for w in TABLE["guard_words"])


def run(argv):
    """main, with a deny (or stated skip) in the client's dialect for any
    unexpected failure: a traceback and exit 1 would let the call through."""
    try:
        return main(argv)
    except Exception as e:  # the launcher must answer, whatever happened
        if len(argv) == 3 and argv[1] + " " + argv[2] in TABLE["rows"]:
            return emit(*fail_closed(argv[1], argv[2], "the launcher failed internally (%s)" % type(e).__name__))
        return emit(*usage(argv))


if __name__ == "__main__":
    # os._exit, not sys.exit: a stdin reader thread still blocked in read()
    # makes interpreter shutdown abort (exit 134, "could not acquire lock for
    # <stdin>"), an exit code the clients ignore.
    os._exit(run(sys.argv))
