package adopt

import (
	"github.com/hookwarden/hookwarden/clientjson"
)

// mergeFunc is clientjson.Merge's signature (clientjson/api.go).
type mergeFunc func(path string, src []byte, client string, want []clientjson.Handler, opts clientjson.Options) (clientjson.Result, error)

// disabledFunc is clientjson.HooksDisabled's signature (clientjson/api.go).
type disabledFunc func(path string, src []byte, client string) (bool, error)

// enableFunc is clientjson.EnableHooks's signature.
type enableFunc func(path string, src []byte, client string) ([]byte, bool, error)

// clientFiles are the client-file edits adopt delegates to clientjson; a
// test may substitute them to provoke failures clientjson never produces.
type clientFiles struct {
	merge    mergeFunc
	disabled disabledFunc
	enable   enableFunc
}

// realClientFiles returns the clientjson implementation, merges and hook
// switches answered through memo (nil: each computed).
func realClientFiles(memo *clientjson.Memo) clientFiles {
	return clientFiles{merge: memo.Merge, disabled: memo.HooksDisabled, enable: clientjson.EnableHooks}
}

// hooksSwitch names, per client, the settings-file switch that turns all of
// its hooks off and the value EnableHooks sets (clientjson.HooksDisabled
// gives the sources: Claude Code 2.1.328 settings schema, Gemini CLI 0.61.0
// settings schema, ../shared/e2e/README.md section 3). Codex has none in
// .codex/hooks.json.
func hooksSwitch(client string) (sw struct{ off, on string }, ok bool) {
	switch client {
	case "claude", "qwen":
		sw.off, sw.on = "disableAllHooks: true", "disableAllHooks: false"
	case "gemini":
		sw.off, sw.on = "hooksConfig.enabled: false", "hooksConfig.enabled: true"
	default:
		return sw, false
	}
	return sw, true
}
