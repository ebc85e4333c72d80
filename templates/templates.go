// Package templates renders every file hookwarden writes into a governed
// repository that is not an operator's settings file: the skew-guard launcher
// (.hookwarden/hook.sh, and its Python form .hookwarden/hook.py), the standalone interceptor (.hookwarden/interceptor.py),
// the Antigravity plugin (.agents/plugins/hookwarden/…) and the opencode plugin
// (.opencode/plugins/hookwarden.js), plus the hook command strings adopt writes
// into each client's settings (RegistrationCommand).
//
// Templates are go:embed files under files/, except the launcher's sources,
// which skewguard holds with the protocol they implement (skewguard.ShSource,
// skewguard.PySource); the interceptors are rendered from policy.TextRules
// and the launcher from protocol/registration, never hand-copied.
package templates

import "io/fs"

// Adopt step names a rendered File belongs to. adopt offers each as a step the
// operator can decline (issue 4, "Each becomes an adopt step that can be
// declined").
const (
	// StepLauncher is the skew-guard launcher .hookwarden/hook.sh and its
	// Python form .hookwarden/hook.py.
	StepLauncher = "launcher"
	// StepInterceptor is the standalone interceptor .hookwarden/interceptor.py.
	StepInterceptor = "interceptor"
	// StepAgyPlugin is the Antigravity plugin under .agents/plugins/hookwarden/.
	StepAgyPlugin = "agy-plugin"
	// StepOpencodePlugin is the opencode plugin .opencode/plugins/hookwarden.js.
	StepOpencodePlugin = "opencode-plugin"
	// StepCopilotHooks is GitHub Copilot CLI's hook file
	// .github/hooks/hookwarden.json.
	StepCopilotHooks = "copilot-hooks"
	// StepKiroHooks is Kiro CLI's hook file .kiro/hooks/hookwarden.json.
	StepKiroHooks = "kiro-hooks"
)

// File is one rendered file. Path is slash-separated and relative to the
// repository root (e.g. ".hookwarden/hook.py"). Body is the complete file
// content, render header included. Mode is the permission bits to create the
// file with (Render uses 0o644: every file is run through /bin/sh, python3 or node). Step is the adopt step name
// (one of the Step* constants).
type File struct {
	Path string
	Body []byte
	Mode fs.FileMode
	Step string
}

// Header is what ParseHeader reads from a rendered file's header. Version is
// the hookwarden version that rendered it (internal/buildinfo.Current() at render
// time); Digest is the lower-case hex SHA-256 the header records for the body;
// Edited is true when the SHA-256 of the body as it is now differs from Digest
// (the file was changed by hand after rendering).
type Header struct {
	Version string
	Digest  string
	Edited  bool
}
