package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"

	"github.com/pierhq/pier/host/diag"
	"github.com/pierhq/pier/host/hcldepth"
	"github.com/pierhq/pier/host/hclsource"
)

// This file renders the error a command returned, once, for a person (on
// stderr, configuration errors with their source lines underlined) or for
// a program (--json: one message_type "diagnostic" line per problem on
// stdout, as Terraform's -json streams them). What the problems are is
// host/diag's to say, for the RPC service as for the CLI.

// reportError renders err once: as diagnostics on stdout with --json,
// otherwise on stderr, configuration errors with their source lines.
func reportError(err error, o runFlags, stdout, stderr io.Writer) {
	if !printable(err) {
		return
	}
	if errors.Is(err, hclsource.ErrNoFiles) {
		err = fmt.Errorf("%w; for a Nix deployment give --flake REF (a flake.nix in the directory is used without it) or --file nixops4.nix", err)
	}
	diags := diag.FromError(err, o.verbose)
	if o.json {
		for _, d := range diags {
			writeDiagnostic(stdout, d)
		}
		return
	}
	var de *hclsource.DiagnosticsError
	files := map[string]*hcl.File{}
	if errors.As(err, &de) {
		files = de.Files
	}
	for _, d := range diags {
		if d.Range == nil {
			line := d.Summary
			if d.Detail != "" {
				line += ": " + d.Detail
			}
			fmt.Fprintln(stderr, "pier: "+line)
			continue
		}
		hd := d.HCL()
		if _, ok := files[hd.Subject.Filename]; !ok {
			loadFile(files, hd.Subject.Filename)
		}
		if f := files[hd.Subject.Filename]; f != nil && hd.Subject.Start.Byte == 0 {
			// A position known only by line and column (tfschema's).
			hd.Subject.Start.Byte = byteOffset(f.Bytes, hd.Subject.Start)
			hd.Subject.End.Byte = byteOffset(f.Bytes, hd.Subject.End)
		}
		writeSnippet(stderr, hd, files[hd.Subject.Filename], o.colour)
	}
}

// writeDiagnostic writes one diagnostic as a --json line.
func writeDiagnostic(stdout io.Writer, d diag.Diagnostic) {
	writeJSONLine(stdout, struct {
		MessageType string `json:"message_type"`
		diag.Diagnostic
	}{"diagnostic", d})
}

// loadFile parses a deployment file for its snippet; a file that cannot
// be read just has none.
func loadFile(files map[string]*hcl.File, name string) {
	src, err := os.ReadFile(name)
	if err != nil {
		return
	}
	if hcldepth.Check(src, name).HasErrors() {
		files[name] = &hcl.File{Bytes: src} // parsing it would exhaust the stack
		return
	}
	p := hclparse.NewParser()
	var f *hcl.File
	if strings.HasSuffix(name, ".json") {
		f, _ = p.ParseJSON(src, name)
	} else {
		f, _ = p.ParseHCL(src, name)
	}
	if f != nil {
		files[name] = f
	}
}

// byteOffset finds a line and column's byte offset in src.
func byteOffset(src []byte, p hcl.Pos) int {
	line, off := 1, 0
	for off < len(src) && line < p.Line {
		if src[off] == '\n' {
			line++
		}
		off++
	}
	return min(off+p.Column-1, len(src))
}

// writeSnippet renders a diagnostic with a range as Terraform does, the
// source line under its heading and the range underlined with carets (in
// colour on a terminal):
//
//	Error: Unknown provider
//
//	  on main.pier.hcl line 3, in resource "a":
//	   3:   provider = provider.nope
//	                   ^^^^^^^^^^^^^
//
//	no provider "nope" is declared.
func writeSnippet(w io.Writer, d *hcl.Diagnostic, f *hcl.File, colour bool) {
	head, code := "Error: ", sgrRed
	if d.Severity == hcl.DiagWarning {
		head, code = "Warning: ", sgrYellow
	}
	fmt.Fprintf(w, "%s%s\n\n", paint(colour, code+sgrBold, head), paint(colour, sgrBold, d.Summary))
	r := d.Subject
	name := displayPath(r.Filename)
	where := ""
	if f != nil {
		if cs, ok := f.Nav.(interface{ ContextString(int) string }); ok {
			if c := cs.ContextString(r.Start.Byte); c != "" {
				where = ", in " + c
			}
		}
	}
	// file:line:col, which editors and terminals open at the place.
	fmt.Fprintf(w, "  on %s:%d:%d%s:\n", name, r.Start.Line, r.Start.Column, where)
	if f != nil {
		lines := strings.Split(string(f.Bytes), "\n")
		if r.Start.Line >= 1 && r.Start.Line <= len(lines) {
			line := strings.TrimRight(lines[r.Start.Line-1], "\r")
			prefix := fmt.Sprintf("  %3d: ", r.Start.Line)
			fmt.Fprintf(w, "%s%s\n", prefix, line)
			start := max(r.Start.Column-1, 0)
			end := len(line)
			if r.End.Line == r.Start.Line {
				end = min(max(r.End.Column-1, start+1), len(line))
			}
			if start < len(line) {
				pad := strings.Map(func(c rune) rune {
					if c == '\t' {
						return '\t'
					}
					return ' '
				}, line[:start])
				fmt.Fprintf(w, "%s%s%s\n", strings.Repeat(" ", len(prefix)), pad, paint(colour, code, strings.Repeat("^", max(end-start, 1))))
			}
		}
	}
	if d.Detail != "" {
		fmt.Fprintf(w, "\n%s\n", d.Detail)
	}
	fmt.Fprintln(w)
}

// displayPath shows a file under the working directory relative to it.
func displayPath(name string) string {
	wd, err := os.Getwd()
	if err != nil {
		return name
	}
	if rel, err := filepath.Rel(wd, name); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return name
}
