package gitdisc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// maxConfigBytes bounds how much of a git config file HooksDirs reads; a
// larger file is an error (the caller fails closed), never a partial read.
const maxConfigBytes = 1 << 20

// CommonDir returns the repository's common git directory: for a linked
// worktree the directory its GitDir/commondir file names (relative to
// GitDir), otherwise GitDir itself (gitrepository-layout(5), "commondir").
// Errors name the file that could not be read.
func CommonDir(r Repo) (string, error) {
	data, err := readBounded(filepath.Join(r.GitDir, "commondir"), maxGitFileBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return r.GitDir, nil
	}
	if err != nil {
		return "", err
	}
	line, _, _ := bytes.Cut(data, []byte("\n"))
	c := strings.TrimSpace(string(line))
	if c == "" {
		return r.GitDir, nil
	}
	if !filepath.IsAbs(c) {
		c = filepath.Join(r.GitDir, c)
	}
	return filepath.Clean(c), nil
}

// HooksDirs returns the absolute directories git runs r's hooks from, in
// process and without running git: the common directory's `hooks`, and the
// directory core.hooksPath names when the repository's own config sets it
// (the common `config`, then the worktree's `config.worktree`; the last
// value wins as in git-config(1); a relative value is relative to the work
// tree root, where git runs hooks, and a leading `~/` is home). Include
// directives are not followed (the policy refuses adding them from the
// agent's side). Errors: a config file that exists but cannot be read or is
// larger than 1 MiB (the caller must fail closed).
func HooksDirs(r Repo, home string) ([]string, error) {
	common, err := CommonDir(r)
	if err != nil {
		return nil, err
	}
	dirs := []string{filepath.Join(common, "hooks")}
	val, set := "", false
	for _, f := range []string{filepath.Join(common, "config"), filepath.Join(r.GitDir, "config.worktree")} {
		data, err := readBounded(f, maxConfigBytes)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if v, ok := configValue(data, "core", "hookspath"); ok {
			val, set = v, true
		}
	}
	if set && val != "" {
		switch {
		case strings.HasPrefix(val, "~/") && home != "":
			val = filepath.Join(home, val[2:])
		case !filepath.IsAbs(val):
			val = filepath.Join(r.WorkTree, val)
		}
		dirs = append(dirs, filepath.Clean(val))
	}
	return dirs, nil
}

// readBounded reads at most limit bytes of path; a longer file is an error.
func readBounded(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, limit)
	}
	return data, nil
}

// configValue returns the last value of section.key (both lower-case; no
// subsection) in a git config file, following git-config(1) "Syntax":
// section and key names are case-insensitive, `#` and `;` start a comment
// outside double quotes, double quotes group, `\"`, `\\`, `\n`, `\t` are
// escapes, and a line ending in `\` continues. A key without `=` is the
// boolean true ("" here).
func configValue(data []byte, section, key string) (string, bool) {
	lines := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	cur, val, found := "", "", false
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if strings.HasPrefix(l, "[") {
			end := strings.IndexByte(l, ']')
			if end < 0 {
				cur = ""
				continue
			}
			name := strings.TrimSpace(l[1:end])
			if strings.ContainsAny(name, " \t\"") {
				cur = "" // a subsection: [core "x"] is not [core]
			} else {
				cur = strings.ToLower(name)
			}
			l = strings.TrimSpace(l[end+1:])
			if l == "" {
				continue
			}
		}
		if cur != section || l == "" || l[0] == '#' || l[0] == ';' {
			continue
		}
		name, rest, hasEq := strings.Cut(l, "=")
		if strings.ToLower(strings.TrimSpace(name)) != key {
			continue
		}
		if !hasEq {
			val, found = "", true
			continue
		}
		for strings.HasSuffix(rest, `\`) && !strings.HasSuffix(rest, `\\`) && i+1 < len(lines) {
			i++
			rest = rest[:len(rest)-1] + lines[i]
		}
		val, found = unquoteConfig(rest), true
	}
	return val, found
}

// unquoteConfig decodes one git config value: trims unquoted leading and
// trailing blanks, drops a comment, removes double quotes and decodes the
// escapes git knows.
func unquoteConfig(s string) string {
	var b strings.Builder
	inQ := false
	pending := ""
	s = strings.TrimLeft(s, " \t")
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			i++
			b.WriteString(pending)
			pending = ""
			switch s[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'b':
				b.WriteByte('\b')
			default:
				b.WriteByte(s[i])
			}
		case c == '"':
			b.WriteString(pending)
			pending = ""
			inQ = !inQ
		case !inQ && (c == '#' || c == ';'):
			return b.String()
		case !inQ && (c == ' ' || c == '\t'):
			pending += string(c)
		default:
			b.WriteString(pending)
			pending = ""
			b.WriteByte(c)
		}
	}
	return b.String()
}
