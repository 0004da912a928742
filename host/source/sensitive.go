package source

import "strings"

// ReservedOutputKey is the output key under which the Terraform bridge
// keeps what Terraform stores beside a resource's state, among it
// "sensitive_paths": the attributes the provider's schema marks sensitive.
// Sources and the engine read it to keep those values secret; it is the
// only output key pier gives a meaning.
const ReservedOutputKey = "__tf"

// Visible returns a resource's outputs as a configuration sees them: without
// [ReservedOutputKey], which is bookkeeping, not an output of the object.
// outputs itself is returned when it has no such key, so that the common
// case copies nothing.
func Visible(outputs map[string]any) map[string]any {
	if _, ok := outputs[ReservedOutputKey]; !ok {
		return outputs
	}
	out := make(map[string]any, len(outputs)-1)
	for k, v := range outputs {
		if k != ReservedOutputKey {
			out[k] = v
		}
	}
	return out
}

// AnyStep is the wildcard step of a sensitive path: every key of an
// object or map, every element of a list.
const AnyStep = "*"

// SensitiveOutputPaths returns the paths that a resource's outputs list as
// sensitive under ReservedOutputKey.sensitive_paths, nil when they list
// none. A path is a list of steps: string keys ([AnyStep] for every
// element) or indexes as JSON decoded them (float64 or json.Number). The
// bridge writes dotted paths ("rules.*.secret"), which are split at dots:
// Terraform attribute names hold none.
func SensitiveOutputPaths(outputs map[string]any) [][]any {
	tf, ok := outputs[ReservedOutputKey].(map[string]any)
	if !ok {
		return nil
	}
	paths, _ := tf["sensitive_paths"].([]any)
	if len(paths) == 0 {
		return nil
	}
	out := make([][]any, 0, len(paths))
	for _, p := range paths {
		switch x := p.(type) {
		case []any:
			out = append(out, x)
		case string:
			out = append(out, DottedPath(x))
		}
	}
	return out
}

// DottedPath splits a dotted path, as [Resource.SensitiveInputs] holds
// them, into steps.
func DottedPath(p string) []any {
	parts := strings.Split(p, ".")
	steps := make([]any, len(parts))
	for i, k := range parts {
		steps[i] = k
	}
	return steps
}

// SchemaSensitive is implemented by sources that can mark, in what
// references to a resource see, the input paths its provider's schema
// calls sensitive, for resources whose outputs do not list them yet
// ([SensitiveOutputPaths]): those a plan creates or updates. Without it a
// reader of a new Terraform resource's sensitive input would show the
// value in the plan. The engine calls it once it knows which resources
// change (their providers start anyway), then resolves again.
type SchemaSensitive interface {
	// SetSchemaSensitive sets the sensitive input paths (dotted, [AnyStep]
	// for any element) of provider's resource type typ, and reports
	// whether that changed anything the next Resolve must evaluate again.
	SetSchemaSensitive(provider, typ string, paths []string) bool
}
