package adopt

import (
	"strings"
	"testing"
)

// TestReportTextBackup: a real run names the backup it wrote; a dry run
// (adopt --dry-run, conform --check) wrote none, so it names no stamped
// path that does not exist (a fresh-user pass found one).
func TestReportTextBackup(t *testing.T) {
	for _, dry := range []bool{false, true} {
		r := &Report{DryRun: dry, Repositories: []*RepoReport{{Path: "/src/api", Status: StatusChanged,
			Files: []*FileReport{{Path: ".claude/settings.json", Action: ActionMerged, Backup: BackupDir + "/20261206T031312Z/.claude/settings.json"}}}}}
		var b strings.Builder
		if err := r.WriteText(&b); err != nil {
			t.Fatal(err)
		}
		named := strings.Contains(b.String(), "20261206T031312Z")
		if named == dry {
			t.Errorf("dry run %v: the text names the stamped backup path: %v\n%s", dry, named, b.String())
		}
		if dry && !strings.Contains(b.String(), "[a real run backs it up first, under "+BackupDir+"/]") {
			t.Errorf("dry run: the text does not say a real run backs the file up:\n%s", b.String())
		}
	}
}

// TestTrustTextAfterWrite: after codex-trust wrote config.toml the rows and
// the project it trusted read "trusted now"; a dry run's read "will trust".
func TestTrustTextAfterWrite(t *testing.T) {
	for _, dry := range []bool{false, true} {
		r := &TrustReport{Config: "/home/u/.codex/config.toml", DryRun: dry, Changed: true,
			Repositories: []*TrustRepoReport{{Path: "/src/api", TrustProject: true, Rows: []TrustRow{{State: "will trust"}}}}}
		var b strings.Builder
		if err := r.WriteText(&b); err != nil {
			t.Fatal(err)
		}
		want, not := "trusted now", "will trust"
		if dry {
			want, not = not, want
		}
		if !strings.Contains(b.String(), "project: "+want) || !strings.Contains(b.String(), "  "+want) || strings.Contains(b.String(), not) {
			t.Errorf("dry run %v: want %q and no %q:\n%s", dry, want, not, b.String())
		}
	}
}
