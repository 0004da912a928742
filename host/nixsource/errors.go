package nixsource

import (
	"fmt"
	"strings"

	"github.com/pierhq/pier/host/source"
)

// EvalError is a Nix evaluation error, attributed to the member of the
// deployment whose evaluation raised it.
type EvalError struct {
	// Flake names what was evaluated: "flake REF#ATTR", or "file PATH"
	// for a plain Nix file.
	Flake string
	// Member is the member path; nil when the error is outside every member
	// (the flake itself, or rootFunction).
	Member source.Address
	// Message is Nix's own message, positions included where Nix gives
	// them.
	Message string
	// Range is where the member's resource is declared, when Nix's message
	// has no position of its own (a throw); zero otherwise.
	Range source.Range
}

func (e *EvalError) Error() string {
	prefix := ""
	if r := e.Range.String(); r != "" {
		prefix = r + ": "
	}
	if len(e.Member) == 0 {
		return fmt.Sprintf("%sevaluate %s: %s", prefix, e.Flake, e.Message)
	}
	return fmt.Sprintf("%sevaluate %s: member %s: %s", prefix, e.Flake, e.Member, e.Message)
}

// CycleError reports members that wait on each other's outputs, so none
// of them can ever be applied.
type CycleError struct {
	Flake string
	// Cycle lists the members in order; the first one follows the last.
	Cycle []source.Address
	// Needs lists, for each member of Cycle, the outputs it was found
	// waiting on (RESOURCE.OUTPUT), where known.
	Needs [][]string
}

func (e *CycleError) Error() string {
	parts := make([]string, 0, len(e.Cycle)+1)
	for _, a := range e.Cycle {
		parts = append(parts, a.String())
	}
	if len(e.Cycle) > 0 {
		parts = append(parts, e.Cycle[0].String())
	}
	var why []string
	for i, n := range e.Needs {
		if i < len(e.Cycle) && len(n) > 0 {
			why = append(why, fmt.Sprintf("%s needs %s", e.Cycle[i], strings.Join(n, ", ")))
		}
	}
	msg := fmt.Sprintf("evaluate %s: dependency cycle: %s", e.Flake, strings.Join(parts, " → "))
	if len(why) > 0 {
		msg += " (" + strings.Join(why, "; ") + ")"
	}
	return msg
}

// RealiseError reports store paths that a ready resource needs (its
// provider executable, or files in its inputs) and that nix could not
// build.
type RealiseError struct {
	Resource source.Address
	Provider string
	// Executable is the provider's executable; empty for a builtin.
	Executable string
	Paths      []string
	Err        error
}

func (e *RealiseError) Error() string {
	prov := e.Provider
	if e.Executable != "" {
		prov += ", executable " + e.Executable
	}
	return fmt.Sprintf("resource %s (provider %s): realise %s: %v", e.Resource, prov, strings.Join(e.Paths, " "), e.Err)
}

func (e *RealiseError) Unwrap() error { return e.Err }

// DeclError reports a resource declaration pier cannot use, such as a
// provider without an executable.
type DeclError struct {
	Flake    string
	Resource source.Address
	Range    source.Range
	Err      error
}

func (e *DeclError) Error() string {
	if r := e.Range.String(); r != "" {
		return fmt.Sprintf("%s: %s: resource %s: %v", r, e.Flake, e.Resource, e.Err)
	}
	return fmt.Sprintf("%s: resource %s: %v", e.Flake, e.Resource, e.Err)
}

func (e *DeclError) Unwrap() error { return e.Err }
