// Package fileowner reads who owns a file from its fs.FileInfo: one
// statement of the owner lookup that safewrite (keeping a replaced file's
// owner), the spawn compiler and the redaction hook (refusing run files and
// directories another account owns) share.
package fileowner
