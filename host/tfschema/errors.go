package tfschema

import (
	"fmt"
	"strings"

	"github.com/pierhq/pier/host/source"
)

// InputError is a configuration error: a resource on a Terraform provider
// has an input its provider's schema lacks, or a type the provider does
// not have.
type InputError struct {
	// Range is where the input key (or, failing that, the resource) is
	// written.
	Range source.Range
	// Resource is the resource's address; Others counts further instances
	// of the same declaration (count, for_each) with the same mistake.
	Resource string
	Others   int
	Provider string
	// Plugin is the Terraform provider binary.
	Plugin string
	Type   string
	// Attribute is the unknown input, e.g. "trigers" or "metadata.apikey";
	// empty when the type itself is unknown.
	Attribute string
	// Suggestion is the closest valid name, or "".
	Suggestion string
}

func (e *InputError) Error() string {
	var b strings.Builder
	if pos := e.Range.String(); pos != "" {
		b.WriteString(pos + ": ")
	}
	fmt.Fprintf(&b, "resource %s (provider %s, Terraform provider %s): ", e.Resource, e.Provider, e.Plugin)
	hint := ""
	if e.Suggestion != "" {
		hint = fmt.Sprintf(" (did you mean %q?)", e.Suggestion)
	}
	if e.Attribute == "" {
		fmt.Fprintf(&b, "unknown type %q%s: the provider has no such resource type or data source", e.Type, hint)
	} else {
		fmt.Fprintf(&b, "unknown input %q%s: the schema of %s has no such attribute or block", e.Attribute, hint, e.Type)
	}
	if e.Others > 0 {
		fmt.Fprintf(&b, "; %d more instances of this resource have it too", e.Others)
	}
	return b.String()
}
