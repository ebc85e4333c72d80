// Package record implements record mode: with `record.dir` set in the
// operator's fleet or workstation settings (never the environment or a
// repository file, which an agent can write), the engine saves the raw
// stdin of each hook call to a new file and then judges the call as usual,
// so payloads of a new client version can be captured and added to
// testdata/clients/ without letting any call through.
package record

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/hookwarden/hookwarden/internal/atomicfile"
)

// Modes of what record mode creates.
const (
	// DirMode is the mode of a record directory record mode creates.
	DirMode fs.FileMode = 0o700
	// FileMode is the mode of every recorded payload file.
	FileMode fs.FileMode = 0o600
)

// stampLayout is the UTC time stamp in file names, to the nanosecond so the
// files sort in call order.
const stampLayout = "20060102T150405.000000000Z"

// FileName returns the name of a recorded payload:
// "<client>-<event>-<UTC stamp>-<16 hex digits>.json", e.g.
// "claude-pre-tool-20261129T193237.809000000Z-9f1c0be0c0224cb4.json".
// random supplies the 8 random bytes; it returns an error only when random
// fails.
func FileName(client, event string, now time.Time, random io.Reader) (string, error) {
	var b [8]byte
	if _, err := io.ReadFull(random, b[:]); err != nil {
		return "", fmt.Errorf("record: random name: %w", err)
	}
	return fmt.Sprintf("%s-%s-%s-%s.json", client, event, now.UTC().Format(stampLayout), hex.EncodeToString(b[:])), nil
}

// Write saves data as one new file in dir (created with DirMode when
// missing), written atomically through a temporary file and a rename in dir
// (internal/atomicfile), mode FileMode regardless of umask. It never replaces an
// existing file. It returns the path written, or an error naming dir or the
// file.
func Write(dir, client, event string, data []byte, now time.Time) (string, error) {
	if dir == "" {
		return "", errors.New("record: empty record directory")
	}
	if err := os.MkdirAll(dir, DirMode); err != nil {
		return "", fmt.Errorf("record: %s: %w", dir, err)
	}
	st, err := os.Stat(dir)
	if err != nil {
		return "", fmt.Errorf("record: %s: %w", dir, err)
	}
	if !st.IsDir() {
		return "", fmt.Errorf("record: %s: not a directory", dir)
	}
	for attempt := 0; attempt < 4; attempt++ {
		name, err := FileName(client, event, now, rand.Reader)
		if err != nil {
			return "", err
		}
		path := filepath.Join(dir, name)
		if _, err := os.Lstat(path); err == nil {
			continue
		}
		if err := atomicfile.WriteFile(path, data, FileMode); err != nil {
			return "", fmt.Errorf("record: %s: %w", path, err)
		}
		return path, nil
	}
	return "", fmt.Errorf("record: %s: no free file name", dir)
}
