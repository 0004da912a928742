package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"

	"github.com/pierhq/pier/host/engine"
	"github.com/pierhq/pier/host/hcldepth"
	"github.com/pierhq/pier/host/hclsource"
	"github.com/pierhq/pier/host/provider"
	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/host/tfschema"
	"github.com/pierhq/pier/schema"
)

// This file renders the error a command returned, once, for a person (on
// stderr, configuration errors with their source lines underlined) or for
// a program (--json: one message_type "diagnostic" line per problem on
// stdout, as Terraform's -json streams them).

// diagnostic is one problem as pier reports it.
type diagnostic struct {
	Severity string     `json:"severity"` // "error" or "warning"
	Summary  string     `json:"summary"`
	Detail   string     `json:"detail,omitempty"`
	Range    *diagRange `json:"range,omitempty"`
	Address  string     `json:"address,omitempty"`  // the resource, when there is one
	Provider string     `json:"provider,omitempty"` // the provider, when there is one
}

// diagRange is a source range in Terraform's -json shape.
type diagRange struct {
	Filename string  `json:"filename"`
	Start    diagPos `json:"start"`
	End      diagPos `json:"end"`
}

type diagPos struct {
	Line   int `json:"line"`
	Column int `json:"column"`
	Byte   int `json:"byte"`
}

// diagnoser is an error that knows its own diagnostic.
type diagnoser interface{ diagnostic() diagnostic }

// diagnosticsOf splits err into the problems it holds: every HCL
// diagnostic of a configuration error, every resource that failed, every
// joined error. verbose keeps the protocol detail (request names,
// executables) that a user does not need to see.
func diagnosticsOf(err error, verbose bool) []diagnostic {
	var out []diagnostic
	var walk func(error)
	walk = func(err error) {
		if m, ok := err.(interface{ Unwrap() []error }); ok {
			for _, e := range m.Unwrap() {
				walk(e)
			}
			return
		}
		if err == context.Canceled {
			out = append(out, diagnostic{Severity: "error", Summary: "interrupted"})
			return
		}
		var dg diagnoser
		if errors.As(err, &dg) {
			out = append(out, dg.diagnostic())
			return
		}
		var de *hclsource.DiagnosticsError
		var re *engine.ResourceError
		var ie *tfschema.InputError
		var pe *engine.DiagnosticError
		var pd *engine.PreventDestroyError
		var me *engine.MoveError
		switch {
		case errors.As(err, &me):
			out = append(out, diagnostic{Severity: "error", Summary: "Cannot move " + me.From.String() + " to " + me.To.String(), Detail: me.Reason + ".", Address: me.From.String(), Range: pointRange(me.Range)})
		case errors.As(err, &pe):
			out = append(out, providerDiagnostic(pe))
		case errors.As(err, &pd):
			out = append(out, diagnostic{Severity: "error", Summary: "Instance cannot be " + map[string]string{"destroy": "destroyed", "replace": "replaced"}[pd.Verb], Detail: pd.Detail(), Address: pd.Address, Range: pointRange(pd.Range)})
		case errors.As(err, &de):
			for _, d := range de.Diagnostics {
				out = append(out, fromHCL(d))
			}
		case errors.As(err, &re):
			out = append(out, resourceDiagnostic(re, verbose))
		case errors.As(err, &ie):
			d := diagnostic{Severity: "error", Summary: "Unknown input", Detail: ie.Error(), Address: ie.Resource, Provider: ie.Provider}
			if ie.Attribute == "" {
				d.Summary = "Unknown resource type"
			}
			if ie.Range.Filename != "" {
				d.Detail = strings.TrimPrefix(d.Detail, ie.Range.String()+": ")
				p := diagPos{Line: ie.Range.Line, Column: ie.Range.Column}
				d.Range = &diagRange{Filename: ie.Range.Filename, Start: p, End: diagPos{Line: p.Line, Column: p.Column + 1}}
			}
			out = append(out, d)
		default:
			out = append(out, diagnostic{Severity: "error", Summary: err.Error()})
		}
	}
	walk(err)
	// A mistake reached by many evaluations (a local read by many
	// instances, say) is one mistake: say it once.
	seen := map[string]bool{}
	uniq := out[:0]
	for _, d := range out {
		key := d.Severity + "\x00" + d.Summary + "\x00" + d.Detail + "\x00" + d.Address
		if d.Range != nil {
			key += fmt.Sprintf("\x00%s:%d:%d", d.Range.Filename, d.Range.Start.Line, d.Range.Start.Column)
		}
		if !seen[key] {
			seen[key] = true
			uniq = append(uniq, d)
		}
	}
	return uniq
}

func fromHCL(d *hcl.Diagnostic) diagnostic {
	out := diagnostic{Severity: "error", Summary: d.Summary, Detail: d.Detail}
	if d.Severity == hcl.DiagWarning {
		out.Severity = "warning"
	}
	if d.Subject != nil {
		r := d.Subject
		out.Range = &diagRange{
			Filename: r.Filename,
			Start:    diagPos{r.Start.Line, r.Start.Column, r.Start.Byte},
			End:      diagPos{r.End.Line, r.End.Column, r.End.Byte},
		}
	}
	return out
}

// providerDiagnostic is a provider's own diagnostic about a change found
// at plan (a preview's, or the Terraform provider's validation), at the
// input it names, saying which resource and provider it is about.
func providerDiagnostic(e *engine.DiagnosticError) diagnostic {
	d := diagnostic{Severity: "error", Summary: e.Diagnostic.Summary, Address: e.Resource, Provider: e.Provider, Range: pointRange(e.Range)}
	if e.Diagnostic.Severity == schema.SeverityWarning {
		d.Severity = "warning"
	}
	detail := fmt.Sprintf("resource %s (provider %s)", e.Resource, e.Provider)
	if len(e.Diagnostic.Attribute) > 0 {
		detail += fmt.Sprintf(": input %s", e.Diagnostic.Attribute)
	}
	switch {
	case e.Diagnostic.Detail != "":
		detail += ": " + e.Diagnostic.Detail
	case e.Diagnostic.Summary != "":
		// A Terraform provider's diagnostics often say it all in the
		// summary; the line under the snippet still says it.
		detail += ": " + e.Diagnostic.Summary
	}
	if e.Others > 0 {
		detail += fmt.Sprintf("; %d more instances of this resource have it too", e.Others)
	}
	d.Detail = detail
	return d
}

// pointRange is a file:line:col position as a one-character range, or
// nil for none.
func pointRange(r source.Range) *diagRange {
	if r.Filename == "" {
		return nil
	}
	p := diagPos{Line: r.Line, Column: r.Column}
	return &diagRange{Filename: r.Filename, Start: p, End: diagPos{Line: p.Line, Column: p.Column + 1}}
}

// resourceDiagnostic says what failed in the user's words, naming the
// resource and the provider: "create of out (provider journal) failed:
// disk full". The provider's executable and the protocol request
// appear only with --verbose.
func resourceDiagnostic(re *engine.ResourceError, verbose bool) diagnostic {
	d := diagnostic{
		Severity: "error",
		Summary:  fmt.Sprintf("%s of %s failed", re.Action, re.Address),
		Address:  re.Address,
		Provider: re.Provider,
	}
	if re.Provider != "" {
		d.Summary = fmt.Sprintf("%s of %s (provider %s) failed", re.Action, re.Address, re.Provider)
	}
	var resp *provider.ResponseError
	var perr *provider.Error
	switch {
	case verbose:
		d.Detail = re.Err.Error()
	case errors.As(re.Err, &resp):
		d.Detail = resp.Message
	case errors.As(re.Err, &perr):
		// The transport failure itself, with the provider's stderr tail
		// and hint, without the request's protocol name.
		full := perr.Error()
		if i := strings.Index(full, ": "+perr.Err.Error()); i >= 0 {
			full = full[i+2:]
		}
		d.Detail = full
	default:
		d.Detail = re.Err.Error()
	}
	var kept *engine.IntentKeptError
	if !verbose && errors.As(re.Err, &kept) && !strings.Contains(d.Detail, kept.Note()) {
		d.Detail += "\n" + kept.Note()
	}
	var unrecorded *engine.UnrecordedError
	if !verbose && errors.As(re.Err, &unrecorded) && !strings.Contains(d.Detail, unrecorded.Note()) {
		d.Detail += " " + unrecorded.Note()
	}
	return d
}

// reportError renders err once: as diagnostics on stdout with --json,
// otherwise on stderr, configuration errors with their source lines.
func reportError(err error, o runFlags, stdout, stderr io.Writer) {
	if !printable(err) {
		return
	}
	if errors.Is(err, hclsource.ErrNoFiles) {
		err = fmt.Errorf("%w; for a Nix deployment give --flake REF (a flake.nix in the directory is used without it) or --file nixops4.nix", err)
	}
	diags := diagnosticsOf(err, o.verbose)
	if o.json {
		for _, d := range diags {
			writeJSONLine(stdout, struct {
				MessageType string `json:"message_type"`
				diagnostic
			}{"diagnostic", d})
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
		hd := toHCL(d)
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

func toHCL(d diagnostic) *hcl.Diagnostic {
	sev := hcl.DiagError
	if d.Severity == "warning" {
		sev = hcl.DiagWarning
	}
	r := d.Range
	return &hcl.Diagnostic{Severity: sev, Summary: d.Summary, Detail: d.Detail, Subject: &hcl.Range{
		Filename: r.Filename,
		Start:    hcl.Pos{Line: r.Start.Line, Column: r.Start.Column, Byte: r.Start.Byte},
		End:      hcl.Pos{Line: r.End.Line, Column: r.End.Column, Byte: r.End.Byte},
	}}
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
