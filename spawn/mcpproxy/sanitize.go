package mcpproxy

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/hookwarden/hookwarden/spawn/redact"
)

// errUnredactable is the cause of every sanitized failure: a message that
// held a table value and could not be redacted into the same shape.
var errUnredactable = errors.New("a table value could not be redacted out of it")

// redactValue returns v with every table value in its JSON form replaced by
// its token, decoded back into v's own type (a pointer to a struct of the
// SDK's protocol types), and the number of replacements. The JSON form is
// the wire form the engine would receive, so a value inside any string
// (text, description, schema, error message, _meta) is found in every
// spelling the matcher knows. A value it cannot redact out (the replaced
// JSON is not valid, no longer decodes into the type, or a verify pass
// still finds a value) and a value inside a base64 field ("data" of image
// and audio content, "blob" of resource contents), which no token can
// replace without breaking the bytes, are errUnredactable. An input-required
// result (the multi round-trip protocol, which would ask the engine to send
// the call again) is refused as a form the proxy does not support.
func redactValue[T any](m *redact.Matcher, v T) (T, int, error) {
	var zero T
	b, err := json.Marshal(v)
	if err != nil {
		return zero, 0, fmt.Errorf("encode: %w", err)
	}
	var tree any
	if err := json.Unmarshal(b, &tree); err != nil {
		return zero, 0, fmt.Errorf("decode: %w", err)
	}
	if inputRequired(tree) {
		return zero, 0, errors.New("an input-required result (multi round-trip) is not forwarded")
	}
	if binaryHoldsValue(m, tree) {
		return zero, 0, fmt.Errorf("base64 data: %w", errUnredactable)
	}
	red, n, err := m.Redact(b)
	if err != nil {
		return zero, 0, errUnredactable
	}
	if n == 0 {
		return v, 0, nil
	}
	if !json.Valid(red) {
		return zero, n, errUnredactable
	}
	out := reflect.New(reflect.TypeOf(v)) // *T
	if err := json.Unmarshal(red, out.Interface()); err != nil {
		return zero, n, errUnredactable
	}
	got := out.Elem().Interface().(T)
	// the SDK sends got re-encoded: check that encoding, not only ours
	again, err := json.Marshal(got)
	if err != nil || m.Contains(again) {
		return zero, n, errUnredactable
	}
	return got, n, nil
}

// inputRequired reports whether a decoded result carries
// "resultType":"input_required" at its top level.
func inputRequired(tree any) bool {
	o, ok := tree.(map[string]any)
	return ok && o["resultType"] == "input_required"
}

// binaryHoldsValue reports whether any string under a "data" or "blob" key
// of tree decodes as standard base64 to bytes holding a table value.
func binaryHoldsValue(m *redact.Matcher, tree any) bool {
	switch x := tree.(type) {
	case map[string]any:
		for k, c := range x {
			if s, ok := c.(string); ok && (k == "data" || k == "blob") {
				if raw, err := base64.StdEncoding.DecodeString(s); err == nil && m.Contains(raw) {
					return true
				}
			}
			if binaryHoldsValue(m, c) {
				return true
			}
		}
	case []any:
		for _, c := range x {
			if binaryHoldsValue(m, c) {
				return true
			}
		}
	}
	return false
}

// fitsSchema reports whether structured (a tool's structuredContent after
// redaction) validates against schema (the tool's outputSchema as the
// proxy last listed it, after redaction); a schema that does not resolve
// counts as not fitting, so a result the engine might reject is withheld.
func fitsSchema(schema, structured any) bool {
	sb, err := json.Marshal(schema)
	if err != nil {
		return false
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(sb, &s); err != nil {
		return false
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		return false
	}
	ib, err := json.Marshal(structured)
	if err != nil {
		return false
	}
	var inst any
	if err := json.Unmarshal(ib, &inst); err != nil {
		return false
	}
	return rs.Validate(inst) == nil
}
