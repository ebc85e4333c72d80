// Package codextrusttest is test support for codextrust and adopt: it asks
// the real Codex CLI which hooks it loads and trusts, the check of the trust
// records codextrust writes:
// `codex app-server` speaks JSON-RPC over stdio (one JSON object per line);
// after initialize/initialized, the hooks/list method with {"cwds": [dir]}
// answers the hooks Codex would run in dir, each with its key, current hash,
// command and trust status (Codex CLI 0.169.0, app-server protocol; the
// messages below are the ones recorded in testdata/clients/codex).
//
// Only tests import it (the adopt and codextrust tests check our rows against
// the real client with it); cmd/hookwarden's TestImportGraph keeps it out of
// every product package.
package codextrusttest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
)

// Hook is one hook as hooks/list reports it. TrustStatus is "trusted" for a
// hook whose trust record in config.toml matches its current hash.
type Hook struct {
	Key         string `json:"key"`
	Command     string `json:"command"`
	CurrentHash string `json:"currentHash"`
	TrustStatus string `json:"trustStatus"`
}

// HooksList runs `codex app-server` from the binary codex, with CODEX_HOME
// and HOME set to home, in dir, and returns the hooks hooks/list reports for
// dir. Errors: the process cannot start, hooks/list answers an error, Codex
// reports warnings for the hooks files (returned joined), or no answer comes
// before ctx ends. The process is killed before HooksList returns.
func HooksList(ctx context.Context, codex, home, dir string) ([]Hook, error) {
	cmd := exec.CommandContext(ctx, codex, "app-server")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CODEX_HOME="+home, "HOME="+home)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("codex app-server: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("codex app-server: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("codex app-server: %w", err)
	}
	defer func() { stdin.Close(); cmd.Process.Kill(); cmd.Wait() }()
	for _, m := range []any{
		map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{"clientInfo": map[string]any{"name": "hookwarden-test", "version": "0"}}},
		map[string]any{"jsonrpc": "2.0", "method": "initialized"},
		map[string]any{"jsonrpc": "2.0", "id": 2, "method": "hooks/list", "params": map[string]any{"cwds": []string{dir}}},
	} {
		b, _ := json.Marshal(m)
		if _, err := stdin.Write(append(b, '\n')); err != nil {
			return nil, fmt.Errorf("codex app-server: writing a request: %w", err)
		}
	}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var msg struct {
			ID     int `json:"id"`
			Result struct {
				Data []struct {
					Hooks    []Hook   `json:"hooks"`
					Warnings []string `json:"warnings"`
				} `json:"data"`
			} `json:"result"`
			Error json.RawMessage `json:"error"`
		}
		if json.Unmarshal(sc.Bytes(), &msg) != nil || msg.ID != 2 {
			continue
		}
		if msg.Error != nil {
			return nil, fmt.Errorf("codex app-server: hooks/list: %s", msg.Error)
		}
		var out []Hook
		var warnings []error
		for _, d := range msg.Result.Data {
			for _, w := range d.Warnings {
				warnings = append(warnings, errors.New(w))
			}
			out = append(out, d.Hooks...)
		}
		if len(warnings) > 0 {
			return out, fmt.Errorf("codex app-server: hooks/list warnings: %w", errors.Join(warnings...))
		}
		return out, nil
	}
	return nil, fmt.Errorf("codex app-server: no hooks/list reply (%v)", ctx.Err())
}
