package conformance

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hookwarden/hookwarden/adopt/codextrust"
)

// CodexTrust is one persisted Codex hook-trust record: Key is
// "<abs path of the hooks file>:<snake event>:<group index>:<handler index>"
// and Hash "sha256:<hex>", as codex-cli 0.169.0 stores them under
// [hooks.state."<Key>"] trusted_hash in $CODEX_HOME/config.toml.
type CodexTrust struct {
	Key  string
	Hash string
}

// ComputeCodexTrust returns the trust records for every command handler in
// the Codex hooks file at path (a .codex/hooks.json or $CODEX_HOME/hooks.json),
// computed offline by the same code `hookwarden codex-trust` uses
// (adopt/codextrust.Entries over internal/codexhash, checked against codex-cli
// 0.169.0's own `codex app-server` hooks/list). path is made absolute and
// symlink-free, as Codex keys it. It returns an error naming path when the
// file cannot be read or parsed, or holds a timeout Codex would reject.
func ComputeCodexTrust(path string) ([]CodexTrust, error) {
	abs, err := filepath.Abs(path)
	if err == nil {
		abs, err = filepath.EvalSymlinks(abs)
	}
	if err != nil {
		return nil, fmt.Errorf("hookwarden: codex trust %s: %w", path, err)
	}
	b, err := os.ReadFile(abs)
	if err != nil {
		return nil, fmt.Errorf("hookwarden: codex trust: %w", err)
	}
	entries, err := codextrust.Entries(abs, b, nil)
	if err != nil {
		return nil, fmt.Errorf("hookwarden: codex trust: %w", err)
	}
	out := make([]CodexTrust, 0, len(entries))
	for _, e := range entries {
		out = append(out, CodexTrust{Key: e.Key, Hash: e.Hash})
	}
	return out, nil
}

// CodexTrustTOML renders records as config.toml tables
// `[hooks.state."<key>"]` with `trusted_hash = "<hash>"`, ready to append to
// $CODEX_HOME/config.toml.
func CodexTrustTOML(records []CodexTrust) string {
	var b strings.Builder
	for _, r := range records {
		fmt.Fprintf(&b, "\n[hooks.state.%s]\ntrusted_hash = %s\n", TOMLString(r.Key), TOMLString(r.Hash))
	}
	return b.String()
}
