package engine

import (
	"slices"
	"strings"

	"github.com/pierhq/pier/host/execgraph"
	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/host/statedoc"
	"github.com/pierhq/pier/schema"
)

// tfKey is the output key in which the Terraform bridge keeps what Terraform
// needs beside the state object: private bytes, the schema version, and
// the paths of sensitive attributes.
const tfKey = "__tf"

// Redact returns a copy of output properties fit to show: attributes that
// the provider's schema marks sensitive (listed by the Terraform bridge in
// __tf.sensitive_paths) and the opaque private bytes are replaced.
//
// A sensitive path is what the bridge writes, a dotted attribute path with
// "*" for any element of a collection ("metadata.api_key",
// "rules.*.secret"), or a list of keys and indexes (["list", 1]).
// Terraform attribute names hold no dots, so the dotted form is exact.
func Redact(outputs map[string]any) map[string]any {
	if outputs == nil {
		return nil
	}
	out := deepCopy(outputs).(map[string]any)
	tf, ok := out[tfKey].(map[string]any)
	if !ok {
		return out
	}
	if _, ok := tf["private"]; ok {
		tf["private"] = source.SensitiveText
	}
	for _, steps := range sensitivePaths(tf) {
		redactPath(out, steps)
	}
	return out
}

// RedactEntryInputs returns a copy of a recorded entry's inputs fit to show:
// those recorded as coming from sensitive values, and those a Terraform
// resource's outputs list as sensitive, are replaced.
func RedactEntryInputs(e statedoc.Entry) map[string]any {
	out := RedactInputs(e.InputProperties, e.OutputProperties)
	for _, p := range e.SensitiveInputs {
		redactPath(out, dotted(p))
	}
	return out
}

// RedactEntryOutputs returns a copy of a recorded entry's outputs fit to
// show: what [Redact] hides, and the outputs that the inputs recorded as
// sensitive make sensitive ([source.InputSensitiveOutputs]: all of a v0
// provider's, those named like the input of a Terraform resource).
func RedactEntryOutputs(e statedoc.Entry) map[string]any {
	out := Redact(e.OutputProperties)
	for _, steps := range entryInputSensitiveOutputs(e) {
		redactPath(out, steps)
	}
	return out
}

// entryInputSensitiveOutputs are the paths of e's outputs that its
// sensitive inputs make sensitive.
func entryInputSensitiveOutputs(e statedoc.Entry) [][]any {
	return source.InputSensitiveOutputs(e.SensitiveInputs, source.HasSchema(e.OutputProperties))
}

// RedactInputs returns a copy of a Terraform resource's input properties
// with the attributes its recorded outputs list as sensitive replaced:
// inputs and outputs share the schema's attribute names.
func RedactInputs(inputs, outputs map[string]any) map[string]any {
	if inputs == nil {
		return nil
	}
	out := deepCopy(inputs).(map[string]any)
	tf, _ := outputs[tfKey].(map[string]any)
	for _, steps := range sensitivePaths(tf) {
		redactPath(out, steps)
	}
	return out
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
			out = append(out, dotted(x))
		}
	}
	return out
}

// anyStep is the dotted form's wildcard: any key of an object or any
// element of a list.
const anyStep = "*"

func redactPath(v any, steps []any) {
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
		if k == anyStep {
			for key := range x {
				redactAt(x, key, x[key], steps, last)
			}
			return
		}
		if e, present := x[k]; present {
			redactAt(x, k, e, steps, last)
		}
	case []any:
		if steps[0] == anyStep {
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
	redactPath(e, steps[1:])
}

func redactElem(s []any, i int, steps []any, last bool) {
	if last {
		if s[i] != nil {
			s[i] = source.SensitiveText
		}
		return
	}
	redactPath(s[i], steps[1:])
}

func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		s := make([]any, len(x))
		for i, e := range x {
			s[i] = deepCopy(e)
		}
		return s
	}
	return v
}

// RedactDiffs replaces the values in diffs (computed from this change's
// inputs) that sit at sensitive paths: those of [Change.SensitiveInputs]
// and those recorded with the prior object. A changed sensitive value
// still shows as changed, as [source.SensitiveText] on both sides.
func (c *Change) RedactDiffs(diffs []Diff) []Diff {
	paths := make([][]any, 0, len(c.SensitiveInputs))
	for _, p := range c.SensitiveInputs {
		paths = append(paths, dotted(p))
	}
	if c.Prior != nil {
		tf, _ := c.Prior.Entry.OutputProperties[tfKey].(map[string]any)
		paths = append(paths, sensitivePaths(tf)...)
		for _, p := range c.Prior.Entry.SensitiveInputs {
			paths = append(paths, dotted(p))
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
	if secrets := c.secretTexts(); len(secrets) > 0 {
		out = replaceInDiffs(out, secrets)
	}
	return out
}

// replaceInDiffs returns diffs with every text of secrets in their values
// replaced.
func replaceInDiffs(diffs []Diff, secrets []string) []Diff {
	out := make([]Diff, len(diffs))
	for i, d := range diffs {
		d.Old, d.New = replaceInValue(d.Old, secrets), replaceInValue(d.New, secrets)
		if d.Children != nil {
			d.Children = replaceInDiffs(d.Children, secrets)
		}
		out[i] = d
	}
	return out
}

// replaceInValue returns a copy of a JSON value with every text of secrets
// in its strings replaced.
func replaceInValue(v any, secrets []string) any {
	switch x := v.(type) {
	case string:
		return replaceSecrets(x, secrets)
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = replaceInValue(e, secrets)
		}
		return m
	case []any:
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = replaceInValue(e, secrets)
		}
		return l
	}
	return v
}

func redactDiffs(diffs []Diff, steps []any) {
	k, ok := steps[0].(string)
	if !ok {
		return
	}
	for i := range diffs {
		d := &diffs[i]
		if k != anyStep && d.Key != k {
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
			d.Old, d.New = deepCopy(d.Old), deepCopy(d.New)
			redactPath(d.Old, steps[1:])
			redactPath(d.New, steps[1:])
		}
	}
}

// dotted splits a dotted sensitive path into steps.
func dotted(p string) []any {
	var steps []any
	for _, k := range strings.Split(p, ".") {
		steps = append(steps, k)
	}
	return steps
}

// Graph is the JSON view of a plan's execution graph, for pier plan
// --json: its operations in order, each naming its resource, with the
// indexes (into Operations) of the earlier operations it follows.
type Graph struct {
	Operations []Operation `json:"operations"`
}

// Operation is one operation of a [Graph].
type Operation struct {
	Op       string         `json:"op"`
	Address  string         `json:"address"`
	Provider string         `json:"provider,omitempty"`
	Type     string         `json:"type,omitempty"`
	Inputs   map[string]any `json:"inputs,omitempty"`
	// InputsUnknown are the dotted paths of inputs known only after
	// apply, left out of Inputs: a program must not read a placeholder
	// string as a value (pier show --json's after_unknown likewise).
	InputsUnknown []string `json:"inputs_unknown,omitempty"`
	Operands      []int    `json:"operands,omitempty"`
	// Import is the id an import operation adopts.
	Import string `json:"import,omitempty"`
}

// RedactedGraph returns the plan's execution graph's operations with the
// inputs that the plan knows to be sensitive replaced, for showing (pier
// plan --json). A saved plan keeps the real values: it must carry out
// exactly what was planned, and it is written 0600.
func (p *Plan) RedactedGraph() (*Graph, error) {
	g, err := p.Graph()
	if err != nil {
		return nil, err
	}
	view := &Graph{Operations: []Operation{}}
	index := map[execgraph.Ref]int{}
	for _, i := range g.Operations() {
		el := g.Element(i)
		op := Operation{Op: el.Op.String(), Address: g.Subject(i)}
		for _, o := range el.Operands {
			if o == execgraph.None {
				continue
			}
			switch v := g.Element(o).Value.(type) {
			case *source.Resource:
				if v != nil {
					op.Provider, op.Type, op.Inputs = v.Provider, v.Type, v.Inputs
				}
			case *statedoc.Recorded:
				if op.Type == "" {
					op.Provider, op.Type = v.Entry.Provider, v.Entry.Type
				}
			}
		}
		if el.Op == execgraph.OpImport {
			op.Import, _ = g.Element(el.Operands[3]).Value.(string)
		}
		for _, d := range g.Dependencies(i) {
			op.Operands = append(op.Operands, index[d])
		}
		index[i] = len(view.Operations)
		if c := p.Change(op.Address); c != nil && op.Inputs != nil {
			inputs := deepCopy(op.Inputs).(map[string]any)
			for _, s := range c.SensitiveInputs {
				redactPath(inputs, dotted(s))
			}
			if c.Prior != nil {
				tf, _ := c.Prior.Entry.OutputProperties[tfKey].(map[string]any)
				for _, steps := range sensitivePaths(tf) {
					redactPath(inputs, steps)
				}
			}
			op.Inputs = inputs
		}
		op.Inputs, op.InputsUnknown = knownPart(op.Inputs, "")
		view.Operations = append(view.Operations, op)
	}
	return view, nil
}
