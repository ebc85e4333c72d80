package clientjson

import (
	"bytes"
	"strconv"
	"strings"
	"sync"
)

// MemoEntries bounds how many answers a Memo keeps (each holds a copy of
// the file it answered for); past it, a new file's answer is computed and
// not kept.
const MemoEntries = 4096

// Memo remembers what Merge, HooksDisabled and Registered answered for the
// bytes of a client file, so a run over a fleet whose client files are
// byte for byte alike (adopt renders them from one template) parses each
// distinct file once per question. The key is the whole question: the
// operation, the client, the file's bytes, and for Merge the wanted rows,
// the Owner and Retract; a hit is exact (the bytes are compared, not a
// digest). Answers that name the path they were given are never kept: an
// error, or a Merge with warnings, is computed anew for every call, so its
// text names the caller's path. Results are shared between callers, who
// only read them.
//
// The zero Memo is ready; a nil *Memo computes every call. It is safe for
// concurrent use.
type Memo struct {
	mu      sync.Mutex
	answers map[memoKey]any
}

// memoKey is one question: an operation, the Owner (nil for
// HooksDisabled), Retract, and text: the client, the wanted rows and the
// file's bytes, each length-prefixed.
type memoKey struct {
	op      byte
	owner   *Owner
	retract bool
	text    string
}

// key builds the question's key.
func (m *Memo) key(op byte, client string, src []byte, want []Handler, owner *Owner, retract bool) memoKey {
	var b strings.Builder
	b.Grow(len(client) + len(src) + 64*len(want) + 16)
	field := func(s string) {
		b.WriteString(strconv.Itoa(len(s)))
		b.WriteByte(':')
		b.WriteString(s)
	}
	field(client)
	b.WriteString(strconv.Itoa(len(want)))
	b.WriteByte(';')
	for _, w := range want {
		field(w.NativeEvent)
		field(w.Matcher)
		field(w.Command)
		field(w.CommandWindows)
		field(w.OnFailure)
		field(strconv.FormatFloat(w.Timeout, 'g', -1, 64))
	}
	b.Write(src)
	return memoKey{op: op, owner: owner, retract: retract, text: b.String()}
}

func (m *Memo) load(k memoKey) (any, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.answers[k]
	return v, ok
}

func (m *Memo) store(k memoKey, v any) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.answers == nil {
		m.answers = map[memoKey]any{}
	}
	if len(m.answers) < MemoEntries {
		m.answers[k] = v
	}
}

// memoMerge is a kept Merge answer: unchanged when Out was src itself.
type memoMerge struct {
	res       Result
	unchanged bool
}

// Merge is the package's Merge, answered from the Memo when the same
// question was asked before. Result.Out is src itself when the file is
// unchanged, else bytes shared with other callers.
func (m *Memo) Merge(path string, src []byte, client string, want []Handler, opts Options) (Result, error) {
	if m == nil {
		return Merge(path, src, client, want, opts)
	}
	k := m.key('m', client, src, want, opts.Owner, opts.Retract)
	if v, ok := m.load(k); ok {
		got := v.(memoMerge)
		if got.unchanged {
			got.res.Out = src
		}
		return got.res, nil
	}
	res, err := Merge(path, src, client, want, opts)
	if err == nil && len(res.Warnings) == 0 {
		m.store(k, memoMerge{res: res, unchanged: bytes.Equal(res.Out, src)})
	}
	return res, err
}

// HooksDisabled is the package's HooksDisabled, answered from the Memo
// when the same client and bytes were asked before.
func (m *Memo) HooksDisabled(path string, src []byte, client string) (bool, error) {
	if m == nil {
		return HooksDisabled(path, src, client)
	}
	k := m.key('d', client, src, nil, nil, false)
	if v, ok := m.load(k); ok {
		return v.(bool), nil
	}
	off, err := HooksDisabled(path, src, client)
	if err == nil {
		m.store(k, off)
	}
	return off, err
}

// Registered is the package's Registered, answered from the Memo when the
// same client, bytes and owner were asked before. The handlers are shared
// with other callers.
func (m *Memo) Registered(path string, src []byte, client string, owner *Owner) ([]Found, error) {
	if m == nil {
		return Registered(path, src, client, owner)
	}
	k := m.key('r', client, src, nil, owner, false)
	if v, ok := m.load(k); ok {
		return v.([]Found), nil
	}
	found, err := Registered(path, src, client, owner)
	if err == nil {
		m.store(k, found)
	}
	return found, err
}
