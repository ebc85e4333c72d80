package policy

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/hookwarden/hookwarden/internal/shellquote"
)

// TestEvaluatorDisk judges commands that depend on the directory they start
// in (JudgeIn): a glob is judged by what it matches there, a planted
// ./--no-verify file among them, and a glob matching nothing is a literal
// name.
func TestEvaluatorDisk(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"--no-verify", "build/a.json", "build/b.json", ".claude/settings.json", "run.sh"} {
		full := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		body := ""
		if f == "run.sh" {
			body = "git commit -n -m wip\n"
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	site := testSite(t, dir)
	cases := []struct {
		cmd, rule string
		allowed   bool
	}{
		{"git commit * -m wip", RuleGitNoVerify, false},
		{"git commit -- * ", "", true},
		{"rm -f build/*.json", "", true},
		{"rm -f missing/*.json", "", true},
		{"sed -i s/a/b/ .github/workflows/*.yml", "", true},
		{"rm -f .claude/*.json", RuleSelfProtectClientHooks, false},
		{"cd .claude && rm -f *.json", RuleSelfProtectClientHooks, false},
		{"GLOBIGNORE=x; rm -rf *", RuleSelfProtectClientHooks, false}, // a non-null GLOBIGNORE turns dotglob on (adversarial: allowed)
		{"GLOBIGNORE=x; ls *", "", true},
		{"cd build && rm -f *.json", "", true},
		{"ls build/*.json | xargs cat", "", true},
		{"bash < run.sh", RuleGitNoVerifyShort, false},
		{"rm -f .codex/hoo*.json", RuleSelfProtectClientHooks, false},
		{"rm lefthook*.yml", RuleSelfProtectClientHooks, false},
		{"rm -rf .git/hoo*", RuleHooksDirTamper, false},
	}
	for _, c := range cases {
		d := p.JudgeAt(c.cmd, site)
		if d.Allowed != c.allowed || d.RuleID != c.rule {
			t.Errorf("%q in a directory: got allowed=%v rule=%q, want allowed=%v rule=%q", c.cmd, d.Allowed, d.RuleID, c.allowed, c.rule)
		}
	}
}

// TestEngineLookup: command -v, which and type -P print the path PATH finds
// (lookpath.go), so a write to it is a write to the engine even where the
// engine does not sit in a directory named bin; another program found there
// stays an ordinary target.
func TestEngineLookup(t *testing.T) {
	p, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	opt := t.TempDir() // no "bin" component: only the lookup names it
	for _, name := range []string{"hookwarden", "cc"} {
		if err := os.WriteFile(filepath.Join(opt, name), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	site := testSite(t, emptyRepo(t), "PATH", opt)
	for _, c := range []struct {
		cmd, rule string
	}{
		{`n=hookwarden; cp /tmp/x "$(command -v "$n")"`, RuleSelfProtect},
		{`n=hookwarden; t=$(type -P $n); cat /tmp/x > "$t"`, RuleSelfProtect},
		{`n=hookwarden; rm -f "$(which $n)"`, RuleSelfProtect},
		{`n=cc; cp /tmp/x "$(command -v "$n")"`, ""},
		{`n=hookwarden; cp "$(command -v "$n")" /tmp/bak`, ""},
		{`n=hookwarden; "$(command -v "$n")" --version`, ""},
	} {
		if d := p.JudgeAt(c.cmd, site); d.RuleID != c.rule || d.Allowed != (c.rule == "") {
			t.Errorf("%s with the engine in %s: allowed=%v rule=%q, want rule %q", c.cmd, opt, d.Allowed, d.RuleID, c.rule)
		}
	}
}

// TestEngineDirectories: the directories holding the engine the launcher
// would choose (the first hookwarden on the Site's PATH, $HOOKWARDEN_BIN)
// are guard paths too: removing or moving one, or a directory above it,
// removes the engine, after which every hook call is a stated skip or the
// no-engine launcher's answer (rm -rf ~/.local/bin). Installing other tools
// there and cleaning other directories stays allowed.
// TestPathKeyFor: the spellings of one file that Linux and Windows (Git
// Bash, cmd, PowerShell) give compare equal after pathKeyFor, and other
// files stay apart.
func TestPathKeyFor(t *testing.T) {
	for _, c := range []struct{ in, goos, want string }{
		{`/home/u/.local/bin/`, "linux", "/home/u/.local/bin"},
		{`/home/U/x`, "linux", "/home/U/x"},
		{`/c/x`, "linux", "/c/x"},
		{`C:\Users\U\.local\bin\hookwarden.exe`, "windows", "c:/users/u/.local/bin/hookwarden.exe"},
		{`/c/Users/U/.local/bin/hookwarden.exe`, "windows", "c:/users/u/.local/bin/hookwarden.exe"},
		{`C:/Users/U/.local/bin/`, "windows", "c:/users/u/.local/bin"},
		{`/c`, "windows", "c:/"},
		{`/c/`, "windows", "c:/"},
		{`C:\`, "windows", "c:/"},
		{`/cd/x`, "windows", "/cd/x"},
		{`/tmp/x`, "windows", "/tmp/x"},
		{`~/.local/bin`, "windows", "~/.local/bin"},
		{`C:\Users\U\.local\bin.\hookwarden.exe `, "windows", "c:/users/u/.local/bin/hookwarden.exe"},
		{`/c/x/../y/./z.`, "windows", "c:/y/z"},
		{`/home/u/bin.`, "linux", "/home/u/bin."},
	} {
		if got := pathKeyFor(c.in, c.goos); got != c.want {
			t.Errorf("pathKeyFor(%q, %s) = %q, want %q", c.in, c.goos, got, c.want)
		}
	}
}

func TestEngineDirectories(t *testing.T) {
	p, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	home := filepath.Join(root, "home")
	bin := filepath.Join(home, ".local", "bin")
	other := filepath.Join(root, "opt", "hw")
	for _, d := range []string{bin, other, filepath.Join(home, ".cache")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The engine's file name as a PATH search finds it (on Windows by its
	// extension: internal/execpath).
	exe := "hookwarden"
	if runtime.GOOS == "windows" {
		exe += ".exe"
	}
	for _, f := range []string{filepath.Join(bin, exe), filepath.Join(other, exe)} {
		if err := os.WriteFile(f, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	site := testSite(t, emptyRepo(t), "HOME", home, "PATH", bin+string(os.PathListSeparator)+"/usr/bin", "HOOKWARDEN_BIN", filepath.Join(other, exe), "GOPATH", filepath.Join(root, "opt"))
	for _, c := range []struct {
		cmd, rule string
	}{
		{`rm -rf ~/.local/bin`, RuleSelfProtect},
		{`rm -rf ~/.local`, RuleSelfProtect},
		{`rm -rf ~`, RuleSelfProtect},
		{`rmdir ` + shellquote.Word(bin), RuleSelfProtect},
		{`mv ~/.local/bin /tmp/x`, RuleSelfProtect},
		{`cd ~/.local && rm -rf bin`, RuleSelfProtect},
		{`find ~/.local -delete`, RuleSelfProtect},
		{`rm -rf ` + shellquote.Word(filepath.Join(root, "opt")), RuleSelfProtect},
		{`rm -rf "$HOME/.local/bin/"`, RuleSelfProtect},
		{`x=$HOME/.local; rm -rf "$x"`, RuleSelfProtect},
		{`rm -rf "$OUT/bin"`, ""},
		{`rm -rf "$HOME"`, RuleSelfProtect}, // HOME is taken from the site (siteVarNames), as ~ is
		{`rm -rf "$GOPATH/hw"`, RuleSelfProtect},
		{`rm -rf "$GOPATH"/*`, RuleSelfProtect},
		{`rm -rf "$GOPATH/pkg/mod/cache"`, ""},
		{`mv x ~/.local/bin/`, ""},
		{`mv -t ~/.local/bin x y`, ""},
		{`mv ./` + exe + ` ~/.local/bin/`, RuleSelfProtect},
		{`mv x ~/.local/bin/` + exe, RuleSelfProtect},
		{`rm -rf "$(go env GOPATH)/hw"`, RuleSelfProtect},
		{`rm -rf "$(dirname "$(command -v hookwarden)")"`, RuleSelfProtect},
		{`rm -rf "$(go env GOPATH)/pkg/mod/cache"`, ""},
		{`rm -rf ~/.cache`, ""},
		{`rm -rf ~/.local/share/foo`, ""},
		{`rm -rf bin`, ""},
		{`cp mytool ~/.local/bin/`, ""},
		{`ls -la ~/.local/bin`, ""},
		{`mv ~/.local/bin/x ~/.local/bin/y`, ""},
	} {
		if d := p.JudgeAt(c.cmd, site); d.RuleID != c.rule || d.Allowed != (c.rule == "") {
			t.Errorf("%s with the engine in %s: allowed=%v rule=%q, want rule %q", c.cmd, bin, d.Allowed, d.RuleID, c.rule)
		}
	}
	// On Windows the same directory as Git Bash spells it (/c/Users/…),
	// with forward slashes, and in another case.
	if runtime.GOOS == "windows" {
		slashed := filepath.ToSlash(bin)
		gitBash := "/" + strings.ToLower(slashed[:1]) + slashed[2:]
		for _, cmd := range []string{`rm -rf ` + shellquote.Word(gitBash), `rm -rf ` + shellquote.Word(slashed), `rm -rf ` + shellquote.Word(strings.ToUpper(bin)),
			`rm -rf ` + shellquote.Word(filepath.Dir(gitBash))} {
			if d := p.JudgeAt(cmd, site); d.RuleID != RuleSelfProtect {
				t.Errorf("%s with the engine in %s: allowed=%v rule=%q, want rule %q", cmd, bin, d.Allowed, d.RuleID, RuleSelfProtect)
			}
		}
	}
	// Without a Site environment nothing is known of the engine's place.
	if d := p.Judge(`rm -rf ` + bin); !d.Allowed {
		t.Errorf("rm -rf %s judged without a Site: %+v, want allowed (the directory is not known to hold the engine)", bin, d)
	}
}
