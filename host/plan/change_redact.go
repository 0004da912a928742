package plan

import (
	"slices"

	"github.com/pierhq/pier/host/redact"
	"github.com/pierhq/pier/host/source"
)

// This file says which of a change's values are sensitive, for the plan's
// display and for the texts redacted from what its provider says.

// RedactDiffs replaces the values in diffs (computed from this change's
// inputs) that sit at sensitive paths: those of [Change.SensitiveInputs]
// and those recorded with the prior object. A changed sensitive value
// still shows as changed, as [source.SensitiveText] on both sides.
func (c *Change) RedactDiffs(diffs []Diff) []Diff {
	paths := make([][]any, 0, len(c.SensitiveInputs))
	for _, p := range c.SensitiveInputs {
		paths = append(paths, redact.Dotted(p))
	}
	if c.Prior != nil {
		paths = append(paths, redact.TerraformPaths(c.Prior.Entry.OutputProperties)...)
		for _, p := range c.Prior.Entry.SensitiveInputs {
			paths = append(paths, redact.Dotted(p))
		}
	}
	if len(paths) == 0 {
		return diffs
	}
	out := slices.Clone(diffs)
	for _, steps := range paths {
		redactDiffs(out, steps)
	}
	// What the provider plans may repeat a sensitive input elsewhere (an
	// id made from a secret path).
	if secrets := c.SecretTexts(); len(secrets) > 0 {
		out = replaceInDiffs(out, secrets)
	}
	return out
}

// replaceInDiffs returns diffs with every text of secrets in their values
// replaced.
func replaceInDiffs(diffs []Diff, secrets []string) []Diff {
	out := make([]Diff, len(diffs))
	for i, d := range diffs {
		d.Old, d.New = redact.InValue(d.Old, secrets), redact.InValue(d.New, secrets)
		if d.Children != nil {
			d.Children = replaceInDiffs(d.Children, secrets)
		}
		out[i] = d
	}
	return out
}

func redactDiffs(diffs []Diff, steps []any) {
	k, ok := steps[0].(string)
	if !ok {
		return
	}
	for i := range diffs {
		d := &diffs[i]
		if k != redact.AnyStep && d.Key != k {
			continue
		}
		switch {
		case len(steps) == 1 && d.Kind == DiffNested:
			*d = Diff{Key: d.Key, Kind: DiffChanged, Old: source.SensitiveText, New: source.SensitiveText}
		case len(steps) == 1:
			if d.Old != nil {
				d.Old = source.SensitiveText
			}
			if d.New != nil {
				d.New = source.SensitiveText
			}
		case d.Kind == DiffNested:
			d.Children = slices.Clone(d.Children)
			redactDiffs(d.Children, steps[1:])
		default:
			d.Old, d.New = redact.DeepCopy(d.Old), redact.DeepCopy(d.New)
			redact.At(d.Old, steps[1:])
			redact.At(d.New, steps[1:])
		}
	}
}

// SecretTexts lists the texts of c's sensitive values, longest first: its
// inputs at its sensitive paths, and its prior object's sensitive inputs
// and outputs.
func (c *Change) SecretTexts() []string {
	var out []string
	if c.Resource != nil {
		// A change resolved during apply has its resource's paths only.
		for _, p := range slices.Concat(c.SensitiveInputs, c.Resource.SensitiveInputs) {
			out = redact.Collect(out, c.Resource.Inputs, redact.Dotted(p))
		}
	}
	if c.Prior != nil {
		if c.Resource != nil {
			for _, steps := range redact.TerraformPaths(c.Prior.Entry.OutputProperties) {
				out = redact.Collect(out, c.Resource.Inputs, steps)
			}
		}
		out = append(out, redact.EntrySecrets(c.Prior.Entry)...)
	}
	return redact.SortSecrets(out)
}
