package templates

import "errors"

// Render returns the files to write for a repository governing the named
// clients (as in .hookwarden.yaml `clients`), in a stable order. The launcher
// and the standalone interceptor are always included; the Antigravity plugin
// when clients contains "agy"; the opencode plugin when it contains
// "opencode". It returns an error for an unknown client name or when a
// template fails to render.
func Render(clients []string) ([]File, error) {
	return nil, errors.New("hookwarden: render: templates not rendered yet (issue 4 in progress)")
}
