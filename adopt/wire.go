package adopt

import (
	"github.com/hookwarden/hookwarden/clientjson"
)

// mergeFunc is clientjson.Merge's signature (clientjson/api.go).
type mergeFunc func(path string, src []byte, client string, want []clientjson.Handler, opts clientjson.Options) (clientjson.Result, error)

// disabledFunc is clientjson.HooksDisabled's signature (clientjson/api.go).
type disabledFunc func(path string, src []byte, client string) (bool, error)

// clientFiles are the client-file edits adopt delegates to clientjson; a
// test may substitute them to provoke failures clientjson never produces.
type clientFiles struct {
	merge    mergeFunc
	disabled disabledFunc
}

// realClientFiles returns the clientjson implementation.
func realClientFiles() clientFiles {
	return clientFiles{merge: clientjson.Merge, disabled: clientjson.HooksDisabled}
}
