package hclsource

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/schema"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/ctymarks"
)

// This file carries sensitivity as a cty mark ([SensitiveMark]) from where
// it starts to where values leave the language:
//
//   - it starts at sensitive variables (vars.go), at the attributes a
//     Terraform resource's recorded outputs list as sensitive
//     ([source.SensitiveOutputPaths]), and at the outputs of a resource
//     that its sensitive inputs make sensitive
//     ([source.InputSensitiveOutputs]: every output of a v0 provider's
//     resource, those named like the input of a Terraform one; the engine
//     hides the same outputs in state show);
//   - HCL and cty carry the mark through references, operators and
//     functions;
//   - it ends in a resource's [source.Resource.SensitiveInputs], which the
//     engine hides in plans, events and state, in the output rule (a
//     marked output must be declared sensitive), in the for_each rule (a
//     marked for_each would put secrets in instance keys), and in
//     diagnostics, which never show a marked value (see redactDiagnostics).

// markedValue is what a reference to inst sees: its inputs and outputs,
// with the parts that are sensitive marked.
func (inst *instance) markedValue() cty.Value {
	in, out := inst.inputs, inst.outputs()
	var recorded [][]any
	if inst.outKnown {
		recorded = source.SensitiveOutputPaths(inst.outSeen)
	}
	if recorded == nil && inst.decl != nil {
		// Being created or updated: the schema says what its outputs
		// will list.
		recorded = inst.decl.schemaSensitive
	}
	for _, p := range recorded {
		// Terraform inputs and outputs share the schema's attribute
		// names.
		in = markPath(in, p)
		out = markPath(out, p)
	}
	// Outputs are sensitive where its sensitive inputs make them so: see
	// source.InputSensitiveOutputs for the rule.
	echoed := source.InputSensitiveOutputs(inst.sensitive, inst.hasSchema())
	if !inst.outKnown && echoed != nil && !inst.hasSchema() {
		// Not created yet: every output will be sensitive, so a reader
		// (an output block) learns it at plan, not after apply.
		out = out.Mark(sensitiveMark{})
	}
	if inst.outKnown {
		for _, p := range echoed {
			out = markPath(out, p)
		}
	}
	return cty.ObjectVal(map[string]cty.Value{"inputs": in, "outputs": out})
}

// outputs is what a reference sees of inst's outputs: the known ones,
// or an unknown value marked as waiting for inst. The unknown one is
// made when a reference needs it, not when the outputs are found
// unknown: most instances' outputs are read by nothing, and a marked
// value for each of them was a part of every large plan.
func (inst *instance) outputs() cty.Value {
	if inst.outKnown {
		return inst.outVal
	}
	return cty.DynamicVal.Mark(waitMark(inst.addrStr))
}

// hasSchema reports whether inst's provider has a schema that says which
// of its outputs are sensitive: a Terraform provider's, as its recorded
// outputs show, or its declaration before it has any.
func (inst *instance) hasSchema() bool {
	if inst.outKnown {
		return source.HasSchema(inst.outSeen)
	}
	return inst.decl != nil && inst.decl.terraform
}

// SetSchemaSensitive implements [source.SchemaSensitive]: the instances
// of provider's type typ whose outputs list no sensitive paths (not
// created yet, or being updated) show paths as sensitive to their
// readers, who are evaluated again on the next Resolve.
func (d *Deployment) SetSchemaSensitive(provider, typ string, paths []string) bool {
	steps := make([][]any, len(paths))
	for i, p := range paths {
		steps[i] = source.DottedPath(p)
	}
	changed := false
	for _, r := range d.resources {
		if r.provider != provider || r.typ != typ || reflect.DeepEqual(r.schemaSensitive, steps) {
			continue
		}
		r.schemaSensitive, changed = steps, true
		for _, inst := range r.eval.instances {
			inst.val = cty.NilVal
			d.instanceChanged(r, inst)
		}
	}
	return changed
}

// MarkSensitive marks the parts of v at path (string keys,
// [source.AnyStep], indexes) with [SensitiveMark], for evaluating against
// recorded state (pier eval) with the rules a deployment's own references
// follow.
func MarkSensitive(v cty.Value, path []any) cty.Value { return markPath(v, path) }

// markPath marks the parts of v at path (string keys, [source.AnyStep],
// indexes) sensitive. A path that names nothing in v changes nothing; a
// set is marked whole, since its elements have no path.
func markPath(v cty.Value, path []any) cty.Value {
	if len(path) == 0 {
		return v.Mark(sensitiveMark{})
	}
	u, marks := v.Unmark()
	if u.IsNull() || !u.IsKnown() {
		return v
	}
	ty := u.Type()
	step := path[0]
	switch {
	case ty.IsObjectType() || ty.IsMapType():
		k, ok := step.(string)
		if !ok || u.LengthInt() == 0 {
			return v
		}
		m := u.AsValueMap()
		hit := false
		for name, e := range m {
			if k == source.AnyStep || k == name {
				m[name], hit = markPath(e, path[1:]), true
			}
		}
		if !hit {
			return v
		}
		if ty.IsMapType() {
			return cty.MapVal(m).WithMarks(marks)
		}
		return cty.ObjectVal(m).WithMarks(marks)
	case ty.IsTupleType() || ty.IsListType():
		if u.LengthInt() == 0 {
			return v
		}
		s := u.AsValueSlice()
		i, isIndex := schema.StepIndex(step)
		if step != source.AnyStep && (!isIndex || i < 0 || i >= len(s)) {
			return v
		}
		for j := range s {
			if step == source.AnyStep || j == i {
				s[j] = markPath(s[j], path[1:])
			}
		}
		if ty.IsListType() {
			return cty.ListVal(s).WithMarks(marks)
		}
		return cty.TupleVal(s).WithMarks(marks)
	case ty.IsSetType():
		return v.Mark(sensitiveMark{})
	}
	return v
}

// addSensitiveDefaults sets in inputs what the resource's builtin adapter
// asks for when an input holds a sensitive value and the deployment leaves
// it unset ([schema.Capabilities.SensitiveDefaults]; local's file is
// written 0600). inputs is the resource's own fresh map.
func (d *Deployment) addSensitiveDefaults(r *resourceDecl, inputs map[string]any, sensitive []string) {
	p := d.providers[r.provider]
	if p == nil || p.Builtin == "" || inputs == nil {
		return
	}
	sd, ok := d.builtins[p.Builtin].SensitiveDefaults[r.typ]
	if !ok || !sensitiveAt(sensitive, sd.When) {
		return
	}
	for k, v := range sd.Set {
		if _, set := inputs[k]; !set {
			inputs[k] = v
		}
	}
}

// sensitiveAt reports whether the dotted sensitive paths cover any part of
// the top-level input name.
func sensitiveAt(sensitive []string, name string) bool {
	return slices.ContainsFunc(sensitive, func(s string) bool {
		return s == name || s == source.AnyStep || strings.HasPrefix(s, name+".")
	})
}

// refuseSensitive refuses, at plan, a sensitive value in an input that
// the resource's builtin adapter says must not hold one
// ([schema.Capabilities.NoSensitive]; local exec's args would be the
// program's command line).
func (d *Deployment) refuseSensitive(r *resourceDecl, inst *instance, sensitive []string) hcl.Diagnostics {
	p := d.providers[r.provider]
	if p == nil || p.Builtin == "" || len(sensitive) == 0 {
		return nil
	}
	refused := d.builtins[p.Builtin].NoSensitive[r.typ]
	var diags hcl.Diagnostics
	for _, name := range slices.Sorted(maps.Keys(refused)) {
		if sensitiveAt(sensitive, name) {
			diags = append(diags, sensitiveCommandLineDiag(inputRange(r.inputs, name),
				fmt.Sprintf("resource %s (provider %s): input %s", inst.addrStr, r.provider, name), refused[name]))
		}
	}
	return diags
}

// sensitiveCommandLineDiag refuses a sensitive value that would become
// part of a command line, which every user of the machine can read in
// /proc/PID/cmdline: a provider's args, and the inputs a builtin adapter
// lists in [schema.Capabilities.NoSensitive].
func sensitiveCommandLineDiag(rng hcl.Range, what, instead string) *hcl.Diagnostic {
	return diagErr(rng, "Sensitive value on a command line",
		"%s would put a sensitive value on a command line, which every user of the machine can read; %s.", what, instead)
}

// inputRange is the range of the item name in an inputs object written
// as a literal, or of the whole expression.
func inputRange(inputs hcl.Expression, name string) hcl.Range {
	if obj, ok := inputs.(*hclsyntax.ObjectConsExpr); ok {
		for _, item := range obj.Items {
			if k := hcl.ExprAsKeyword(item.KeyExpr); k == name {
				return hcl.RangeBetween(item.KeyExpr.Range(), item.ValueExpr.Range())
			}
			if v, diags := item.KeyExpr.Value(nil); !diags.HasErrors() && v.Type() == cty.String && v.IsKnown() && !v.IsMarked() && v.AsString() == name {
				return hcl.RangeBetween(item.KeyExpr.Range(), item.ValueExpr.Range())
			}
		}
	}
	return inputs.Range()
}

// sensitivePaths lists, as dotted paths, the parts of v that carry the
// sensitive mark, so the engine can hide them wherever it shows inputs.
func sensitivePaths(v cty.Value) []string {
	if !v.ContainsMarked() {
		return nil
	}
	_, pvms := v.UnmarkDeepWithPaths()
	return sensitiveOf(pvms)
}

// unmarkInputs is v.UnmarkDeep and sensitivePaths(v) in one walk of v:
// inputs that read other resources' outputs carry marks everywhere, and
// walking them twice was a twentieth of a large deployment's no-op.
func unmarkInputs(v cty.Value) (cty.Value, cty.ValueMarks, []string) {
	if unmarked, marks, sensitive, ok := unmarkFlat(v); ok {
		return unmarked, marks, sensitive
	}
	// One set of the marks, and a copy of a path only where it is
	// sensitive: UnmarkDeepWithPaths copied every marked path and made a
	// set of marks for each, most of them a read mark on a string, of
	// every instance that reads another's outputs.
	var marks cty.ValueMarks
	var sensitive []cty.PathValueMarks
	unmarked, _ := v.WrangleMarksDeep(func(mark any, path cty.Path) (ctymarks.WrangleAction, error) {
		if marks == nil {
			marks = cty.ValueMarks{}
		}
		marks[mark] = struct{}{}
		if _, ok := mark.(sensitiveMark); ok {
			// The walk gives a value's marks one after another, so a
			// path is new unless it is the last one listed.
			if n := len(sensitive); n == 0 || !sensitive[n-1].Path.Equals(path) {
				sensitive = append(sensitive, cty.PathValueMarks{Path: path.Copy(), Marks: sensitiveMarks})
			}
		}
		return ctymarks.WrangleDrop, nil
	})
	return unmarked, marks, sensitiveOf(sensitive)
}

// unmarkFlat is unmarkInputs of the inputs most instances that read
// another's outputs have: an object whose attributes are leaves (a
// primitive, a null or an unknown value), marked or not, as
// "b-${resource.a[count.index].outputs.value}" makes them. cty's deep
// walk builds a path and copies a set of marks for every value it
// visits; here each attribute is unmarked once. ok is false for any
// other shape, which unmarkInputs walks deep.
func unmarkFlat(v cty.Value) (unmarked cty.Value, marks cty.ValueMarks, sensitive []string, ok bool) {
	top, marks := v.Unmark()
	ty := top.Type()
	if !ty.IsObjectType() || !top.IsKnown() || top.IsNull() {
		return cty.NilVal, nil, nil, false
	}
	if _, ok := marks[sensitiveMark{}]; ok {
		sensitive = append(sensitive, source.AnyStep)
	}
	attrs := ty.AttributeTypes()
	vals := make(map[string]cty.Value, len(attrs))
	for name := range attrs {
		a, am := top.GetAttr(name).Unmark()
		if a.IsKnown() && !a.IsNull() && !a.Type().IsPrimitiveType() {
			return cty.NilVal, nil, nil, false
		}
		if len(am) > 0 {
			if marks == nil {
				marks = make(cty.ValueMarks, len(am))
			}
			for m := range am {
				marks[m] = struct{}{}
			}
			if _, ok := am[sensitiveMark{}]; ok {
				sensitive = append(sensitive, name)
			}
		}
		vals[name] = a
	}
	if len(attrs) == 0 {
		unmarked = cty.EmptyObjectVal
	} else {
		unmarked = cty.ObjectVal(vals)
	}
	slices.Sort(sensitive)
	return unmarked, marks, sensitive, true
}

// sensitiveMarks is the mark set of the paths unmarkInputs hands
// sensitiveOf, which only looks for the sensitive mark in it.
var sensitiveMarks = cty.NewValueMarks(sensitiveMark{})

// sensitiveOf is sensitivePaths of the value whose marks are pvms.
func sensitiveOf(pvms []cty.PathValueMarks) []string {
	var out []string
	for _, pvm := range pvms {
		if _, ok := pvm.Marks[sensitiveMark{}]; !ok {
			continue
		}
		var steps []string
		for _, step := range pvm.Path {
			switch s := step.(type) {
			case cty.GetAttrStep:
				steps = append(steps, s.Name)
			case cty.IndexStep:
				if s.Key.Type() == cty.String && s.Key.IsKnown() {
					steps = append(steps, s.Key.AsString())
				} else {
					steps = append(steps, source.AnyStep)
				}
			}
		}
		if len(steps) == 0 {
			// The whole inputs object is sensitive.
			steps = []string{source.AnyStep}
		}
		out = append(out, strings.Join(steps, "."))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// hasSensitive reports whether v or anything inside it is marked
// sensitive.
func hasSensitive(v cty.Value) bool {
	_, marks := v.UnmarkDeep()
	_, ok := marks[sensitiveMark{}]
	return ok
}

// sensitiveOutputDiag is Terraform's rule, in its words: an output whose
// value is derived from a sensitive value must say so.
func sensitiveOutputDiag(o *outputDecl) *hcl.Diagnostic {
	return diagErr(o.defRange, "Output refers to sensitive values",
		"To reduce the risk of accidentally exporting sensitive data that was intended to be only internal, "+
			"pier requires that any output containing sensitive data be explicitly marked as sensitive, to confirm your intent. "+
			"If you do intend to export this data, annotate output %q as sensitive by adding the argument sensitive = true.", o.name)
}

// sensitiveForEachDiag is Terraform's rule for for_each: instance keys
// are shown everywhere, so they cannot come from a secret.
func sensitiveForEachDiag(rng hcl.Range) *hcl.Diagnostic {
	return diagErr(rng, "Invalid for_each argument",
		"Sensitive values, or values derived from sensitive values, cannot be used as for_each arguments. "+
			"If used, the sensitive value could be exposed as a resource instance key.")
}
