package tfproto

import (
	"fmt"
	"strconv"
	"strings"
)

// Severity of a provider diagnostic.
type Severity int

// The severities. SeverityInvalid is what a provider that set none sent.
const (
	SeverityInvalid Severity = iota
	SeverityError
	SeverityWarning
)

func (s Severity) String() string {
	switch s {
	case SeverityError:
		return "error"
	case SeverityWarning:
		return "warning"
	}
	return "invalid"
}

// Diagnostic is a message from the provider to the user.
type Diagnostic struct {
	Severity Severity
	Summary  string
	Detail   string
	// Attribute is the path the diagnostic is about; nil for none.
	Attribute AttributePath
}

// String renders the diagnostic on one line, e.g.
// `error: Invalid value: must be positive (at attribute "size")`.
func (d Diagnostic) String() string {
	var b strings.Builder
	b.WriteString(d.Severity.String())
	b.WriteString(": ")
	b.WriteString(d.Summary)
	if d.Detail != "" {
		b.WriteString(": ")
		b.WriteString(d.Detail)
	}
	if len(d.Attribute) > 0 {
		fmt.Fprintf(&b, " (at attribute %s)", d.Attribute)
	}
	return b.String()
}

// Diagnostics is a provider's list of diagnostics.
type Diagnostics []Diagnostic

// HasErrors reports whether any diagnostic is not a warning. A diagnostic
// without a severity counts as an error, so that nothing is lost.
func (ds Diagnostics) HasErrors() bool {
	for _, d := range ds {
		if d.Severity != SeverityWarning {
			return true
		}
	}
	return false
}

// Warnings returns the warnings only.
func (ds Diagnostics) Warnings() Diagnostics {
	var out Diagnostics
	for _, d := range ds {
		if d.Severity == SeverityWarning {
			out = append(out, d)
		}
	}
	return out
}

// Err returns a [*DiagnosticsError] holding the error diagnostics, or nil
// when there are none.
func (ds Diagnostics) Err() error {
	var errs Diagnostics
	for _, d := range ds {
		if d.Severity != SeverityWarning {
			errs = append(errs, d)
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return &DiagnosticsError{Diagnostics: errs}
}

// DiagnosticsError is the error a provider reported through diagnostics.
type DiagnosticsError struct {
	Diagnostics Diagnostics
}

func (e *DiagnosticsError) Error() string {
	parts := make([]string, len(e.Diagnostics))
	for i, d := range e.Diagnostics {
		parts[i] = d.String()
	}
	return strings.Join(parts, "; ")
}

// AttributePath addresses a value inside a resource's object.
type AttributePath []PathStep

// PathStep is one step: an attribute name, a map key or a list index.
// Exactly one kind is meant; Kind says which.
type PathStep struct {
	Kind StepKind
	Name string
	Key  string
	Int  int64
}

// StepKind says which field of a [PathStep] is meant.
type StepKind int

// The step kinds.
const (
	StepInvalid StepKind = iota
	StepAttribute
	StepKeyString
	StepKeyInt
)

// String renders a path the way Terraform users read it: `a.b["k"][0]`.
func (p AttributePath) String() string {
	var b strings.Builder
	for i, s := range p {
		switch s.Kind {
		case StepAttribute:
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.Name)
		case StepKeyString:
			b.WriteString("[" + strconv.Quote(s.Key) + "]")
		case StepKeyInt:
			b.WriteString("[" + strconv.FormatInt(s.Int, 10) + "]")
		default:
			b.WriteString("[?]")
		}
	}
	return b.String()
}
