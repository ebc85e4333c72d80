// Package buildinfo names the hookwarden version compiled into this binary.
package buildinfo

// Version is the hookwarden version string (semantic version). Rendered files
// carry it in their header; `hookwarden --version` prints it. Release builds may
// override it with -ldflags "-X github.com/hookwarden/hookwarden/internal/buildinfo.Version=…".
var Version = "0.1.0"
