package adopt

import (
	"fmt"

	"github.com/hookwarden/hookwarden/internal/clientname"
	"github.com/hookwarden/hookwarden/templates"
)

// ClientVersion is the client version adopt, conform and audit render a
// client's rows for: Version ("" when unknown) and From, where it was read
// (ClientVersionDeclared).
type ClientVersion struct {
	Version string
	From    string
}

// ClientVersionDeclared is ClientVersion.From for a version the
// repository's .hookwarden.yaml declares (client_versions).
const ClientVersionDeclared = ManifestFile + " client_versions"

// ResolveClientVersion returns the version client's rows are rendered for:
// the version the repository declares (declared, the manifest's
// client_versions) when it names the client, else an unknown version
// (every gated row rendered: templates.RowAccepted). The installed client
// does not change what is rendered: adopt, conform and audit must agree on
// every machine (a conform on a workstation with an old client and an audit
// in CI without one would otherwise undo each other; measured with
// TestAuditIsConformsDryRun's plan-version-too-old case, a claude 2.1.200
// on PATH). `audit --plan` reads the installed version and reports a row it
// predates as not firing (hookplan, client-version-too-old).
func ResolveClientVersion(client string, declared map[string]string) ClientVersion {
	if v, ok := declared[client]; ok {
		return ClientVersion{Version: v, From: ClientVersionDeclared}
	}
	return ClientVersion{}
}

// GatedRow reports whether the (client, event) row is left out for the
// client version cv (templates.RowAccepted false), and if so the sentence
// that says why and what would render it.
func GatedRow(client, event string, cv ClientVersion) (string, bool) {
	if templates.RowAccepted(client, event, cv.Version) {
		return "", false
	}
	g, _ := templates.RowGate(client, event)
	title := clientname.Title(client)
	return fmt.Sprintf("%s %s: not rendered: %s %s (%s) is older than %s, the first version with the row's event; upgrade %s (and declare the version in %s) to render it",
		client, event, title, cv.Version, cv.From, g.Since, title, ClientVersionDeclared), true
}
