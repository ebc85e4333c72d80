// Package skewguard is the skew-guard launcher: how the launcher a governed
// repository carries (.hookwarden/hook.sh, and its Python form
// .hookwarden/hook.py) finds an installed hookwarden engine that serves a
// registration row, so a repository keeps working when the engine on a
// machine is missing, older or newer than the rows the repository carries.
//
// It holds both sides of the probe protocol below and their tests: the
// launcher's sources (hook.sh and hook.py beside this file, ShSource and
// PySource; templates fills in their row table and writes them into a
// repository), the engine's answer to a probe (ProbeAnswer, printed by
// `hookwarden hook` with no arguments), the protocol's constants
// (ListingEnv, BoundedMarker, ProbeMillis, DeadlineMillis), and how each
// client spawns the registered command that calls the launcher (Spawn; doctor
// runs rows with it). Its tests run the rendered launcher under dash, bash
// and busybox sh against the real engine, fake old, hanging and missing
// engines, and the real clients.
//
// # Probe protocol
//
// The launcher is called as `/bin/sh hook.sh CLIENT EVENT` (Linux and macOS;
// `python3 hook.py CLIENT EVENT` for rows of earlier versions) with the
// client's hook payload on stdin. CLIENT and EVENT
// must match ^[a-z-]+$ and name a row of the registration table the launcher
// was rendered with; otherwise the launcher exits 2 (usage on stderr; for agy
// also a deny JSON on stdout, since agy reads only stdout).
//
//  1. Candidates, in order: the path in HOOKWARDEN_BIN (when set and
//     non-empty); the first hookwarden on PATH. Only engines the user
//     installed are candidates: a binary inside the repository (the nearest
//     directory at or above the launcher holding a .hookwarden directory) is
//     never one, and the sh launcher passes over relative PATH entries and
//     entries inside the repository. Candidates that are the same file are
//     tried once.
//  2. Listing: a candidate is asked `<bin> hook` with no arguments and empty
//     stdin. A serving engine exits 0 and prints one "client event" line per
//     served pair (registration.Table.Listing). Any other exit code, or any
//     line that is not two ^[a-z-]+$ words separated by one space, means the
//     candidate serves nothing (an engine too old to list). The sh launcher
//     sets ListingEnv to ListingLauncher for the probe; an engine that
//     answers every call within the row's budget by itself then adds the
//     line BoundedMarker (ProbeAnswer).
//  3. Cache: only positive answers are used; a candidate is never skipped
//     because of the cache, since the cache is a file the user, and so the
//     governed agent, can write, and a forged "not served" would hand the call
//     to the interceptor or a stated skip. The sh launcher keeps one file per
//     candidate kind and pair, launcher-v2-{bin,path}-CLIENT-EVENT, holding
//     the candidate's path and "bounded" or an empty line; it is used while
//     it names the same path and is newer than the binary (test -nt), read
//     with the read builtin and never sourced. The Python launcher keeps
//     launcher-cache.json keyed by real path, size and modification time. Both
//     live in a "hookwarden" directory under the user cache directory
//     ($XDG_CACHE_HOME or ~/.cache; ~/Library/Caches on macOS; %LOCALAPPDATA%
//     on Windows). A probe that timed out or could not start is never cached.
//     With a warm cache a call costs one engine process.
//  4. Hand-off: the call goes to the first candidate whose listing holds the
//     pair: `<bin> hook CLIENT EVENT` with the launcher's stdin (the sh
//     launcher passes its own stdin on; the Python launcher reads at most
//     1 MiB + 1 bytes and writes them), the launcher's working directory. Its
//     stdout, stderr and exit code pass through unchanged.
//  5. No candidate serves the pair: for pre-tool the launcher runs the
//     standalone interceptor (.hookwarden/interceptor.py, python3 -I -S) as a
//     child process and appends one stderr line saying so (without python3 on
//     PATH the sh launcher denies and names what to install); for other
//     events it answers a stated skip in the client's dialect ("hookwarden:
//     skip: launcher: no installed hookwarden engine serves …" on stderr,
//     exit 0; agy also {"decision":"allow"} on stdout, Cline's sh launcher
//     {"cancel":false}, the engine's Cline skip, protocol/dialect cline.go).
//  6. Deadlines: every step ends before the row's client timeout. The
//     launcher's deadline is DeadlineMillis(row) after its start; each
//     listing probe gets at most ProbeMillis (2 s) of it. A bounded engine
//     runs as a plain child (no watchdog: no process but the engine on the common
//     path); an engine that did not declare itself bounded, and the
//     interceptor, run under a watchdog (a background `sleep`) with their
//     output in temporary files, so a process they leave behind holds none of
//     the client's pipes. One that does not answer by the deadline, or dies
//     of a signal, is ended and the call gets a fail-closed answer: deny for
//     pre-tool and pre-edit, a stated skip for other events.
package skewguard

// ListingEnv is the environment variable the sh launcher sets to
// ListingLauncher when it asks a candidate for its listing.
const ListingEnv = "HOOKWARDEN_LISTING"

// ListingLauncher is ListingEnv's value in the sh launcher's probe.
const ListingLauncher = "launcher"

// BoundedMarker is the line an engine appends to its listing, when asked
// with ListingEnv, to say it answers every call within the row's budget by
// itself, so the launcher needs no watchdog for it. It never appears in the
// plain listing (a line of the plain listing is two words).
const BoundedMarker = "@bounded"
