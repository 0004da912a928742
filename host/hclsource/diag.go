package hclsource

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/agext/levenshtein"
	"github.com/hashicorp/hcl/v2"
)

// DiagnosticsError is a configuration error: one or more HCL diagnostics,
// each with a source range. Callers reach it with errors.As to render the
// diagnostics with source snippets (see [DiagnosticsError.WriteText]).
type DiagnosticsError struct {
	// Diagnostics holds at least one error. Warnings may ride along.
	Diagnostics hcl.Diagnostics
	// Files are the parsed files the ranges point into, by filename, for
	// rendering snippets.
	Files map[string]*hcl.File
}

// Error renders one "file:line:col: summary: detail" line per diagnostic.
func (e *DiagnosticsError) Error() string {
	var b strings.Builder
	for i, d := range e.Diagnostics {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(formatDiagnostic(d))
	}
	return b.String()
}

// Unwrap returns the diagnostics, which are themselves an error.
func (e *DiagnosticsError) Unwrap() error { return e.Diagnostics }

// WriteText renders the diagnostics the way HCL does, with the offending
// source lines underlined. width wraps the text (0 means no wrapping);
// color adds terminal colour codes.
func (e *DiagnosticsError) WriteText(w io.Writer, width uint, color bool) error {
	return hcl.NewDiagnosticTextWriter(w, e.Files, width, color).WriteDiagnostics(e.Diagnostics)
}

func formatDiagnostic(d *hcl.Diagnostic) string {
	var b strings.Builder
	if d.Subject != nil {
		fmt.Fprintf(&b, "%s:%d:%d: ", d.Subject.Filename, d.Subject.Start.Line, d.Subject.Start.Column)
	}
	if d.Severity == hcl.DiagWarning {
		b.WriteString("warning: ")
	}
	b.WriteString(d.Summary)
	if d.Detail != "" {
		b.WriteString(": ")
		b.WriteString(d.Detail)
	}
	return b.String()
}

// diagErr builds an error diagnostic at rng.
func diagErr(rng hcl.Range, summary, detailFormat string, args ...any) *hcl.Diagnostic {
	r := rng
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  summary,
		Detail:   fmt.Sprintf(detailFormat, args...),
		Subject:  &r,
	}
}

// suggest returns ` Did you mean "x"?` for the closest of names to name, or
// "" when none is close. Closeness is a small edit distance, so this stays
// cheap even for large declaration sets (it runs only on errors).
func suggest(name string, names []string) string {
	best, bestDist := "", 3
	for _, n := range names {
		// The distance is at least the difference in length: skip the
		// count where that alone rules n out. (levenshtein's MaxCost would
		// do it, but v1.2.1 indexes out of range with it.)
		if d := utf8.RuneCountInString(name) - utf8.RuneCountInString(n); d >= bestDist || -d >= bestDist {
			continue
		}
		if d := levenshtein.Distance(name, n, nil); d < bestDist {
			best, bestDist = n, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" Did you mean %q?", best)
}
