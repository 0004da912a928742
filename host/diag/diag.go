package diag

import (
	"github.com/hashicorp/hcl/v2"

	"github.com/pierhq/pier/host/source"
)

// Severity says whether a [Diagnostic] stops the command.
type Severity string

// The severities, as --json writes them.
const (
	Error   Severity = "error"
	Warning Severity = "warning"
)

// Diagnostic is one problem as pier reports it. Its JSON is the --json
// diagnostic object (Terraform's -json shape).
type Diagnostic struct {
	Severity Severity `json:"severity"`
	Summary  string   `json:"summary"`
	Detail   string   `json:"detail,omitempty"`
	Range    *Range   `json:"range,omitempty"`
	Address  string   `json:"address,omitempty"`  // the resource, when there is one
	Provider string   `json:"provider,omitempty"` // the provider, when there is one
}

// Range is a source range. A position known only by line and column has
// Byte 0; a renderer that shows the source finds the offset itself.
type Range struct {
	Filename string `json:"filename"`
	Start    Pos    `json:"start"`
	End      Pos    `json:"end"`
}

// Pos is a position in a file: line and column from 1, byte from 0.
type Pos struct {
	Line   int `json:"line"`
	Column int `json:"column"`
	Byte   int `json:"byte"`
}

// Diagnoser is an error that knows its own diagnostic: a front end's own
// error types (pier validate's problems) implement it.
type Diagnoser interface{ Diagnostic() Diagnostic }

// FromHCL converts one HCL diagnostic.
func FromHCL(d *hcl.Diagnostic) Diagnostic {
	out := Diagnostic{Severity: Error, Summary: d.Summary, Detail: d.Detail}
	if d.Severity == hcl.DiagWarning {
		out.Severity = Warning
	}
	if r := d.Subject; r != nil {
		out.Range = &Range{
			Filename: r.Filename,
			Start:    Pos{r.Start.Line, r.Start.Column, r.Start.Byte},
			End:      Pos{r.End.Line, r.End.Column, r.End.Byte},
		}
	}
	return out
}

// FromHCLs converts HCL diagnostics.
func FromHCLs(ds hcl.Diagnostics) []Diagnostic {
	var out []Diagnostic
	for _, d := range ds {
		out = append(out, FromHCL(d))
	}
	return out
}

// PointRange is a file:line:col position as a range width columns wide
// (at least one), or nil for none.
func PointRange(r source.Range, width int) *Range {
	if r.Filename == "" {
		return nil
	}
	p := Pos{Line: r.Line, Column: r.Column}
	return &Range{Filename: r.Filename, Start: p, End: Pos{Line: p.Line, Column: p.Column + max(width, 1)}}
}

// HCL converts the diagnostic back to HCL's, for HCL's renderers. A
// diagnostic without a range has no subject.
func (d Diagnostic) HCL() *hcl.Diagnostic {
	out := &hcl.Diagnostic{Severity: hcl.DiagError, Summary: d.Summary, Detail: d.Detail}
	if d.Severity == Warning {
		out.Severity = hcl.DiagWarning
	}
	if r := d.Range; r != nil {
		out.Subject = &hcl.Range{
			Filename: r.Filename,
			Start:    hcl.Pos{Line: r.Start.Line, Column: r.Start.Column, Byte: r.Start.Byte},
			End:      hcl.Pos{Line: r.End.Line, Column: r.End.Column, Byte: r.End.Byte},
		}
	}
	return out
}
