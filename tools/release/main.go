// Command release builds hookwarden's release artefacts with one command, from
// a clone, with nothing but the Go toolchain (and npm for -pack):
//
//	go run ./tools/release [-version 0.2.0] [-out dist] [-targets linux/amd64,…] [-npm] [-pack]
//
// The version is the commit's own, internal/buildinfo/VERSION (the one
// every build of the commit reports; package buildinfo says why); -version,
// when given, must equal it, so a release cannot stamp a version a clone of
// the same commit would not report. For each target (default linux,
// darwin and windows, amd64 and arm64) it builds ./cmd/hookwarden and
// ./cmd/hookwarden-mcp-proxy with CGO_ENABLED=0 and -trimpath, and writes the
// archive hookwarden_<version>_<os>_<arch>.tar.gz (both binaries, README.md
// and LICENSE; for windows a .zip, the form Windows opens without other
// tools, with the binaries named .exe) and checksums.txt (sha256sum's format: the
// lowercase hex SHA-256, two spaces, the archive name; `sha256sum -c
// checksums.txt` checks them). Archives are reproducible: entries sorted,
// owner 0, mtime SOURCE_DATE_EPOCH (else 2000-01-01).
//
// With -npm it lays out the npm packages in <out>/npm/: `hookwarden` (a
// launcher script, bin/hookwarden.js, and one optional dependency per
// platform) and `hookwarden-<os>-<cpu>` (the binary, with npm's "os" and
// "cpu" fields so npm installs only the matching one; Windows is npm's
// "win32" and its binaries end in .exe; hookwarden-mcp-proxy
// sits beside it, where spawn exec looks for it under a redaction entry with
// MCP servers, since the launcher runs the platform binary itself), none with an install
// script: the shape of lefthook's npm packages (lefthook 2.2.1's
// package.json, minus its postinstall). With -pack it runs `npm pack` in
// each, leaving the tarballs in <out>/npm/. Nothing is published.
//
// It is a release tool, not part of the binary: it lives under internal/ so
// no other module imports it, and goreleaser was not used because `go run`
// of goreleaser v2.15.1 fetched 317 modules and had not finished compiling
// after 6 minutes on the 2-core development machine (2026-12-01, load
// average 15–25), more than a CI run can spend.
package main

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/hookwarden/hookwarden/internal/buildinfo"
)

// License is the SPDX identifier of hookwarden's license (the LICENSE file
// at the module root, which every archive and npm package carries).
const License = "MIT"

// Commands are the binaries of a release archive (./cmd/<name>); each npm
// platform package holds them all in its bin/.
var Commands = []string{"hookwarden", "hookwarden-mcp-proxy"}

// DefaultTargets are the GOOS/GOARCH pairs of a release.
var DefaultTargets = []string{"linux/amd64", "linux/arm64", "darwin/amd64", "darwin/arm64", "windows/amd64", "windows/arm64"}

//go:embed npm/hookwarden.js
var launcherJS []byte

//go:embed npm/README.md
var npmReadme []byte

// semver is a semantic version without a leading v (semver.org 2.0.0,
// the grammar's shape, not every rule).
var semver = regexp.MustCompile(`^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)

// Config is one release run. Root is the module root (the directory of
// go.mod); Out the output directory (created; an existing one is reused,
// files of the same names replaced).
type Config struct {
	Version string
	Root    string
	Out     string
	Targets []string
	NPM     bool
	Pack    bool
	// Epoch is the mtime of every archive entry.
	Epoch time.Time
	// Log receives one line per step; nil discards.
	Log io.Writer
}

// Artefacts are what a run wrote, paths absolute.
type Artefacts struct {
	Archives  []string
	Checksums string
	// NPMDirs are the npm package directories, the launcher package first.
	NPMDirs []string
	// Tarballs are the `npm pack` results, in NPMDirs order.
	Tarballs []string
}

func main() {
	var cfg Config
	var targets string
	flag.StringVar(&cfg.Version, "version", "", "the release version; must equal internal/buildinfo/VERSION (default: that version)")
	flag.StringVar(&cfg.Out, "out", "dist", "output directory")
	flag.StringVar(&targets, "targets", strings.Join(DefaultTargets, ","), "comma-separated GOOS/GOARCH pairs")
	flag.BoolVar(&cfg.NPM, "npm", false, "lay out the npm packages in OUT/npm")
	flag.BoolVar(&cfg.Pack, "pack", false, "with -npm, run npm pack in each package")
	flag.Parse()
	cfg.Targets = strings.Split(targets, ",")
	cfg.Log = os.Stderr
	cfg.Epoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	if s := os.Getenv("SOURCE_DATE_EPOCH"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			fmt.Fprintf(os.Stderr, "release: SOURCE_DATE_EPOCH %q: %v\n", s, err)
			os.Exit(2)
		}
		cfg.Epoch = time.Unix(n, 0).UTC()
	}
	root, err := os.Getwd()
	if err == nil {
		cfg.Root = root
		_, err = os.Stat(filepath.Join(root, "go.mod"))
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "release: run it from the module root: %v\n", err)
		os.Exit(2)
	}
	if _, err := Build(context.Background(), cfg); err != nil {
		fmt.Fprintf(os.Stderr, "release: %v\n", err)
		os.Exit(1)
	}
}

// Build runs one release (package doc). It returns the artefacts written,
// or the first error: an invalid version or target, a failed go build,
// npm pack or file write (each naming the target or path).
func Build(ctx context.Context, cfg Config) (*Artefacts, error) {
	cfg.Version = strings.TrimPrefix(cfg.Version, "v")
	if cfg.Version == "" {
		cfg.Version = buildinfo.Current()
	}
	if cfg.Version != buildinfo.Current() {
		return nil, fmt.Errorf("-version %s: this commit is version %s (internal/buildinfo/VERSION); write the release's version into that file and commit it, so every build of the commit reports it", cfg.Version, buildinfo.Current())
	}
	if !semver.MatchString(cfg.Version) {
		return nil, fmt.Errorf("-version %q: want a semantic version such as 1.2.3 or 1.2.3-rc.1", cfg.Version)
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	out, err := filepath.Abs(cfg.Out)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	for _, f := range []string{"README.md", "LICENSE"} {
		if _, err := os.Stat(filepath.Join(cfg.Root, f)); err != nil {
			return nil, err
		}
	}
	art := &Artefacts{}
	var sums []string
	bins := map[string]string{}
	for _, t := range cfg.Targets {
		goos, goarch, ok := strings.Cut(strings.TrimSpace(t), "/")
		if !ok || npmOS(goos) == "" || npmCPU(goarch) == "" {
			return nil, fmt.Errorf("-targets: %q: want linux, darwin or windows / amd64 or arm64", t)
		}
		name := fmt.Sprintf("hookwarden_%s_%s_%s", cfg.Version, goos, goarch)
		entries := []entry{{"README.md", filepath.Join(cfg.Root, "README.md"), 0o644}, {"LICENSE", filepath.Join(cfg.Root, "LICENSE"), 0o644}}
		for _, c := range Commands {
			bin := filepath.Join(out, name, c+exeSuffix(goos))
			fmt.Fprintf(cfg.Log, "release: building %s for %s/%s\n", c, goos, goarch)
			cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-buildvcs=false",
				"-ldflags", "-s -w", "-o", bin, "./cmd/"+c)
			cmd.Dir = cfg.Root
			cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+goos, "GOARCH="+goarch)
			if b, err := cmd.CombinedOutput(); err != nil {
				return nil, fmt.Errorf("go build %s for %s/%s: %w\n%s", c, goos, goarch, err, b)
			}
			entries = append(entries, entry{c + exeSuffix(goos), bin, 0o755})
		}
		bins[goos+"/"+goarch] = filepath.Join(out, name, "hookwarden"+exeSuffix(goos))
		archive := filepath.Join(out, name+ArchiveExt(goos))
		write := writeArchive
		if goos == "windows" {
			write = writeZip
		}
		if err := write(archive, name, cfg.Epoch, entries); err != nil {
			return nil, fmt.Errorf("%s: %w", archive, err)
		}
		sum, err := sha256File(archive)
		if err != nil {
			return nil, err
		}
		sums = append(sums, sum+"  "+filepath.Base(archive)+"\n")
		art.Archives = append(art.Archives, archive)
	}
	sort.Strings(sums)
	art.Checksums = filepath.Join(out, "checksums.txt")
	if err := os.WriteFile(art.Checksums, []byte(strings.Join(sums, "")), 0o644); err != nil {
		return nil, err
	}
	if !cfg.NPM {
		return art, nil
	}
	if err := layoutNPM(cfg, out, bins, art); err != nil {
		return nil, err
	}
	if cfg.Pack {
		for _, d := range art.NPMDirs {
			cmd := exec.CommandContext(ctx, "npm", "pack", "--silent", "--pack-destination", filepath.Dir(d))
			cmd.Dir = d
			var so, se strings.Builder
			cmd.Stdout, cmd.Stderr = &so, &se
			if err := cmd.Run(); err != nil {
				return nil, fmt.Errorf("npm pack in %s: %w\n%s", d, err, se.String())
			}
			lines := strings.Fields(so.String())
			if len(lines) == 0 {
				return nil, fmt.Errorf("npm pack in %s: no tarball named on stdout", d)
			}
			art.Tarballs = append(art.Tarballs, filepath.Join(filepath.Dir(d), lines[len(lines)-1]))
		}
	}
	return art, nil
}

// npmOS and npmCPU map Go's names to npm's ("os" and "cpu" in package.json
// are Node's process.platform and process.arch).
func npmOS(goos string) string {
	return map[string]string{"linux": "linux", "darwin": "darwin", "windows": "win32"}[goos]
}

// exeSuffix is the file name suffix of an executable on goos: ".exe" on
// windows (CreateProcess appends .exe to a name without an extension, so
// the file must carry it), "" elsewhere.
func exeSuffix(goos string) string {
	if goos == "windows" {
		return ".exe"
	}
	return ""
}

// ArchiveExt is the extension of a release archive for goos: ".zip" for
// windows (Explorer and PowerShell's Expand-Archive open it without other
// tools), ".tar.gz" elsewhere.
func ArchiveExt(goos string) string {
	if goos == "windows" {
		return ".zip"
	}
	return ".tar.gz"
}

func npmCPU(goarch string) string {
	return map[string]string{"amd64": "x64", "arm64": "arm64"}[goarch]
}

// packageJSON is the part of npm's package.json the packages use.
type packageJSON struct {
	Name                 string            `json:"name"`
	Version              string            `json:"version"`
	Description          string            `json:"description"`
	License              string            `json:"license"`
	Repository           map[string]string `json:"repository"`
	Homepage             string            `json:"homepage"`
	Bin                  map[string]string `json:"bin,omitempty"`
	Files                []string          `json:"files"`
	OS                   []string          `json:"os,omitempty"`
	CPU                  []string          `json:"cpu,omitempty"`
	Engines              map[string]string `json:"engines,omitempty"`
	OptionalDependencies map[string]string `json:"optionalDependencies,omitempty"`
	PreferUnplugged      bool              `json:"preferUnplugged,omitempty"`
}

// layoutNPM writes the launcher package and one package per built target.
func layoutNPM(cfg Config, out string, bins map[string]string, art *Artefacts) error {
	root := filepath.Join(out, "npm")
	license, err := os.ReadFile(filepath.Join(cfg.Root, "LICENSE"))
	if err != nil {
		return err
	}
	repo := map[string]string{"type": "git", "url": "git+https://github.com/hookwarden/hookwarden.git"}
	home := "https://github.com/hookwarden/hookwarden#readme"
	main := packageJSON{
		Name: "hookwarden", Version: cfg.Version,
		Description: "Governs the hooks of AI coding-agent clients across a fleet of repositories (npm launcher; the binary comes from the platform package).",
		Repository:  repo, Homepage: home, License: License,
		Bin:                  map[string]string{"hookwarden": "bin/hookwarden.js"},
		Files:                []string{"bin/"},
		Engines:              map[string]string{"node": ">=18"},
		OptionalDependencies: map[string]string{},
	}
	// Every platform of a release is an optional dependency, built here or
	// not: the launcher names them all.
	for _, t := range DefaultTargets {
		goos, goarch, _ := strings.Cut(t, "/")
		main.OptionalDependencies["hookwarden-"+npmOS(goos)+"-"+npmCPU(goarch)] = cfg.Version
	}
	mainDir := filepath.Join(root, "hookwarden")
	if err := writePackage(mainDir, main, map[string]fileBody{"bin/hookwarden.js": {launcherJS, 0o755}, "README.md": {npmReadme, 0o644}, "LICENSE": {license, 0o644}}); err != nil {
		return err
	}
	art.NPMDirs = append(art.NPMDirs, mainDir)
	keys := make([]string, 0, len(bins))
	for k := range bins {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		goos, goarch, _ := strings.Cut(k, "/")
		name := "hookwarden-" + npmOS(goos) + "-" + npmCPU(goarch)
		files := map[string]fileBody{"README.md": {npmReadme, 0o644}, "LICENSE": {license, 0o644}}
		for _, c := range Commands {
			data, err := os.ReadFile(filepath.Join(filepath.Dir(bins[k]), c+exeSuffix(goos)))
			if err != nil {
				return err
			}
			files["bin/"+c+exeSuffix(goos)] = fileBody{data, 0o755}
		}
		p := packageJSON{
			Name: name, Version: cfg.Version,
			Description: fmt.Sprintf("The %s %s binary of hookwarden, installed by the hookwarden package.", goos, goarch),
			Repository:  repo, Homepage: home, License: License,
			Files: []string{"bin/"},
			OS:    []string{npmOS(goos)}, CPU: []string{npmCPU(goarch)},
		}
		dir := filepath.Join(root, name)
		if err := writePackage(dir, p, files); err != nil {
			return err
		}
		art.NPMDirs = append(art.NPMDirs, dir)
	}
	return nil
}

type fileBody struct {
	data []byte
	mode os.FileMode
}

// writePackage writes an npm package directory afresh: package.json and
// files.
func writePackage(dir string, p packageJSON, files map[string]fileBody) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	pj, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	files["package.json"] = fileBody{append(pj, '\n'), 0o644}
	for rel, f := range files {
		full := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(full, f.data, f.mode); err != nil {
			return err
		}
		if err := os.Chmod(full, f.mode); err != nil {
			return err
		}
	}
	return nil
}

// entry is one archive member: its name, the file it is read from and its
// mode.
type entry struct {
	name, src string
	mode      int64
}

// writeArchive writes a reproducible .tar.gz of entries under the
// directory prefix.
func writeArchive(path, prefix string, mtime time.Time, entries []entry) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	gz, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
	gz.ModTime = mtime
	tw := tar.NewWriter(gz)
	sort.Slice(entries, func(i, j int) bool { return entries[i].name < entries[j].name })
	for _, e := range entries {
		data, err := os.ReadFile(e.src)
		if err != nil {
			return err
		}
		hdr := &tar.Header{Name: prefix + "/" + e.name, Mode: e.mode, Size: int64(len(data)), ModTime: mtime, Typeflag: tar.TypeReg, Format: tar.FormatPAX}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if _, err := tw.Write(data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

// writeZip writes a reproducible .zip of entries under the directory
// prefix: entries sorted, every modification time mtime, deflated, the
// Unix mode recorded in the external attributes (unzip keeps 0755).
func writeZip(path, prefix string, mtime time.Time, entries []entry) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	zw := zip.NewWriter(f)
	sort.Slice(entries, func(i, j int) bool { return entries[i].name < entries[j].name })
	for _, e := range entries {
		data, err := os.ReadFile(e.src)
		if err != nil {
			return err
		}
		hdr := &zip.FileHeader{Name: prefix + "/" + e.name, Method: zip.Deflate, Modified: mtime}
		hdr.SetMode(os.FileMode(e.mode))
		w, err := zw.CreateHeader(hdr)
		if err != nil {
			return err
		}
		if _, err := w.Write(data); err != nil {
			return err
		}
	}
	return zw.Close()
}

// sha256File returns the lowercase hex SHA-256 of a file.
func sha256File(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
