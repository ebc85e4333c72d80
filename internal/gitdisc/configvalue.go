package gitdisc

import "strings"

// ConfigValue returns the last value of section.key (both lower-case, no
// subsection) in the git config file data, read as git-config(1) "Syntax"
// says (case-insensitive names, comments, quotes, escapes, continued lines;
// a key without "=" is the boolean true, returned as ""). found is false
// when the key is not set. Include directives are not followed: a caller
// that must know every value checks for include.path and [includeIf]
// sections itself.
func ConfigValue(data []byte, section, key string) (value string, found bool) {
	return configValue(data, section, key)
}

// ConfigSetting is one occurrence of a key in a git config file: Include is
// true for an include.path or includeIf.<condition>.path line (Value is
// then the path as written), false for the key asked for.
type ConfigSetting struct {
	Include bool
	// Conditional is true for an includeIf path (its condition is not
	// evaluated).
	Conditional bool
	Value       string
}

// ConfigSettings returns, in file order, every value of section.key (both
// lower-case, no subsection) and every include directive ([include] path
// and [includeIf "<condition>"] path, git-config(1) "Includes") of the git
// config file data, with the syntax ConfigValue reads. The conditions of
// includeIf are not evaluated: a caller that must know the key's value
// treats an included file as possibly read.
func ConfigSettings(data []byte, section, key string) []ConfigSetting {
	lines := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	var out []ConfigSetting
	cur := ""
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if strings.HasPrefix(l, "[") {
			end := strings.IndexByte(l, ']')
			if end < 0 {
				cur = ""
				continue
			}
			cur = sectionName(strings.TrimSpace(l[1:end]))
			l = strings.TrimSpace(l[end+1:])
		}
		if l == "" || l[0] == '#' || l[0] == ';' {
			continue
		}
		name, rest, hasEq := strings.Cut(l, "=")
		name = strings.ToLower(strings.TrimSpace(name))
		inc := (cur == "include" || cur == "includeif") && name == "path"
		if !inc && (cur != section || name != key) {
			continue
		}
		for hasEq && strings.HasSuffix(rest, `\`) && !strings.HasSuffix(rest, `\\`) && i+1 < len(lines) {
			i++
			rest = rest[:len(rest)-1] + lines[i]
		}
		v := ""
		if hasEq {
			v = unquoteConfig(rest)
		}
		out = append(out, ConfigSetting{Include: inc, Conditional: inc && cur == "includeif", Value: v})
	}
	return out
}

// sectionName is the lower-case section of a header's inside: "core" for
// [core], "includeif" for [includeIf "gitdir:~/x/"], "" for any other
// section with a subsection ([core "x"] is not [core]).
func sectionName(inside string) string {
	name, sub, hasSub := strings.Cut(inside, " ")
	name = strings.ToLower(name)
	if !hasSub && !strings.ContainsAny(name, "\t\"") {
		return name
	}
	if name == "includeif" && strings.HasPrefix(strings.TrimSpace(sub), "\"") {
		return name
	}
	return ""
}
