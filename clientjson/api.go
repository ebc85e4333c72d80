// Package clientjson makes byte-preserving edits of client hook files: strict
// JSON (.claude/settings.json, .codex/hooks.json, Cursor's and Windsurf's
// hooks.json with their flat handler lists) and JSON with comments
// (.gemini/settings.json). Both are parsed with tailscale/hujson, whose tree
// carries the byte offset of every value, comment and separator; edits are
// splices at those offsets written by this package (our own formatting,
// copied from the file), never a re-serialisation, so every byte outside the
// inserted or removed text stays as it was. Strict files are also checked
// with encoding/json. The package also decides matcher equivalence the way
// each client reads its matchers (see Selects and Equivalent).
//
// API contract (adopt and audit build on these signatures; keep them):
//
//	Merge(path string, src []byte, client string, want []Handler, opts Options) (Result, error)
//	Selects(client, matcher, tool string) bool
//	Equivalent(client, a, b string) bool
//	HooksDisabled(path string, src []byte, client string) (bool, error)
//	Registered(path string, src []byte, client string, owner *Owner) ([]Found, error)
//	NewOwner(client string, forms []Form) (*Owner, error); (*Owner).Claim(command, args, hasArgs) Claim
//	EnableHooks(path string, src []byte, client string) ([]byte, bool, error)
package clientjson

// HasTimeouts reports whether client's hook file carries a per-handler
// timeout member: false for "windsurf" (Windsurf's hooks.json documents
// command, show_output and working_directory only) and for a client this
// package does not know, true otherwise.
func HasTimeouts(client string) bool {
	d, err := dialectFor(client)
	return err == nil && !d.noTimeout
}

// Handler is one hook row we want registered in a client file: under
// hooks.<NativeEvent>, in a group whose matcher selects the same tools as
// Matcher ("" means the group carries no matcher key), a handler
// {"type":"command","command":Command,"timeout":Timeout}. Timeout is in the
// client's own unit (Claude and Codex seconds, Gemini milliseconds).
// OnFailure, when not "", is written as the handler's "onFailure" member
// (Claude Code 2.1.295+: "block" makes a hook that cannot start, crashes,
// times out or exits with another code than 0 or 2 block the action; see
// templates.OnFailure) and conform sets it on a serving handler that lacks
// it or holds another value. CommandWindows, when not "", is written as
// the handler's "commandWindows" member, after its other members (Codex: the
// command it runs instead of Command on Windows; see
// templates.CommandWindows), and conform sets it on a serving handler that
// lacks it or holds another value.
type Handler struct {
	NativeEvent    string
	Matcher        string
	Command        string
	CommandWindows string
	Timeout        float64
	OnFailure      string
}

// Options steer Merge. Owner is the one definition of our rows (see Owner;
// nil: only a handler whose command is exactly a wanted one is ours); it
// decides "served by" and which rows conform may touch. Retract (conform)
// removes our handlers that serve no wanted row (near misses included),
// rewrites a Stale form or a near miss of a wanted row to its command, and
// updates timeouts; foreign rows are never touched.
type Options struct {
	Owner   *Owner
	Retract bool
}

// Change is one edit Merge made or one row it found already served. Kind is
// "added", "updated", "retracted" or "served".
type Change struct {
	Kind        string
	NativeEvent string
	Matcher     string
	Command     string
}

// Result is Merge's output: Out the new file bytes (equal to src when nothing
// changed), Changes in file order, Warnings (e.g. several serving handlers).
type Result struct {
	Out      []byte
	Changes  []Change
	Warnings []string
}

// Found is one handler found in a client file, with its 1-based Line, its
// exec-form Args (HasArgs when the handler has an "args" member) and its
// Claim under the Owner Registered was given.
type Found struct {
	NativeEvent string
	Matcher     string
	Command     string
	Args        []string
	HasArgs     bool
	Timeout     float64
	HasTimeout  bool
	// OnFailure is the handler's "onFailure" string ("" when absent,
	// "\x00" when not a string).
	OnFailure string
	// CommandWindows is the handler's "commandWindows" string ("" when
	// absent, "\x00" when not a string).
	CommandWindows string
	Line           int
	Claim          Claim
}
