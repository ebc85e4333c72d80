package dialect

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// MaxInputBytes bounds the stdin the engine reads for one hook call: 1 MiB
// (issue 2, item 3). Larger input is an error, never truncated.
const MaxInputBytes = 1 << 20

// MaxDepth bounds JSON nesting of a payload, in levels (the top-level
// object is level 1); real payloads nest 3 levels. Deeper input is an error.
const MaxDepth = 64

// ErrInputTimeout is returned by ReadInputUntil when the deadline passes
// before stdin reached end of file: a client that never closes stdin cannot hold the
// hook past its budget.
var ErrInputTimeout = errors.New("stdin was not closed within the event's budget")

// ReadInputUntil reads r to end of file, at most MaxInputBytes bytes, and
// gives up at deadline (the zero time: no deadline), so that a client that
// never closes stdin cannot hold the hook past its budget (issue 2, item 3).
// It returns the bytes read, or an error: the input is larger than
// MaxInputBytes, r failed, or ErrInputTimeout (wrapped).
//
// When r is an *os.File (the hook's stdin) on a Unix system, the wait is a
// poll(2) with the time left before each read, on the calling goroutine: no
// goroutine, no runtime timer and no netpoller start-up on the hook path
// (each cost whole-process time, measured: README "Benchmarks"). Any other
// reader is read on a goroutine abandoned at the deadline; the hook process
// exits right after answering.
func ReadInputUntil(r io.Reader, deadline time.Time) ([]byte, error) {
	if deadline.IsZero() {
		return readAll(r)
	}
	if f, ok := r.(*os.File); ok {
		if data, ok, err := readFileUntil(f, deadline); ok {
			return data, err
		}
	}
	return readWatched(r, deadline)
}

// readAll reads r to end of file, refusing more than MaxInputBytes.
func readAll(r io.Reader) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxInputBytes+1))
	return checkRead(data, err)
}

func checkRead(data []byte, err error) ([]byte, error) {
	if err != nil {
		return nil, fmt.Errorf("reading stdin: %w", err)
	}
	if len(data) > MaxInputBytes {
		return nil, fmt.Errorf("stdin is larger than %d bytes", MaxInputBytes)
	}
	return data, nil
}

// readWatched reads r on a goroutine and gives up at deadline.
func readWatched(r io.Reader, deadline time.Time) ([]byte, error) {
	type result struct {
		data []byte
		err  error
	}
	ch := make(chan result, 1)
	go func() {
		data, err := io.ReadAll(io.LimitReader(r, MaxInputBytes+1))
		ch <- result{data, err}
	}()
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case res := <-ch:
		return checkRead(res.data, res.err)
	case <-t.C:
		return nil, ErrInputTimeout
	}
}

// jsonType names the JSON type of a raw member.
func jsonType(raw []byte) string {
	b := bytes.TrimLeft(raw, " \t\r\n")
	if len(b) == 0 {
		return "nothing"
	}
	switch b[0] {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// str reads member key of o as a string. present is false when the member is
// absent; a member of another type (null included) is an error naming path.
func (o object) str(key, path string) (s string, present bool, err error) {
	raw, ok := o.get(key)
	if !ok {
		return "", false, nil
	}
	if jsonType(raw) != "a string" {
		return "", true, fmt.Errorf("member %s: want a string, got %s", path, jsonType(raw))
	}
	return unquote(raw), true, nil
}

// nullableStr is str that also accepts JSON null (read as "").
func (o object) nullableStr(key, path string) (string, bool, error) {
	if raw, ok := o.get(key); ok && jsonType(raw) == "null" {
		return "", true, nil
	}
	return o.str(key, path)
}

// reqStr is str for a required member.
func (o object) reqStr(key, path string) (string, error) {
	s, ok, err := o.str(key, path)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", fmt.Errorf("member %s: missing", path)
	}
	return s, nil
}

func (o object) boolean(key, path string) (b, present bool, err error) {
	raw, ok := o.get(key)
	if !ok {
		return false, false, nil
	}
	if jsonType(raw) != "a boolean" {
		return false, true, fmt.Errorf("member %s: want a boolean, got %s", path, jsonType(raw))
	}
	return raw[0] == 't', true, nil
}

// obj reads member key as an object; present false when absent.
func (o object) obj(key, path string) (object, bool, error) {
	raw, ok := o.get(key)
	if !ok {
		return nil, false, nil
	}
	if jsonType(raw) != "an object" {
		return nil, true, fmt.Errorf("member %s: want an object, got %s", path, jsonType(raw))
	}
	return members(raw), true, nil
}

func (o object) reqObj(key, path string) (object, error) {
	sub, ok, err := o.obj(key, path)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("member %s: missing", path)
	}
	return sub, nil
}

// strArray reads member key as an array of strings; present false when absent.
func (o object) strArray(key, path string) ([]string, bool, error) {
	raw, ok := o.get(key)
	if !ok {
		return nil, false, nil
	}
	if jsonType(raw) != "an array" {
		return nil, true, fmt.Errorf("member %s: want an array, got %s", path, jsonType(raw))
	}
	items := elements(raw)
	out := make([]string, 0, len(items))
	for i, it := range items {
		if jsonType(it) != "a string" {
			return nil, true, fmt.Errorf("member %s[%d]: want a string, got %s", path, i, jsonType(it))
		}
		out = append(out, unquote(it))
	}
	return out, true, nil
}
