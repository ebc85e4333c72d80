package gitdisc

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
