package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTrustApproveAllTwice checks `trust approve --all` as a setup script
// runs it: the first call approves the registry's argv, a second one has
// nothing left to approve and says so with exit 0 (it said "no listed argv
// matches", exit 1, found following the README), while a hash prefix that
// names no listed argv is still exit 1.
func TestTrustApproveAllTwice(t *testing.T) {
	home := t.TempDir()
	hwHome := filepath.Join(home, ".hookwarden")
	guard := filepath.Join(home, "guard.sh")
	script := []byte("#!/bin/sh\nexit 2\n")
	if err := os.WriteFile(guard, script, 0o755); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(script)
	if err := os.MkdirAll(filepath.Join(hwHome, "hooks"), 0o700); err != nil {
		t.Fatal(err)
	}
	library := fmt.Sprintf(`{"version":1,"entries":{"guard":{"description":"deny guard","argv":[%q],"pin":{%q:%q},"timeout":15}}}`, guard, guard, hex.EncodeToString(sum[:]))
	agents := `{"version":1,"attachments":[{"hook":"guard","event":"pre_tool","matcher":"Bash","required":true}]}`
	for name, body := range map[string]string{"library.json": library, "agents.json": agents} {
		if err := os.WriteFile(filepath.Join(hwHome, "hooks", name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// run calls the trust verb's run function (list, approve) with
	// HOOKWARDEN_HOME set; "--all" is approve's flag, other words prefixes.
	run := func(args ...string) (string, string, int) {
		t.Helper()
		streams, out, errOut := testIO("", []string{"PATH=/usr/bin:/bin", "HOME=" + home, "HOOKWARDEN_HOME=" + hwHome}, home)
		o := &trustOptions{IO: streams}
		for _, a := range args[2:] {
			if a == "--all" {
				o.All = true
			} else {
				o.Prefixes = append(o.Prefixes, a)
			}
		}
		run := runTrustList
		if args[1] == "approve" {
			run = runTrustApprove
		}
		code, msg := runExit(run(o))
		if msg != "" {
			errOut.WriteString(msg + "\n")
		}
		return out.String(), errOut.String(), code
	}
	if out, errOut, code := run("trust", "approve", "--all"); code != 0 || !strings.HasPrefix(out, "approve ") {
		t.Fatalf("first approve --all: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if out, errOut, code := run("trust", "list"); code != 0 || !strings.Contains(out, " approved ") {
		t.Fatalf("trust list after approve: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if out, errOut, code := run("trust", "approve", "--all"); code != 0 || !strings.Contains(out, "nothing to approve") || errOut != "" {
		t.Errorf("second approve --all: exit %d, stdout %q, stderr %q; want exit 0 and nothing to approve", code, out, errOut)
	}
	if _, errOut, code := run("trust", "approve", "ffffffffffffffff"); code != 1 || !strings.Contains(errOut, "no listed argv matches") {
		t.Errorf("approve of an unknown hash: exit %d, stderr %q; want exit 1, no listed argv matches", code, errOut)
	}
}
