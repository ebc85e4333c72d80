package spawn

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"

	"github.com/hookwarden/hookwarden/internal/regread"
)

// MaxHomeFileBytes bounds every JSON or TOML file the compiler reads: the
// registry, library, approvals store, layers, requirement, a caller's
// --settings file, a Codex project layer's config.toml and the version
// cache. A larger file is refused (it is read as unreadable), never
// truncated.
const MaxHomeFileBytes = 4 << 20

// maxDigestBytes bounds the bytes hashed for a pinned file or an approved
// executable (a regular file is finite; the bound keeps a sparse file of
// terabytes from holding a spawn).
const maxDigestBytes = 2 << 30

// readSmall returns the bytes of the regular file at path, at most
// MaxHomeFileBytes: a FIFO, socket, device or directory is refused at once
// without blocking (internal/regread opens it non-blocking and fstats it).
// Errors are *fs.PathError naming path; absence satisfies
// errors.Is(err, fs.ErrNotExist).
func readSmall(path string) ([]byte, error) {
	return regread.File(path, MaxHomeFileBytes)
}

// fileDigest returns "sha256:<hex>" of the regular file at path. The file is
// opened non-blocking and fstat'ed before a byte is read, so a FIFO or a
// device put in its place is an error, not a spawn that waits forever; a
// file larger than 2 GiB is an error.
func fileDigest(path string) (string, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "", err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%s: %w", path, regread.ErrNotRegular)
	}
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(f, maxDigestBytes+1))
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	if n > maxDigestBytes {
		return "", fmt.Errorf("%s: larger than %d bytes", path, int64(maxDigestBytes))
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// writableByOthers reports the first path, among path itself and every
// directory above it up to the root (for the path as written and, when it
// differs, for its real path with every symbolic link resolved), that
// someone other than its owner could use to change what path holds: a file
// or directory with group or other write permission (a directory with the
// sticky bit, such as /tmp, excepted, since others cannot rename or remove
// entries they do not own there), or one owned by an account that is
// neither this process's nor root. A path that cannot be examined counts
// as writable by others, so an unreadable ancestor refuses rather than
// passes.
func writableByOthers(path string) (string, bool) {
	chains := [][]string{ancestry(path)}
	if real, err := filepath.EvalSymlinks(path); err == nil && real != filepath.Clean(path) {
		chains = append(chains, ancestry(real))
	}
	for _, chain := range chains {
		for i, p := range chain {
			fi, err := os.Stat(p)
			if err != nil {
				if i == 0 && os.IsNotExist(err) {
					continue // the file itself may be absent (an optional store)
				}
				return p, true
			}
			m := fi.Mode()
			if m.Perm()&0o022 != 0 && !(m.IsDir() && m&os.ModeSticky != 0) {
				return p, true
			}
			if foreignOwner(fi) {
				return p, true
			}
		}
	}
	return "", false
}

// ancestry returns the cleaned absolute path and each of its parent
// directories up to the root, nearest first.
func ancestry(path string) []string {
	p := filepath.Clean(path)
	out := []string{p}
	for {
		d := filepath.Dir(p)
		if d == p {
			return out
		}
		out = append(out, d)
		p = d
	}
}
