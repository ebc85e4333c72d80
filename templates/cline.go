package templates

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/hookwarden/hookwarden/internal/clientfiles"
	"github.com/hookwarden/hookwarden/protocol/registration"
)

// ClineHookPath is Cline's project hook file in a governed repository
// (internal/clientfiles.ClineHook): the executable
// .clinerules/hooks/PreToolUse, named after the hook, which Cline runs
// before every tool (docs.cline.bot hook-reference). One file per hook
// name, so the file is ours alone; an operator's own PreToolUse (no render
// header) is kept and reported.
const ClineHookPath = clientfiles.ClineHook

// StepClineHook is Cline's hook file .clinerules/hooks/PreToolUse.
const StepClineHook = "cline-hook"

// clineShebang is the first line of the Cline hook file: Cline runs the
// file itself, so it starts with `#!` and is written 0755; the render
// header is the second line (ParseHeaderAt).
const clineShebang = "#!/bin/sh\n"

// renderClineHook renders the body of .clinerules/hooks/PreToolUse (without
// the shebang and the header line): it reads Cline's payload once and runs
// each cline row of t (pre-tool, then pre-edit) through the launcher with
// it (RegistrationCommand; hw_root is the repository root, two directories
// up from the file). Cline lets a call through on any fault of its hook (a
// non-zero exit, no or malformed JSON, its 30 s bound; protocol/dialect
// cline.go), so every path prints one line of {"cancel":…} JSON and exits
// 0: a row that answers exactly {"cancel":false} lets the call go on to the
// next row (when it exited 0); a row's one-line {"cancel":true,…} answer is passed on; any
// other answer (the launcher missing, the engine missing, crashed or timed
// out, a launcher deny on stderr) cancels with a reason of ours.
func renderClineHook(t *registration.Table) ([]byte, error) {
	rows := t.ForClient("cline")
	if len(rows) == 0 {
		return nil, fmt.Errorf("hookwarden: render: the registration table has no cline row")
	}
	var b bytes.Buffer
	b.WriteString(`# hookwarden: Cline's PreToolUse hook (rendered by hookwarden adopt; do not edit by hand).
#
# Cline runs this file before every tool and lets the call through whenever a
# hook fails (a non-zero exit, no or bad JSON, its 30 s bound), so every path
# here prints one {"cancel":...} line and exits 0. Only a row answering exactly
# {"cancel":false} lets the call go on; a cancel ends Cline's task, not only
# the call. Each row runs through the launcher under its own deadline.
hw_cancel() {
	printf '{"cancel":true,"errorMessage":"[BLOCKED BY hookwarden:launcher] %s; the call is refused because it was not judged (run hookwarden doctor)"}\n' "$1"
	exit 0
}
trap 'hw_cancel "the hook was interrupted"' HUP INT TERM
case $0 in
*/*) hw_root=${0%/*}/../.. ;;
*) hw_cancel "the hook file was run without a path, so the repository root is unknown" ;;
esac
[ -f "$hw_root/.hookwarden/hook.sh" ] || hw_cancel "the launcher .hookwarden/hook.sh is missing (run hookwarden conform)"
hw_in=$(cat; printf x) || hw_cancel "the payload could not be read"
hw_in=${hw_in%x}
hw_nl='
'
# hw_judge EVENT EXIT OUT: pass on a one-line cancel, go on after an allow
# that exited 0, cancel otherwise.
hw_judge() {
	case $3 in
	'{"cancel":false}') [ "$2" -ne 0 ] || return 0 ;;
	*"$hw_nl"*) ;;
	'{"cancel":true,'*'}')
		printf '%s\n' "$3"
		exit 0
		;;
	esac
	hw_cancel "cline $1 gave no answer Cline reads (the engine missing, crashed or out of time)"
}
`)
	for _, r := range rows {
		cmd, err := RegistrationCommand("cline", r.Event)
		if err != nil {
			return nil, err
		}
		if strings.ContainsAny(cmd, "\n'") {
			return nil, fmt.Errorf("hookwarden: render: cline %s: registration command not renderable", r.Event)
		}
		fmt.Fprintf(&b, "hw_out=$(printf '%%s' \"$hw_in\" | %s)\nhw_judge %s $? \"$hw_out\"\n", cmd, r.Event)
	}
	b.WriteString("printf '%s\\n' '{\"cancel\":false}'\nexit 0\n")
	return b.Bytes(), nil
}

// clineWithHeader returns the Cline hook file: the shebang line, the render
// header as a "# " comment on the second line, then body. The digest covers
// the file without the header line (the shebang and body), as ParseHeaderAt
// checks it.
func clineWithHeader(body []byte) []byte {
	rest := append([]byte(clineShebang), body...)
	out := make([]byte, 0, len(rest)+100)
	out = append(out, clineShebang...)
	out = append(out, "# "...)
	out = append(out, headerLine(rest)...)
	out = append(out, '\n')
	return append(out, body...)
}

// ParseHeaderAt is ParseHeader for the rendered file at path (slash
// separated, relative to the repository root): for ClineHookPath, whose
// first line must be "#!/bin/sh" for Cline to run it, the header is read
// from the second line, the digest over the file without that line; every
// other path is read by ParseHeader (the header first), so no other file
// gains a second place for it.
func ParseHeaderAt(path string, body []byte) (Header, bool) {
	if path != ClineHookPath {
		return ParseHeader(body)
	}
	if !bytes.HasPrefix(body, []byte(clineShebang)) {
		return Header{}, false
	}
	rest := body[len(clineShebang):]
	nl := bytes.IndexByte(rest, '\n')
	if nl < 0 || !bytes.HasPrefix(rest, []byte("# ")) {
		return Header{}, false
	}
	h, ok := parseValue(string(rest[2:nl]))
	if !ok {
		return Header{}, false
	}
	h.Edited = digest(append([]byte(clineShebang), rest[nl+1:]...)) != h.Digest
	return h, true
}
