package source

import "strings"

// ReservedOutputKey is the output key under which the Terraform bridge
// keeps what Terraform stores beside a resource's state, among it
// "sensitive_paths": the attributes the provider's schema marks sensitive.
// Sources and the engine read it to keep those values secret; it is the
// only output key pier gives a meaning.
const ReservedOutputKey = "__tf"

// SensitiveText is how pier shows a sensitive value, wherever it shows
// one: plans, show, output, state show, eval and console, errors, the RPC
// API and the web view. It is Terraform's spelling, so that one reads the
// same in both tools.
const SensitiveText = "(sensitive value)"

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

// InputSensitiveOutputs returns the paths of a resource's outputs that
// are sensitive because some of its inputs are (sensitiveInputs, dotted
// as [Resource.SensitiveInputs] holds them). The rule is one for every
// reader of outputs: references in a deployment, state show, pier eval,
// the console and the RPC inspector.
//
//   - A resource of a provider with a schema (a Terraform provider,
//     whose recorded outputs carry [ReservedOutputKey]; schemaKnown) has
//     its outputs marked where the schema says ([SensitiveOutputPaths]);
//     beyond that, an output named like a sensitive input is sensitive,
//     since providers echo their inputs under their own names.
//   - A v0 provider's outputs (pier's local adapter, any third-party
//     provider) say nothing of where they came from: memo's value is its
//     initialize_with, exec's stdout may be its stdin. The protocol has no
//     way for a provider to tell, so every output of a resource with a
//     sensitive input is sensitive ([AnyStep]). Erring this way costs a
//     sensitive = true on an output; the other way prints a secret.
//
// It returns nil when no input is sensitive.
func InputSensitiveOutputs(sensitiveInputs []string, schemaKnown bool) [][]any {
	if len(sensitiveInputs) == 0 {
		return nil
	}
	if !schemaKnown {
		return [][]any{{AnyStep}}
	}
	out := make([][]any, len(sensitiveInputs))
	for i, p := range sensitiveInputs {
		out[i] = DottedPath(p)
	}
	return out
}

// HasSchema reports whether recorded outputs are a Terraform resource's,
// whose provider's schema says which attributes are sensitive (see
// [InputSensitiveOutputs]).
func HasSchema(outputs map[string]any) bool {
	_, ok := outputs[ReservedOutputKey]
	return ok
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
