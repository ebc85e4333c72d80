package policy

import (
	"regexp"
	"strings"
	"sync"
)

// PowerShell code (pwsh -Command, -EncodedCommand, and the PowerShell tool
// of Claude Code, which the hook judges as pwsh -Command) is judged by the
// shell walk after a PowerShell pre-pass, since no maintained Go parser of
// PowerShell exists. The pre-pass reads what the walk would misread
// (about_Environment_Variables, about_Special_Characters, about_Splatting,
// about_Operators, Start-Process; PowerShell 7.4 documentation):
//   - $env:NAME = VALUE, Set-Item env:NAME and
//     [Environment]::SetEnvironmentVariable set a process environment
//     variable every later command inherits: judged as export NAME=VALUE;
//   - a backtick escapes the next character (`-n is -n): removed;
//   - Start-Process git -ArgumentList "a","b" runs git a b: judged so;
//   - a statement that runs git, a hook manager, Invoke-Expression or
//     Start-Process with words PowerShell builds at run time (an
//     expression in parentheses, a splat @a, a script block, [char],
//     -join, -f, string concatenation) is refused: the walk cannot know the
//     words, and the refusal says to write them literally. A plain $name
//     is left to the walk, which reads it as a variable whose value it
//     does not know: git commit -m $msg is a message, git commit $o an
//     option it cannot see (git-dynamic-option).

// psRegexps are the pre-pass's expressions, compiled on the first
// PowerShell command judged (psRe), not at start: the hook process
// judges POSIX shell commands far more often and pays for none of them.
type psRegexps struct {
	envAssign, setItemEnv, setEnvVar, statement, dynamic, startGit, backtickEsc, gitWord, assign *regexp.Regexp
}

var psRe = sync.OnceValue(func() psRegexps {
	return psRegexps{
		envAssign:   regexp.MustCompile(`(?i)\$env:([A-Za-z_][A-Za-z0-9_]*)\s*=\s*("[^"]*"|'[^']*'|[^\s;|]+)`),
		setItemEnv:  regexp.MustCompile(`(?i)\b(?:set-item|si|new-item|ni)\s+(?:-path\s+)?env:([A-Za-z_][A-Za-z0-9_]*)\s+(?:-value\s+)?("[^"]*"|'[^']*'|[^\s;|]+)`),
		setEnvVar:   regexp.MustCompile(`(?i)\[(?:system\.)?environment\]::setenvironmentvariable\(\s*["']([A-Za-z_][A-Za-z0-9_]*)["']\s*,\s*("[^"]*"|'[^']*'|[^,)]+)`),
		statement:   regexp.MustCompile("[;\n|]"),
		dynamic:     regexp.MustCompile(`[()@+{}` + "`" + `]|\[char\]|(?i)\s-join\b|\s-f\s`),
		startGit:    regexp.MustCompile(`(?i)^\s*(?:start-process|saps|start)\s+(?:-filepath\s+)?["']?git(?:\.exe)?["']?\s+(?:-argumentlist|-args)\s+(.*)$`),
		backtickEsc: regexp.MustCompile("`([^\r\n])"),
		gitWord:     regexp.MustCompile(`(?i)\bgit(\.exe)?\s`),
		assign:      regexp.MustCompile(`(?m)(^|;)\s*\$([A-Za-z_][A-Za-z0-9_]*)\s*=\s*('[^'\n]*'|"[^"$\n]*"|[A-Za-z0-9_./:=-]+)\s*(;|$)`),
	}
})

// psRunners are the command names whose run-time-built words could skip a
// hook: git and the hook managers, and the cmdlets that run a command or
// code given as words.
func psRunners(name string) bool {
	switch name {
	case "git", "git.exe", "lefthook", "husky", "pre-commit",
		"invoke-expression", "iex", "start-process", "saps", "start", "hookwarden":
		return true
	}
	return false
}

// powershellScript judges src, PowerShell code, as the package comment above
// says, then as a shell script.
func (j *judge) powershellScript(src string, depth int, env []envVar) {
	for _, re := range []*regexp.Regexp{psRe().envAssign, psRe().setItemEnv, psRe().setEnvVar} {
		for _, m := range re.FindAllStringSubmatch(src, -1) {
			val := strings.Trim(m[2], `"'`)
			f := lit(val)
			if strings.ContainsAny(val, "$(@") {
				f = field{val: dyn, raw: val}
			}
			j.assignment(m[1], f, true)
		}
	}
	for _, stmt := range psRe().statement.Split(src, -1) {
		s := strings.TrimSpace(stmt)
		s = strings.TrimSpace(strings.TrimPrefix(s, "&"))
		if m := psRe().startGit.FindStringSubmatch(s); m != nil {
			var words []string
			for _, w := range strings.Split(m[1], ",") {
				words = append(words, strings.Trim(strings.TrimSpace(w), `"'`))
			}
			s = "git " + strings.Join(words, " ")
			j.script(s, depth, env)
		}
		words := strings.Fields(s)
		if len(words) == 0 {
			continue
		}
		if psRunners(strings.ToLower(strings.Trim(words[0], `"'`))) && psRe().dynamic.MatchString(strings.TrimPrefix(s, words[0])) {
			j.hits.add(RulePowerShellDynamic)
		}
		if strings.Contains(s, "{") && psRe().gitWord.MatchString(s) && strings.Contains(s, "$") {
			// [char]110 | % { git commit "-$_" }: git in a script block
			// with run-time words
			j.hits.add(RulePowerShellDynamic)
		}
	}
	src = psRe().backtickEsc.ReplaceAllString(src, "$1")
	// $o = '--no-verify'; git commit $o: a literal assigned to a variable is
	// a shell assignment for the walk, so the value is known where it is
	// used (a value PowerShell computes stays unknown)
	src = psRe().assign.ReplaceAllString(src, "${1}${2}=${3}${4}")
	j.script(quoteVariables(src), depth, env)
}

// quoteVariables wraps each $name outside quotes in double quotes: a
// PowerShell variable is one argument whatever it holds (no word
// splitting), which the shell walk reads "$name" as. A backslash outside
// single quotes becomes a slash: in PowerShell it is a path separator,
// never an escape (the backtick is), whereas the shell walk would drop it
// ($HOME\.bashrc would read as $HOME.bashrc) or, inside double quotes,
// take it to escape the quote or a $.
func quoteVariables(src string) string {
	var b strings.Builder
	quote := byte(0)
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else if c == '\\' && quote == '"' {
				c = '/' // in the shell walk \" and \$ would escape
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '\\':
			c = '/'
		case c == '$' && i+1 < len(src) && (src[i+1] == '_' || src[i+1] >= 'a' && src[i+1] <= 'z' || src[i+1] >= 'A' && src[i+1] <= 'Z'):
			k := i + 1
			for k < len(src) && (src[k] == '_' || src[k] >= 'a' && src[k] <= 'z' || src[k] >= 'A' && src[k] <= 'Z' || src[k] >= '0' && src[k] <= '9') {
				k++
			}
			if k < len(src) && src[k] == ':' { // $env:NAME, $script:x: a scope, judged above
				break
			}
			b.WriteString(`"` + src[i:k] + `"`)
			i = k - 1
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}
