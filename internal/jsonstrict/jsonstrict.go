// Package jsonstrict decodes one JSON document strictly: unknown object
// members and anything after the document are errors.
package jsonstrict

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// ErrTrailing is returned when data follows the JSON document.
var ErrTrailing = errors.New("trailing data after the JSON document")

// Decode decodes the one JSON document b into v (encoding/json with
// DisallowUnknownFields); a member v has no field for, a decode error, or
// anything but white space after the document is an error.
func Decode(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return err
	}
	if _, err := d.Token(); err != io.EOF {
		return ErrTrailing
	}
	return nil
}
