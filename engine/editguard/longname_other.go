//go:build !windows

package editguard

// longName is the identity outside Windows, which has no short names.
func longName(p string) string { return p }

// win32Component is the identity outside Windows, where a trailing dot or
// space is part of a file's name.
func win32Component(c string) string { return c }
