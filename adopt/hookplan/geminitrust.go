package hookplan

import (
	"path/filepath"
	"strings"
)

// Gemini CLI 0.61.0 trust levels of trustedFolders.json (bundle
// chunk-JDPZ4CE3.js, packages/core/dist/src/utils/trust.js, TrustLevel).
const (
	geminiTrustFolder = "TRUST_FOLDER"
	geminiTrustParent = "TRUST_PARENT"
	geminiDoNotTrust  = "DO_NOT_TRUST"
)

// geminiFolderTrust marks the workspace files of files untrusted
// (ReasonGeminiUntrusted) when Gemini CLI 0.61.0 would not load them for a
// session started in the plan's start directory; home is Gemini's home
// (~/.gemini). The facts, all from the 0.61.0 bundle:
//   - _doLoadSettings (chunk-2YTYPKEZ.js) decides trust on the merge of the
//     schema defaults, system defaults, user and system settings (the
//     workspace file is not consulted) and passes mergeSettings
//     `isTrusted ? workspace : {}`: an untrusted workspace's settings, its
//     hooks included, are dropped (`isWorkspaceTrusted(...)?.isTrusted ??
//     false`, so "no rule matches" counts as untrusted at load).
//   - isFolderTrustEnabled: `settings.security?.folderTrust?.enabled ??
//     true`, and the schema's default for security.folderTrust.enabled is
//     true: folder trust is on unless a file turns it off.
//   - checkPathTrust (chunk-JDPZ4CE3.js): GEMINI_RESTRICTED_MODE=true or
//     GEMINI_CLI_TRUST_WORKSPACE=false untrusts, GEMINI_CLI_TRUST_WORKSPACE=
//     true trusts, before the setting; an IDE's workspace trust (not
//     visible here) comes before the file.
//   - Storage.getTrustedFoldersPath: $GEMINI_CLI_TRUSTED_FOLDERS_PATH, else
//     trustedFolders.json in the runtime dir (~/.gemini; ~/.cache/.gemini
//     when SANDBOX=sandbox-exec). The file is one JSON object (comments
//     stripped) of path → "TRUST_FOLDER" | "TRUST_PARENT" | "DO_NOT_TRUST";
//     anything else is a fatal config error.
//   - LoadedTrustedFolders.isPathTrusted: a rule applies to the folder and
//     every folder below it (isSubpath, both sides realpath'd), a
//     TRUST_PARENT rule to its path's parent; the rule with the longest path
//     string wins; DO_NOT_TRUST untrusts, the other two trust.
func (pl *clientPlanner) geminiFolderTrust(files []loaded, home string) {
	why := pl.geminiUntrusted(files, home)
	if why == "" {
		return
	}
	for _, l := range files {
		if l.f.Scope == ScopeProject && l.f.ReasonID == "" {
			l.f.ReasonID, l.f.Why = ReasonGeminiUntrusted, why
		}
	}
}

// geminiUntrusted returns why Gemini CLI does not trust the plan's start
// directory, "" when it does (see geminiFolderTrust).
func (pl *clientPlanner) geminiUntrusted(files []loaded, home string) string {
	const skip = "so Gemini CLI 0.61.0 does not load the workspace settings and runs none of their hooks, ours included"
	if pl.getenv("GEMINI_RESTRICTED_MODE") == "true" {
		return "GEMINI_RESTRICTED_MODE=true in the environment untrusts every folder, " + skip
	}
	switch pl.getenv("GEMINI_CLI_TRUST_WORKSPACE") {
	case "false":
		return "GEMINI_CLI_TRUST_WORKSPACE=false in the environment untrusts the folder, " + skip
	case "true":
		return ""
	}
	enabled, from := true, "its default"
	for _, l := range files {
		if l.f.Scope == ScopeProject || !l.ok || l.f.ReasonID != "" {
			continue
		}
		var doc struct {
			Security struct {
				FolderTrust struct {
					Enabled *bool `json:"enabled"`
				} `json:"folderTrust"`
			} `json:"security"`
		}
		if standardJSON(l.data, &doc) && doc.Security.FolderTrust.Enabled != nil {
			enabled, from = *doc.Security.FolderTrust.Enabled, l.f.Path
		}
	}
	if !enabled {
		return ""
	}
	path := pl.getenv("GEMINI_CLI_TRUSTED_FOLDERS_PATH")
	if path == "" {
		if home == "" {
			return ""
		}
		dir := home
		if h := pl.getenv("HOME"); pl.getenv("SANDBOX") == "sandbox-exec" && h != "" {
			dir = filepath.Join(h, ".cache", ".gemini")
		}
		path = filepath.Join(dir, "trustedFolders.json")
	}
	on := "security.folderTrust.enabled is on (" + from + ")"
	data, exists, err := pl.read(path)
	if err != nil {
		return on + " and " + path + " cannot be read safely (" + err.Error() + "), " + skip
	}
	rules := map[string]any{}
	if exists && !standardJSON(data, &rules) {
		return on + " and " + path + " is not a JSON object: Gemini CLI stops with a fatal configuration error"
	}
	level, bad := geminiTrustLevel(rules, pl.p.Start)
	if bad != "" {
		return on + " and " + path + " gives " + bad + " an invalid trust level: Gemini CLI stops with a fatal configuration error"
	}
	switch level {
	case geminiTrustFolder, geminiTrustParent:
		return ""
	case geminiDoNotTrust:
		return on + " and " + path + " marks " + pl.p.Start + " (or a folder above it) DO_NOT_TRUST, " + skip
	}
	return on + " and no rule of " + path + " trusts " + pl.p.Start + " (nor a folder above it), " + skip + " (an interactive session asks first; a headless one does not)"
}

// geminiTrustLevel returns the trust level of trustedFolders.json's rules
// (path → level) that decides the folder start, "" when no rule covers it,
// as Gemini CLI 0.61.0's isPathTrusted does: a rule covers its folder and
// every folder below (TRUST_PARENT: its path's parent), both sides
// symlink-resolved, and the rule with the longest path string wins. bad
// names a rule whose level is none of the three (Gemini CLI then stops).
func geminiTrustLevel(rules map[string]any, start string) (level, bad string) {
	loc := realPath(start)
	best := -1
	for rule, v := range rules {
		lv, _ := v.(string)
		if lv != geminiTrustFolder && lv != geminiTrustParent && lv != geminiDoNotTrust {
			return "", rule
		}
		eff := rule
		if lv == geminiTrustParent {
			eff = filepath.Dir(rule)
		}
		if isSubpath(realPath(eff), loc) && len(rule) > best {
			best, level = len(rule), lv
		}
	}
	return level, ""
}

// realPath resolves p's symlinks as Gemini CLI's getRealPath does (p itself
// when it does not exist or cannot be resolved).
func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

// isSubpath reports whether child is parent or lies below it.
func isSubpath(parent, child string) bool {
	rel, err := filepath.Rel(parent, child)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
