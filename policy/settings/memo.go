package settings

import (
	"encoding/binary"
	"errors"
	"path/filepath"

	"github.com/hookwarden/hookwarden/internal/filememo"
)

// memoFormat names the encoding of a memoised File (appendFile). Keys also
// hold the executable's identity, so a build never reads another build's
// entries; the format name guards the encoding all the same.
const memoFormat = "hookwarden settings.File binary/1"

// memo skips the YAML parse of a settings file already parsed by this
// executable: the parsed File is kept in a filememo.Store under a key made of
// memoFormat, the executable's identity, the repo flag and the file's exact
// bytes. Only files that parse are kept, so every error is Parse's own, with
// its line, on every call. The zero memo parses every time.
type memo struct {
	store filememo.Store
	exe   []byte
}

// newMemo returns the memo of cacheDir ("" or an executable that cannot be
// identified: the zero memo, which parses every time).
func newMemo(cacheDir string) memo {
	if cacheDir == "" {
		return memo{}
	}
	exe, err := filememo.ExecutableIdentity()
	if err != nil {
		return memo{}
	}
	return memo{store: filememo.Store{Dir: filepath.Join(cacheDir, "settings")}, exe: exe}
}

// parse returns Parse(data, repo), from the store when this executable has
// parsed the same bytes before. An entry that does not decode is a miss. A
// failed write is dropped: the entry is an optimisation, and the next call
// parses again.
func (m memo) parse(data []byte, repo bool) (File, error) {
	if m.exe == nil {
		return Parse(data, repo)
	}
	flag := []byte{'0'}
	if repo {
		flag[0] = '1'
	}
	k := filememo.KeyOf([]byte(memoFormat), m.exe, flag, data)
	if v, ok := m.store.Get(k); ok {
		if f, err := decodeFile(v); err == nil {
			return f, nil
		}
	}
	f, err := Parse(data, repo)
	if err != nil {
		return File{}, err
	}
	_ = m.store.Put(k, appendFile(nil, f))
	return f, nil
}

// appendFile appends the memo encoding of f to b: every field in declaration
// order; an int as a signed varint; a string as its length (uvarint) and
// bytes; a list as 0 for nil, else 1 + its length, then its elements; an
// optional value as 0 for nil, else 1 and the value (a bool as 0 or 1).
// Reflection-free on purpose: encoding/json's first Unmarshal in a process
// cost about 0.1 ms, more than the parse it would save.
func appendFile(b []byte, f File) []byte {
	b = binary.AppendVarint(b, int64(f.Version))
	b = appendStrings(b, f.Clients)
	b = appendStrings(b, f.Decline)
	b = appendString(b, f.Hooks.Scope)
	b = appendStrings(b, f.Hooks.Events)
	b = appendStrings(b, f.Deny)
	if f.DenyLines == nil {
		b = append(b, 0)
	} else {
		b = binary.AppendUvarint(b, uint64(len(f.DenyLines))+1)
		for _, n := range f.DenyLines {
			b = binary.AppendVarint(b, int64(n))
		}
	}
	b = appendOptInt(b, f.Checkpoint.CommitAfterMinutes)
	b = appendOptInt(b, f.Checkpoint.CommitAfterFiles)
	switch {
	case f.Checkpoint.OnStop == nil:
		b = append(b, 0)
	case *f.Checkpoint.OnStop:
		b = append(b, 1, 1)
	default:
		b = append(b, 1, 0)
	}
	return b
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

func appendStrings(b []byte, l []string) []byte {
	if l == nil {
		return append(b, 0)
	}
	b = binary.AppendUvarint(b, uint64(len(l))+1)
	for _, s := range l {
		b = appendString(b, s)
	}
	return b
}

func appendOptInt(b []byte, p *int) []byte {
	if p == nil {
		return append(b, 0)
	}
	return binary.AppendVarint(append(b, 1), int64(*p))
}

// errMemo is the one error of decodeFile: the entry is not an appendFile
// encoding (truncated, trailing bytes, a count past the data).
var errMemo = errors.New("settings memo: malformed entry")

// decodeFile is the inverse of appendFile. It returns errMemo unless b is
// exactly one encoding.
func decodeFile(b []byte) (File, error) {
	d := memoDecoder{b: b}
	var f File
	f.Version = d.int()
	f.Clients = d.strings()
	f.Decline = d.strings()
	f.Hooks.Scope = d.string()
	f.Hooks.Events = d.strings()
	f.Deny = d.strings()
	if n := d.count(); n > 0 {
		f.DenyLines = make([]int, 0, n-1)
		for range n - 1 {
			f.DenyLines = append(f.DenyLines, d.int())
		}
	}
	f.Checkpoint.CommitAfterMinutes = d.optInt()
	f.Checkpoint.CommitAfterFiles = d.optInt()
	if d.flag() {
		v := d.flag()
		f.Checkpoint.OnStop = &v
	}
	if d.bad || len(d.b) != 0 {
		return File{}, errMemo
	}
	return f, nil
}

// memoDecoder reads appendFile's encoding; after the first malformed read bad
// is set and every later read returns a zero value.
type memoDecoder struct {
	b   []byte
	bad bool
}

func (d *memoDecoder) uint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.bad, d.b = true, nil
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *memoDecoder) int() int {
	v, n := binary.Varint(d.b)
	if n <= 0 || int64(int(v)) != v {
		d.bad, d.b = true, nil
		return 0
	}
	d.b = d.b[n:]
	return int(v)
}

// count reads a list header: 0 for nil, else 1 + a length no larger than
// the bytes left (every element takes at least one byte).
func (d *memoDecoder) count() int {
	n := d.uint()
	if n > uint64(len(d.b))+1 {
		d.bad, d.b = true, nil
		return 0
	}
	return int(n)
}

func (d *memoDecoder) string() string {
	n := d.uint()
	if n > uint64(len(d.b)) {
		d.bad, d.b = true, nil
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

func (d *memoDecoder) strings() []string {
	n := d.count()
	if n == 0 {
		return nil
	}
	l := make([]string, 0, n-1)
	for range n - 1 {
		l = append(l, d.string())
	}
	return l
}

func (d *memoDecoder) flag() bool {
	if len(d.b) == 0 || d.b[0] > 1 {
		d.bad, d.b = true, nil
		return false
	}
	v := d.b[0] == 1
	d.b = d.b[1:]
	return v
}

func (d *memoDecoder) optInt() *int {
	if !d.flag() {
		return nil
	}
	v := d.int()
	return &v
}
