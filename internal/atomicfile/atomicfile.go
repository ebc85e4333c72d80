// Package atomicfile replaces a file so that a reader sees either its old
// bytes or its new bytes, never a mix: the new bytes go into a temporary
// file created exclusively in the target's own directory, named "." + the
// target's name + decimal digits (so an interrupted write leaves a
// recognisable temporary beside the file, see safewrite.IsTemporaryOf),
// synced, and renamed over the target.
//
// On every platform but Windows the temporary file and the rename are
// github.com/google/renameio/v2's PendingFile: fsync of the file, then
// rename(2). The directory is not synced afterwards (renameio v2.0.2's
// CloseAtomicallyReplace, tempfile.go), so after a power loss the rename
// itself may be lost while the file's new bytes never appear half written. renameio/v2 has no Windows implementation (its
// tempfile.go is built "!windows"), so on Windows the temporary is
// os.CreateTemp in the same directory, synced (FlushFileBuffers) and closed,
// then renamed with github.com/rogpeppe/go-internal/robustio.Rename: that is
// os.Rename, which on Windows calls MoveFileEx with MOVEFILE_REPLACE_EXISTING
// (Go 1.26 src/os/file_windows.go rename -> src/internal/syscall/windows
// Rename), retried for up to 2 s on ERROR_ACCESS_DENIED,
// ERROR_SHARING_VIOLATION and ERROR_FILE_NOT_FOUND, the transient errors a
// virus scanner or indexer holding the file open causes (the go command's own
// workaround, golang.org/issue/31247 and 32188). os.Rename's documentation
// does not call the replace atomic on non-Unix platforms: on NTFS a reader
// still sees either the whole old file or the whole new one (the rename is
// one metadata operation of the file system), but a crash at the wrong
// moment may leave the temporary beside the file, which the next safewrite
// preflight finds and removes.
//
// What the file keeps on Windows: its name and its bytes are replaced as a
// unit; of the mode, only the read-only attribute exists there (Go maps the
// 0200 bit to FILE_ATTRIBUTE_READONLY); a read-only target is refused (an
// error wrapping fs.ErrPermission) rather than replaced: MoveFileEx refuses
// it on Windows (ERROR_ACCESS_DENIED), wine 8.0 replaces it, and the check
// before the rename makes both refuse. The new file's owner is the
// account that ran hookwarden and its ACL is the one the directory's
// inheritable entries give (the temporary is created in the same
// directory): explicit entries set on the old file alone are not carried
// over.
package atomicfile

import (
	"fmt"
	"io/fs"
)

// WriteFile replaces path with data through a Pending file whose permission
// bits are exactly perm (no umask applied). Errors wrap the os error and
// name the path.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	p, err := New(path, perm)
	if err != nil {
		return err
	}
	defer p.Cleanup()
	if _, err := p.Write(data); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := p.Replace(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
