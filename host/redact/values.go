package redact

import (
	"strings"

	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/host/statedoc"
	"github.com/pierhq/pier/schema"
)

// TerraformKey is the output key in which the Terraform bridge keeps what Terraform
// needs beside the state object: private bytes, the schema version, and
// the paths of sensitive attributes.
const TerraformKey = source.ReservedOutputKey

// Outputs returns a copy of output properties fit to show: attributes that
// the provider's schema marks sensitive (listed by the Terraform bridge in
// __tf.sensitive_paths) and the opaque private bytes are replaced.
//
// A sensitive path is what the bridge writes, a dotted attribute path with
// "*" for any element of a collection ("metadata.api_key",
// "rules.*.secret"), or a list of keys and indexes (["list", 1]).
// Terraform attribute names hold no dots, so the dotted form is exact.
func Outputs(outputs map[string]any) map[string]any {
	if outputs == nil {
		return nil
	}
	out := DeepCopy(outputs).(map[string]any)
	tf, ok := out[TerraformKey].(map[string]any)
	if !ok {
		return out
	}
	if _, ok := tf["private"]; ok {
		tf["private"] = source.SensitiveText
	}
	for _, steps := range sensitivePaths(tf) {
		At(out, steps)
	}
	return out
}

// EntryInputs returns a copy of a recorded entry's inputs fit to show:
// those recorded as coming from sensitive values, and those a Terraform
// resource's outputs list as sensitive, are replaced.
func EntryInputs(e statedoc.Entry) map[string]any {
	out := Inputs(e.InputProperties, e.OutputProperties)
	for _, p := range e.SensitiveInputs {
		At(out, Dotted(p))
	}
	return out
}

// EntryOutputs returns a copy of a recorded entry's outputs fit to
// show: what [Outputs] hides, and the outputs that the inputs recorded as
// sensitive make sensitive ([source.InputSensitiveOutputs]: all of a v0
// provider's, those named like the input of a Terraform resource).
func EntryOutputs(e statedoc.Entry) map[string]any {
	out := Outputs(e.OutputProperties)
	for _, steps := range entryInputSensitiveOutputs(e) {
		At(out, steps)
	}
	return out
}

// entryInputSensitiveOutputs are the paths of e's outputs that its
// sensitive inputs make sensitive.
func entryInputSensitiveOutputs(e statedoc.Entry) [][]any {
	return source.InputSensitiveOutputs(e.SensitiveInputs, source.HasSchema(e.OutputProperties))
}

// Inputs returns a copy of a Terraform resource's input properties
// with the attributes its recorded outputs list as sensitive replaced:
// inputs and outputs share the schema's attribute names.
func Inputs(inputs, outputs map[string]any) map[string]any {
	if inputs == nil {
		return nil
	}
	out := DeepCopy(inputs).(map[string]any)
	tf, _ := outputs[TerraformKey].(map[string]any)
	for _, steps := range sensitivePaths(tf) {
		At(out, steps)
	}
	return out
}

// TerraformPaths are the sensitive paths the Terraform bridge lists in
// outputs (__tf.sensitive_paths), as steps.
func TerraformPaths(outputs map[string]any) [][]any {
	tf, _ := outputs[TerraformKey].(map[string]any)
	return sensitivePaths(tf)
}

// sensitivePaths decodes __tf.sensitive_paths into lists of steps.
func sensitivePaths(tf map[string]any) [][]any {
	paths, _ := tf["sensitive_paths"].([]any)
	out := make([][]any, 0, len(paths))
	for _, p := range paths {
		switch x := p.(type) {
		case []any:
			out = append(out, x)
		case string:
			out = append(out, Dotted(x))
		}
	}
	return out
}

// AnyStep is the dotted form's wildcard: any key of an object or any
// element of a list.
const AnyStep = "*"

// At replaces the values at steps in v, in place: a key or an index per
// step, [AnyStep] for every key or element. A null value is left, as it
// holds nothing to hide.
func At(v any, steps []any) {
	if len(steps) == 0 {
		return
	}
	last := len(steps) == 1
	switch x := v.(type) {
	case map[string]any:
		k, ok := steps[0].(string)
		if !ok {
			return
		}
		if k == AnyStep {
			for key := range x {
				redactAt(x, key, x[key], steps, last)
			}
			return
		}
		if e, present := x[k]; present {
			redactAt(x, k, e, steps, last)
		}
	case []any:
		if steps[0] == AnyStep {
			for i := range x {
				redactElem(x, i, steps, last)
			}
			return
		}
		i, ok := schema.StepIndex(steps[0]) // float64 or json.Number, as decoded
		if !ok || i < 0 || i >= len(x) {
			return
		}
		redactElem(x, i, steps, last)
	}
}

func redactAt(m map[string]any, k string, e any, steps []any, last bool) {
	if last {
		if e != nil { // a null attribute holds nothing to hide
			m[k] = source.SensitiveText
		}
		return
	}
	At(e, steps[1:])
}

func redactElem(s []any, i int, steps []any, last bool) {
	if last {
		if s[i] != nil {
			s[i] = source.SensitiveText
		}
		return
	}
	At(s[i], steps[1:])
}

// DeepCopy copies a decoded JSON value, so that redacting the copy leaves
// the original alone.
func DeepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = DeepCopy(e)
		}
		return m
	case []any:
		s := make([]any, len(x))
		for i, e := range x {
			s[i] = DeepCopy(e)
		}
		return s
	}
	return v
}

// Dotted splits a dotted sensitive path into steps.
func Dotted(p string) []any {
	var steps []any
	for _, k := range strings.Split(p, ".") {
		steps = append(steps, k)
	}
	return steps
}
