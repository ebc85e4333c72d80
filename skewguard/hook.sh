# hookwarden skew-guard launcher (rendered; do not edit by hand).
#
# Every hook registration hookwarden writes on Linux and macOS reads this
# file into the shell the client already starts (templates.RegistrationCommand):
#
#     hw_self=.hookwarden/hook.sh; set -- CLIENT EVENT; command . "$hw_self"; <fail closed>
#
# or runs it as a program (the opencode plugin, lefthook, rows written
# before the sourced form):
#
#     /bin/sh .hookwarden/hook.sh CLIENT EVENT       (the client's payload on stdin)
#
# It hands the call to the first installed hookwarden engine that serves the
# (CLIENT, EVENT) pair. POSIX sh only: it runs under dash, bash and busybox sh
# and, on the common path (an engine serving the pair, its listing cached),
# starts no process but the engine: every step before it is a shell builtin.
# The probe protocol is documented in hookwarden's skewguard package.
#
# Candidates, in order: $HOOKWARDEN_BIN; the first hookwarden on PATH (a
# relative PATH entry and one inside this repository are passed over: only an
# engine the user installed is trusted). Each is asked which pairs it serves
# (`<bin> hook`, stdin empty); a positive answer is cached per candidate and
# pair and trusted only while it names the same path and is newer than the
# binary; a candidate is never skipped because of the cache. The call goes to
# the first candidate serving the pair; stdin, stdout, stderr and the exit
# code pass through unchanged. An engine that declared itself bounded (it
# answers within the row's budget by itself) runs as a plain child (for codex
# and gemini the shell execs it: see the common path below); any other
# engine runs under a watchdog that ends it at the row's deadline.
#
# No candidate serves the pair: pre-tool runs the standalone interceptor
# (.hookwarden/interceptor.py, python3) under the watchdog and says so on
# stderr; without python3 it denies and says what to install. pre-skill-shell
# denies, and so does a pre-edit whose payload may name a guard file. Other
# events are a stated skip in the client's dialect; the prompt rows (and post-tool
# where the client takes added context) carry the clock line with it, from
# date(1), so the model gets the time with or without an engine. An engine or interceptor that
# does not answer by the deadline, or dies of a signal (except an exec'd
# engine), gets a fail-closed answer: deny for pre-tool, pre-edit, pre-dispatch
# and pre-handback (they guard an action), a stated
# skip otherwise. Malformed arguments exit 2. Every variable is hw_-prefixed
# and set before it is read, so a client environment holding such names
# changes nothing.

set -f
hw_first_bin=
hw_signalled=
hw_rows='__HOOKWARDEN_ROWS__'
hw_skip='__HOOKWARDEN_SKIP_PREFIX__'
hw_probe_ms=__HOOKWARDEN_PROBE_MS__
hw_max_input=__HOOKWARDEN_MAX_INPUT__
hw_tmp=

hw_usage() {
	printf '%s\n' 'hookwarden: launcher: usage: hook.sh CLIENT EVENT (a row this launcher was rendered with)' >&2
	if [ "${1-}" = agy ]; then
		printf '%s\n' '{"decision":"deny","reason":"[BLOCKED BY hookwarden:invalid-input] malformed launcher arguments"}'
	fi
	exit 2
}

# hw_exit CODE: remove the temporary files, if any, and exit with CODE.
hw_exit() {
	if [ -n "$hw_tmp" ]; then rm -f "$hw_out" "$hw_err" "$hw_tmp.probe"; fi
	exit "$1"
}

[ $# -eq 2 ] || hw_usage "${1-}"
case $1 in '' | *[!a-z-]*) hw_usage "$1" ;; esac
case $2 in '' | *[!a-z-]*) hw_usage "$1" ;; esac
case $hw_rows in *";$1/$2="*) ;; *) hw_usage "$1" ;; esac
hw_client=$1
hw_event=$2
hw_t=${hw_rows#*";$1/$2="}
hw_deadline_ms=${hw_t%%;*}

# This file: $0 when run as a program, else hw_self, which the sourced row
# sets (templates.RegistrationCommand; $0 is then the client's shell). The repository:
# the nearest directory at or above this file's directory holding a
# .hookwarden directory.
case $0 in
*hook.sh) hw_self=$0 ;;
*) hw_self=${hw_self-} ;;
esac
case $hw_self in */*) hw_d=${hw_self%/*} ;; *) hw_d=. ;; esac
case $hw_d in /*) ;; *) hw_d=$PWD/$hw_d ;; esac
hw_root=
hw_n=0
while [ "$hw_n" -lt 16 ] && [ -n "$hw_d" ]; do
	if [ -d "$hw_d/.hookwarden" ]; then
		hw_root=$hw_d
		break
	fi
	hw_d=${hw_d%/*}
	hw_n=$((hw_n + 1))
done

# hw_which NAME: hw_found is the first executable NAME in an absolute PATH
# entry outside the repository, or empty.
hw_which() {
	hw_found=
	hw_ifs=$IFS
	IFS=:
	for hw_p in ${PATH-}; do
		case $hw_p in /*) ;; *) continue ;; esac
		if [ -n "$hw_root" ]; then
			case $hw_p/ in "$hw_root"/*) continue ;; esac
		fi
		if [ -f "$hw_p/$1" ] && [ -x "$hw_p/$1" ]; then
			hw_found=$hw_p/$1
			break
		fi
	done
	IFS=$hw_ifs
}

if [ -n "${XDG_CACHE_HOME-}" ]; then
	hw_cache=$XDG_CACHE_HOME/hookwarden
elif [ -d "${HOME-}/Library/Caches" ]; then
	hw_cache=$HOME/Library/Caches/hookwarden
else
	hw_cache=${HOME-}/.cache/hookwarden
fi

# hw_cached LABEL BIN: true when the cache holds a positive answer for the
# pair from BIN (the same path, written no earlier than the binary's
# modification);
# hw_bounded is then "bounded" or empty.
hw_cached() {
	hw_entry=$hw_cache/launcher-v2-$1-$hw_client-$hw_event
	hw_bounded=
	# Not "-nt": busybox compares whole seconds.
	[ -f "$hw_entry" ] && [ ! "$2" -nt "$hw_entry" ] || return 1
	{ IFS= read -r hw_l1 && IFS= read -r hw_l2; } <"$hw_entry" 2>/dev/null || return 1
	[ "$hw_l1" = "$2" ] || return 1
	if [ "$hw_l2" = bounded ]; then hw_bounded=bounded; fi
	return 0
}

# A client that started the launcher with stdin closed: the engine reads an
# empty payload (a deny for pre-tool).
if ! { true 4<&0; } 2>/dev/null; then exec 0</dev/null; fi

# The common path: the first candidate's cached listing holds the pair and
# says the engine is bounded, so the engine runs as a plain child and no
# other process starts. Everything after this block is read only when it is
# not taken. For codex and gemini, whose rows run in bash, the shell
# becomes the engine (exec): bash's fork and wait cost about as much as the
# rest of the row (skewguard's BenchmarkRegisteredRow), and the answer a
# waiting shell adds, a deny when the engine dies of a signal, guards only
# against a kill aimed at the engine alone (the engine reports its own
# crashes with exit 2; a process that can signal it can as well stop it or
# kill this shell). For the other clients a signal death is still a deny.
if [ -n "${HOOKWARDEN_BIN-}" ]; then
	case $HOOKWARDEN_BIN in /*) hw_bin=$HOOKWARDEN_BIN ;; *) hw_bin=$PWD/$HOOKWARDEN_BIN ;; esac
	hw_label=bin
else
	hw_which hookwarden
	hw_bin=$hw_found
	hw_label=path
fi
if [ -n "$hw_bin" ] && hw_cached "$hw_label" "$hw_bin" && [ "$hw_bounded" = bounded ]; then
	case $hw_client in codex | gemini) exec "$hw_bin" hook "$hw_client" "$hw_event" ;; esac
	"$hw_bin" hook "$hw_client" "$hw_event"
	hw_rc=$?
	[ "$hw_rc" -gt 128 ] || exit "$hw_rc"
	hw_signalled=$((hw_rc - 128))
fi

# The answers the launcher gives itself. They are defined after the common
# path so that a shell taking it never parses them (in bash that parse was
# about 0.7 ms of the row, skewguard's BenchmarkRegisteredRow launcher-ms).

# hw_clock: for a row that carries the clock line (the prompt rows, and the
# post-tool rows of clients that take added context after a tool; the list
# and each answer's form are rendered from hookwarden's protocol/dialect and
# protocol/clock), print the answer holding the line on stdout; false for any
# other row or when date fails. The times come from date(1): UTC, then the
# local zone (two calls; a second may pass between them). It runs only when
# no engine answers the row.
hw_clock() {
	case $hw_client/$hw_event in
__HOOKWARDEN_CLOCK_ROWS__
	*) return 1 ;;
	esac
	hw_utc=$(TZ=UTC0 date '+%Y-%m-%dT%H:%M:%S' 2>/dev/null) || return 1
	hw_loc=$(date '+%Y-%m-%dT%H:%M:%S%z %Z' 2>/dev/null) || return 1
	hw_zone=${hw_loc#* }
	hw_loc=${hw_loc%% *}
	hw_off=${hw_loc#"${hw_loc%?????}"}
	case $hw_utc/$hw_off in
	[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]/[+-][0-9][0-9][0-9][0-9]) ;;
	*) return 1 ;;
	esac
	hw_loc=${hw_loc%?????}${hw_off%??}:${hw_off#???}
	case $hw_zone in '' | *[!A-Za-z0-9+-]*) hw_zone=$hw_off ;; esac
	hw_tpl=${hw_tpl%%@UTC@*}$hw_utc+00:00${hw_tpl#*@UTC@}
	hw_tpl=${hw_tpl%%@LOCAL@*}$hw_loc${hw_tpl#*@LOCAL@}
	hw_tpl=${hw_tpl%%@ZONE@*}$hw_zone${hw_tpl#*@ZONE@}
	printf '%s\n' "$hw_tpl"
}

# hw_answer KIND REASON: a deny or a stated skip in the client's dialect, then
# exit. A skip of a row that carries the clock line carries it (hw_clock).
hw_answer() {
	if [ "$1" = skip ] && hw_clock; then
		printf '%s%s\n' "$hw_skip" "$2" >&2
		hw_exit 0
	fi
	# Cline reads only stdout JSON (protocol/dialect cline.go): a stated skip
	# is {"cancel":false} with the skip line; a deny stays on stderr with
	# exit 2, which the rendered .clinerules/hooks/PreToolUse turns into its
	# own one-line cancel (no reason text is put into JSON here).
	if [ "$hw_client" = cline ] && [ "$1" = skip ]; then
		printf '%s\n' '{"cancel":false}'
		printf '%s%s\n' "$hw_skip" "$2" >&2
		hw_exit 0
	fi
	if [ "$hw_client" = agy ]; then
		if [ "$1" = deny ]; then
			printf '{"decision":"deny","reason":"%s"}\n' "$2"
		else
			printf '%s\n' '{"decision":"allow"}'
			printf '%s%s\n' "$hw_skip" "$2" >&2
		fi
		hw_exit 0
	fi
	if [ "$1" = deny ]; then
		printf '%s\n' "$2" >&2
		if [ "$hw_client" = lefthook ]; then hw_exit 1; fi
		hw_exit 2
	fi
	printf '%s%s\n' "$hw_skip" "$2" >&2
	hw_exit 0
}

# hw_fail_closed WHY: deny for events that gate an action, a stated skip otherwise.
hw_fail_closed() {
	case $hw_event in
	pre-tool | pre-skill-shell | pre-edit | pre-dispatch | pre-handback) hw_answer deny "[BLOCKED BY hookwarden:launcher] $1; the call is refused because it was not judged" ;;
	esac
	hw_answer skip "launcher: $1; the $hw_event call was not judged"
}

# The common path's engine died of a signal: a deny for a gate (its
# functions above are read only now).
if [ -n "$hw_signalled" ]; then
	hw_fail_closed "the hookwarden engine ended on signal $hw_signalled"
fi

hw_probes=0

# hw_tmpfiles: hw_out, hw_err and the probe's file, new files in the cache
# directory (or fail closed). They are named by the launcher's PID, so one
# already there is a leftover of a launcher that was killed: it is removed.
# hw_exit removes them; there is no EXIT trap, because bash also runs an
# inherited one in a subshell killed before it could reset it (the
# watchdog).
hw_tmpfiles() {
	[ -n "$hw_tmp" ] && return 0
	mkdir -p "$hw_cache" 2>/dev/null
	hw_tmp=$hw_cache/.launcher.$$
	hw_out=$hw_tmp.out
	hw_err=$hw_tmp.err
	rm -f "$hw_out" "$hw_err" "$hw_tmp.probe" 2>/dev/null
	if ! { set -C && : >"$hw_out" && : >"$hw_err" && : >"$hw_tmp.probe"; } 2>/dev/null; then
		set +C
		hw_tmp=
		hw_fail_closed "the launcher could not create its temporary files in the user cache directory"
	fi
	set +C
}

# hw_run MS CMD...: run CMD with the launcher's stdin, its stdout and stderr
# into hw_out and hw_err, ended (SIGKILL) after MS milliseconds by a watchdog
# subshell. Sets hw_rc and hw_timed_out (yes or empty). sh has no clock, so
# a caller passes the deadline less what earlier steps may have used (each
# probe counts its whole cap).
hw_run() {
	hw_ms=$1
	shift
	[ "$hw_ms" -gt 0 ] || hw_ms=1
	hw_f=$((hw_ms % 1000))
	case ${#hw_f} in 1) hw_f=00$hw_f ;; 2) hw_f=0$hw_f ;; esac
	"$@" <&3 3<&- >"$hw_out" 2>"$hw_err" &
	hw_pid=$!
	(
		trap 'kill "$hw_s" 2>/dev/null; exit 0' TERM
		sleep "$((hw_ms / 1000)).$hw_f" &
		hw_s=$!
		wait "$hw_s"
		trap '' TERM
		kill -KILL "$hw_pid" 2>/dev/null
		exit 3
	) </dev/null >/dev/null 2>&1 3<&- &
	hw_dog=$!
	# wait's stderr is the shell's job notice ("Killed"), not the child's.
	wait "$hw_pid" 2>/dev/null
	hw_rc=$?
	kill "$hw_dog" 2>/dev/null
	wait "$hw_dog" 2>/dev/null
	if [ $? -eq 3 ]; then hw_timed_out=yes; else hw_timed_out=; fi
}

# hw_emit: copy hw_out and hw_err to stdout and stderr.
hw_emit() {
	cat "$hw_out" 2>/dev/null
	cat "$hw_err" >&2 2>/dev/null
}

# hw_probe LABEL BIN: ask BIN for its listing (at most hw_probe_ms); cache a
# positive answer for every pair it lists; true when it lists this pair.
hw_probe() {
	hw_tmpfiles
	hw_probes=$((hw_probes + 1))
	hw_keep_out=$hw_out
	hw_out=$hw_tmp.probe
	export HOOKWARDEN_LISTING=launcher
	hw_run "$hw_probe_ms" "$2" hook 3</dev/null
	unset HOOKWARDEN_LISTING
	hw_out=$hw_keep_out
	[ "$hw_rc" -eq 0 ] && [ -z "$hw_timed_out" ] || return 1
	hw_pairs=
	hw_b=
	while IFS= read -r hw_l || [ -n "$hw_l" ]; do
		case $hw_l in
		'') ;;
		@bounded) hw_b=bounded ;;
		*[!a-z' '-]* | ' '* | *' ' | *' '*' '*) return 1 ;;
		*' '*) hw_pairs="$hw_pairs ${hw_l%% *}/${hw_l#* }" ;;
		*) return 1 ;;
		esac
	done <"$hw_tmp.probe"
	hw_serves=1
	for hw_pair in $hw_pairs; do
		printf '%s\n%s\n' "$2" "$hw_b" >"$hw_cache/launcher-v2-$1-${hw_pair%/*}-${hw_pair#*/}" 2>/dev/null
		if [ "$hw_pair" = "$hw_client/$hw_event" ]; then hw_serves=0; fi
	done
	hw_bounded=$hw_b
	return "$hw_serves"
}

# fd 3 is the client's stdin for the children of the slow path.
exec 3<&0

# hw_hand_off BIN: the call goes to BIN; its answer passes through.
hw_hand_off() {
	if [ "$hw_bounded" = bounded ]; then
		"$1" hook "$hw_client" "$hw_event" <&3 3<&-
		hw_rc=$?
		if [ "$hw_rc" -gt 128 ]; then
			hw_fail_closed "the hookwarden engine ended on signal $((hw_rc - 128))"
		fi
		hw_exit "$hw_rc"
	fi
	hw_tmpfiles
	hw_run "$((hw_deadline_ms - hw_probes * hw_probe_ms))" "$1" hook "$hw_client" "$hw_event"
	if [ -n "$hw_timed_out" ]; then
		hw_fail_closed "the hookwarden engine did not answer within $hw_ms ms"
	fi
	if [ "$hw_rc" -gt 128 ]; then
		hw_fail_closed "the hookwarden engine ended on signal $((hw_rc - 128))"
	fi
	hw_emit
	hw_exit "$hw_rc"
}

hw_tried=
for hw_label in bin path; do
	if [ "$hw_label" = bin ]; then
		[ -n "${HOOKWARDEN_BIN-}" ] || continue
		case $HOOKWARDEN_BIN in /*) hw_bin=$HOOKWARDEN_BIN ;; *) hw_bin=$PWD/$HOOKWARDEN_BIN ;; esac
		hw_name=HOOKWARDEN_BIN
	else
		hw_which hookwarden
		[ -n "$hw_found" ] || continue
		hw_bin=$hw_found
		hw_name="hookwarden on PATH"
		if [ -n "${hw_first_bin-}" ] && [ "$hw_bin" -ef "$hw_first_bin" ]; then continue; fi
	fi
	hw_first_bin=$hw_bin
	if [ -f "$hw_bin" ] && [ -x "$hw_bin" ]; then
		if hw_cached "$hw_label" "$hw_bin" || hw_probe "$hw_label" "$hw_bin"; then
			hw_hand_off "$hw_bin"
		fi
	fi
	hw_tried="${hw_tried:+$hw_tried, }$hw_name"
done

hw_why="no installed hookwarden engine serves $hw_client $hw_event (${hw_tried:+tried: }${hw_tried:-none installed})"
# A skill's inline shell command (pre-skill-shell) has no standalone
# interceptor: unjudged, it is refused like every other gate.
# hw_cut TEXT: hw_in without each occurrence of TEXT (at most 64).
hw_cut() {
	[ -n "$1" ] || return 0
	hw_k=0
	while [ "$hw_k" -lt 64 ]; do
		case $hw_in in *"$1"*) hw_in=${hw_in%%"$1"*}${hw_in#*"$1"} ;; *) return 0 ;; esac
		hw_k=$((hw_k + 1))
	done
}

# hw_names_guard: true when the payload on fd 3 may name one of the guard's
# own files: once the repository's own path, the working directory and the
# client's transcript_path value (which name where the repository lives, not
# what the edit touches) are cut out, it holds one of the words every guard
# path contains (rendered from hookwarden's policy.GuardFileWords, compared
# case-insensitively) or a JSON \u escape (which could spell one); or it
# could not be read whole (over the engine's input bound, or no head(1)).
hw_names_guard() {
	hw_in=$(head -c "$((hw_max_input + 1))" <&3 2>/dev/null) || return 0
	[ "${#hw_in}" -le "$hw_max_input" ] || return 0
	case $hw_in in
	*'"transcript_path":"'*)
		hw_a=${hw_in%%'"transcript_path":"'*}
		hw_b=${hw_in#*'"transcript_path":"'}
		hw_in=$hw_a${hw_b#*'"'}
		;;
	esac
	hw_cut "$hw_root"
	hw_cut "$PWD"
	case $hw_in in
	__HOOKWARDEN_GUARD_WORDS__ | *'\u'*) return 0 ;;
	esac
	return 1
}

# No engine: a skill's inline shell command (pre-skill-shell) has no
# standalone interceptor, so unjudged it is refused like every other gate;
# an edit that may touch the guard's own files is refused too (the guard
# cannot be switched off by removing the engine first); other edits and
# events are stated skips.
case $hw_event in
pre-tool) ;;
pre-skill-shell) hw_fail_closed "$hw_why; install or upgrade hookwarden" ;;
pre-edit)
	if hw_names_guard; then
		hw_answer deny "[BLOCKED BY hookwarden:launcher] $hw_why, and this edit may touch a file of the guard (.hookwarden.yaml, .hookwarden/, a client's hook settings, a lefthook config), which only an engine can judge; install or upgrade hookwarden; the call is refused because it was not judged"
	fi
	hw_answer skip "launcher: $hw_why; install or upgrade hookwarden"
	;;
*) hw_answer skip "launcher: $hw_why; install or upgrade hookwarden" ;;
esac
if [ -z "$hw_root" ] || [ ! -f "$hw_root/.hookwarden/interceptor.py" ]; then
	hw_answer deny "[BLOCKED BY hookwarden:launcher] $hw_why and the standalone interceptor .hookwarden/interceptor.py is missing; the call is refused because it was not judged"
fi
hw_which python3
if [ -z "$hw_found" ]; then
	hw_answer deny "[BLOCKED BY hookwarden:launcher] $hw_why and python3 is not on PATH for the standalone interceptor; install hookwarden (or python3); the call is refused because it was not judged"
fi
hw_tmpfiles
hw_run "$((hw_deadline_ms - hw_probes * hw_probe_ms))" "$hw_found" -I -S "$hw_root/.hookwarden/interceptor.py" "$hw_client"
if [ -n "$hw_timed_out" ]; then
	hw_fail_closed "the standalone interceptor did not answer within $hw_ms ms"
fi
case $hw_client/$hw_rc in
lefthook/0 | lefthook/1 | agy/0) ;;
lefthook/* | agy/*) hw_fail_closed "the standalone interceptor failed (exit $hw_rc)" ;;
*/0 | */2) ;;
*) hw_fail_closed "the standalone interceptor failed (exit $hw_rc)" ;;
esac
hw_emit
printf '%s\n' "hookwarden: launcher: $hw_why; the standalone interceptor judged this call with the built-in rules only" >&2
hw_exit "$hw_rc"
