package adopt

import (
	"errors"

	"github.com/hookwarden/hookwarden/clientjson"
)

// mergeFunc is clientjson.Merge's signature (clientjson/api.go).
type mergeFunc func(path string, src []byte, client string, want []clientjson.Handler, opts clientjson.Options) (clientjson.Result, error)

// disabledFunc is clientjson.HooksDisabled's signature (clientjson/api.go).
type disabledFunc func(path string, src []byte, client string) (bool, error)

// clientFiles are the client-file edits adopt delegates to clientjson.
type clientFiles struct {
	merge    mergeFunc
	disabled disabledFunc
}

// realClientFiles returns the clientjson implementation.
// TODO(wire): clientjson.Merge / HooksDisabled are not in the tree yet; until
// they land, agent-hooks fails closed with this error.
func realClientFiles() clientFiles {
	errMissing := errors.New("clientjson merge is not available in this build")
	return clientFiles{
		merge: func(string, []byte, string, []clientjson.Handler, clientjson.Options) (clientjson.Result, error) {
			return clientjson.Result{}, errMissing
		},
		disabled: func(string, []byte, string) (bool, error) { return false, errMissing },
	}
}
