package audit

import (
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"path"
	"path/filepath"
	"strings"
)

// WriteJSON writes the report as one indented JSON document in the schema
// of the package doc (schema_version 1), without HTML escaping.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteText writes the human report, grouped by repository: a heading line
// per repository ("<path>: clean" or "<path>: N findings (…)"), then one
// block per finding — severity, ID, file:line, message, and the fix — and a
// closing summary line.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	for _, repo := range r.Repositories {
		var e, wa, n int
		for _, f := range repo.Findings {
			switch f.Severity {
			case Error:
				e++
			case Warning:
				wa++
			default:
				n++
			}
		}
		if repo.Plan != nil {
			fmt.Fprintf(&b, "%s: ", repo.Path)
			writePlan(&b, repo.Plan)
		}
		if len(repo.Findings) == 0 {
			fmt.Fprintf(&b, "%s: clean\n", repo.Path)
			continue
		}
		fmt.Fprintf(&b, "%s: %s (%s, %s, %s)\n", repo.Path, plural(len(repo.Findings), "finding"), plural(e, "error"), plural(wa, "warning"), plural(n, "note"))
		for _, f := range repo.Findings {
			fmt.Fprintf(&b, "  %-7s %s  %s\n", f.Severity, f.ID, f.location())
			fmt.Fprintf(&b, "          %s\n", f.Message)
			fmt.Fprintf(&b, "          fix: %s\n", f.Fix)
		}
	}
	// On a fleet, the repositories to act on, each with its first error.
	if len(r.Repositories) > 1 && r.Summary.Errors > 0 {
		b.WriteString("failing repositories:\n")
		for _, repo := range r.Repositories {
			for _, f := range repo.Findings {
				if f.Severity == Error {
					fmt.Fprintf(&b, "  %s: %s %s: %s\n", repo.Path, f.ID, f.location(), f.Message)
					break
				}
			}
		}
	}
	s := r.Summary
	fmt.Fprintf(&b, "audit: %s, %d clean; %s, %s, %s\n", plural(s.Repositories, "repository"), s.Clean, plural(s.Errors, "error"), plural(s.Warnings, "warning"), plural(s.Notes, "note"))
	_, err := io.WriteString(w, b.String())
	return err
}

// location is where the text report puts a finding: its file relative to
// the repository root, "." for the repository itself (an empty File), and
// ":LINE" when Line is set.
func (f Finding) location() string {
	loc := f.File
	if loc == "" {
		loc = "."
	}
	if f.Line > 0 {
		loc += fmt.Sprintf(":%d", f.Line)
	}
	return loc
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	if strings.HasSuffix(word, "y") {
		return fmt.Sprintf("%d %sies", n, strings.TrimSuffix(word, "y"))
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// SARIF 2.1.0 document types: only the members this report fills.
type (
	sarifLog struct {
		Schema  string     `json:"$schema"`
		Version string     `json:"version"`
		Runs    []sarifRun `json:"runs"`
	}
	sarifRun struct {
		Tool    sarifTool     `json:"tool"`
		Results []sarifResult `json:"results"`
	}
	sarifTool struct {
		Driver sarifDriver `json:"driver"`
	}
	sarifDriver struct {
		Name           string      `json:"name"`
		Version        string      `json:"version,omitempty"`
		InformationURI string      `json:"informationUri,omitempty"`
		Rules          []sarifRule `json:"rules"`
	}
	sarifText struct {
		Text string `json:"text"`
	}
	sarifRule struct {
		ID                   string       `json:"id"`
		Name                 string       `json:"name"`
		ShortDescription     sarifText    `json:"shortDescription"`
		FullDescription      sarifText    `json:"fullDescription"`
		Help                 sarifText    `json:"help"`
		DefaultConfiguration sarifDefault `json:"defaultConfiguration"`
	}
	sarifDefault struct {
		Level string `json:"level"`
	}
	sarifResult struct {
		RuleID    string          `json:"ruleId"`
		RuleIndex int             `json:"ruleIndex"`
		Level     string          `json:"level"`
		Message   sarifText       `json:"message"`
		Locations []sarifLocation `json:"locations"`
	}
	sarifLocation struct {
		PhysicalLocation sarifPhysical `json:"physicalLocation"`
	}
	sarifPhysical struct {
		ArtifactLocation sarifArtifact `json:"artifactLocation"`
		Region           *sarifRegion  `json:"region,omitempty"`
	}
	sarifArtifact struct {
		URI       string `json:"uri"`
		URIBaseID string `json:"uriBaseId,omitempty"`
	}
	sarifRegion struct {
		StartLine int `json:"startLine"`
	}
)

// SARIFSchema is the $schema URI written into SARIF output (the OASIS SARIF
// 2.1.0 schema, errata 01).
const SARIFSchema = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

// WriteSARIF writes the report as a SARIF 2.1.0 log: one run whose driver
// "hookwarden" lists every rule of Rules (id, name, descriptions, help,
// default level), and one result per finding with its ruleId, level,
// message (the finding's message and fix) and a physicalLocation. With one
// repository the artifactLocation uri is the file relative to the
// repository root (uriBaseId %SRCROOT%, as code scanning expects when the
// audit runs at the checkout root); with several it is the repository's
// path as given joined with the file (a file: URI when that is absolute).
// URIs are percent-encoded. A finding about the repository as a whole points
// at .hookwarden.yaml; one about a file outside the repository (an operator
// settings layer) at its file: URI; a finding without a line has no region.
func (r *Report) WriteSARIF(w io.Writer) error {
	run := sarifRun{Tool: sarifTool{Driver: sarifDriver{Name: "hookwarden", Version: r.Version,
		InformationURI: "https://github.com/hookwarden/hookwarden"}}, Results: []sarifResult{}}
	index := map[string]int{}
	for i, rule := range rules {
		index[rule.ID] = i
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRule{
			ID: rule.ID, Name: ruleName(rule.ID),
			ShortDescription:     sarifText{rule.Summary},
			FullDescription:      sarifText{rule.Help},
			Help:                 sarifText{rule.Help},
			DefaultConfiguration: sarifDefault{string(rule.Severity)},
		})
	}
	single := len(r.Repositories) == 1
	for _, repo := range r.Repositories {
		for _, f := range repo.Findings {
			file := f.File
			if file == "" {
				file = ".hookwarden.yaml"
			}
			p := filepath.ToSlash(file)
			if !single && !filepath.IsAbs(file) {
				p = path.Join(filepath.ToSlash(repo.Path), p)
			}
			loc := sarifPhysical{ArtifactLocation: artifact(p)}
			if f.Line > 0 {
				loc.Region = &sarifRegion{StartLine: f.Line}
			}
			msg := f.Message
			if !strings.HasSuffix(msg, ".") {
				msg += "."
			}
			msg += " Fix: " + f.Fix
			if !single {
				msg = repo.Path + ": " + msg
			}
			run.Results = append(run.Results, sarifResult{RuleID: f.ID, RuleIndex: index[f.ID], Level: string(f.Severity),
				Message: sarifText{msg}, Locations: []sarifLocation{{PhysicalLocation: loc}}})
		}
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(sarifLog{Schema: SARIFSchema, Version: "2.1.0", Runs: []sarifRun{run}})
}

// artifact returns the SARIF artifactLocation of slash path p: an absolute
// path as a file URI, a relative one as a percent-encoded URI reference
// against %SRCROOT%.
func artifact(p string) sarifArtifact {
	if strings.HasPrefix(p, "/") || filepath.IsAbs(filepath.FromSlash(p)) {
		if !strings.HasPrefix(p, "/") {
			p = "/" + p // a Windows drive path: file:///C:/...
		}
		return sarifArtifact{URI: (&url.URL{Scheme: "file", Path: p}).String()}
	}
	return sarifArtifact{URI: (&url.URL{Path: p}).String(), URIBaseID: "%SRCROOT%"}
}

// ruleName turns a kebab-case ID into the PascalCase name SARIF viewers show.
func ruleName(id string) string {
	var b strings.Builder
	for _, p := range strings.Split(id, "-") {
		if p != "" {
			b.WriteString(strings.ToUpper(p[:1]) + p[1:])
		}
	}
	return b.String()
}
