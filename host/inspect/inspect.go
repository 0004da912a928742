package inspect

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/pierhq/pier/host/hcldepth"
	"github.com/pierhq/pier/host/hclsource"
	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/host/statedoc"
)

// Inspector evaluates expressions against one snapshot of state. It is
// safe for concurrent use: each Eval works on its own child context.
type Inspector struct {
	ctx *hcl.EvalContext
}

// New builds an inspector. base is the deployment's evaluation context
// ([hclsource.Deployment.EvalContext]) or nil for a source without one (a
// Nix flake), which gets the functions only. states are the recorded
// states, by handler; modules are the module instances' outputs
// evaluated against them ([hclsource.Deployment.ModuleOutputs]).
func New(base *hcl.EvalContext, states map[string]*statedoc.View, modules []hclsource.ModuleOutput) *Inspector {
	if base == nil {
		base = &hcl.EvalContext{Functions: hclsource.Functions()}
	}
	ctx := base.NewChild()
	ctx.Variables = stateVariables(states, modules)
	return &Inspector{ctx: ctx}
}

// Result is one evaluated expression.
type Result struct {
	Value cty.Value
	// JSON is the value in cty's JSON encoding, null when Sensitive.
	JSON json.RawMessage
	// Type is the value's type in HCL type-constraint syntax, e.g.
	// "object({port=number})". The attribute names of a sensitive object
	// may be secrets ({(var.token) = 1}), so its type reads
	// "object(sensitive)".
	Type string
	// Sensitive means the value, or part of it, is secret: it is not
	// rendered at all.
	Sensitive bool
	// Unknown means the value, or part of it, is known only after apply;
	// JSON is then null, never a placeholder string a program would read
	// as the value.
	Unknown     bool
	Diagnostics hcl.Diagnostics
}

// Eval parses and evaluates expr. Errors in it are diagnostics in the
// result, never a Go error: they are the user's.
func (in *Inspector) Eval(expr string) Result {
	if diags := hcldepth.CheckSyntax([]byte(expr), "<expression>", false); diags.HasErrors() {
		return Result{Diagnostics: diags} // parsing it would exhaust the stack
	}
	e, diags := hclsyntax.ParseExpression([]byte(expr), "<expression>", hcl.InitialPos)
	if diags.HasErrors() {
		return Result{Diagnostics: diags}
	}
	v, ds := e.Value(in.ctx.NewChild())
	diags = append(diags, ds...)
	if diags.HasErrors() {
		return Result{Diagnostics: hclsource.RedactDiagnostics(diags, in.ctx.Functions)}
	}
	unmarked, marks := v.UnmarkDeep()
	r := Result{Value: v, Type: valueTypeString(v), Diagnostics: diags}
	for m := range marks {
		if m == hclsource.SensitiveMark {
			r.Sensitive = true
		}
	}
	if r.Sensitive {
		r.JSON = json.RawMessage("null")
		return r
	}
	if !unmarked.IsWhollyKnown() {
		r.JSON, r.Unknown = json.RawMessage("null"), true
		return r
	}
	b, err := ctyjson.Marshal(unmarked, unmarked.Type())
	if err != nil {
		r.Diagnostics = append(r.Diagnostics, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Value cannot be shown", Detail: err.Error()})
		return r
	}
	r.JSON = b
	return r
}

// Text renders a result for people: the value in HCL-like JSON, or
// (sensitive value).
func (r Result) Text() string {
	if r.Sensitive {
		return source.SensitiveText
	}
	if r.Unknown {
		return "(known after apply)"
	}
	var v any
	if err := json.Unmarshal(r.JSON, &v); err != nil {
		return string(r.JSON)
	}
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return string(r.JSON)
	}
	return string(b)
}

// stateVariables builds resource, deployment, module and output from
// state and the modules' outputs. A resource recorded in several states
// takes the first handler's entry. A module instance's object holds its
// outputs, as the deployment reads them (module.site["blog"].url), and
// its recorded resources (module.site["blog"].resource.page); an output
// named resource, module or deployment hides those.
func stateVariables(states map[string]*statedoc.View, modules []hclsource.ModuleOutput) map[string]cty.Value {
	handlers := slices.Sorted(maps.Keys(states))
	root := &node{}
	outputs := map[string]cty.Value{}
	for _, h := range handlers {
		sv := states[h]
		for _, rec := range sv.Entries {
			root.insert(rec.Address, entryValue(rec))
		}
		for name, o := range sv.Outputs {
			if _, ok := outputs[name]; ok {
				continue
			}
			if o.Sensitive {
				outputs[name] = cty.DynamicVal.Mark(hclsource.SensitiveMark)
				continue
			}
			outputs[name] = jsonValue(o.Value)
		}
	}
	for _, mo := range modules {
		v := mo.Value
		root.at(mo.Module).child(mo.Name).leaf = &v
	}
	vars := root.value()
	out := map[string]cty.Value{"output": cty.ObjectVal(outputs)}
	if vars.Type().IsObjectType() {
		for k, v := range vars.AsValueMap() {
			out[k] = v
		}
	}
	if _, ok := out["resource"]; !ok {
		out["resource"] = cty.EmptyObjectVal
	}
	return out
}

// node is one level of the resource/deployment/module tree.
type node struct {
	leaf     *cty.Value
	children map[string]*node
	keyed    map[string]map[any]cty.Value // resource name → instance key → value
	// instances are the module instances of a count or for_each module,
	// by module name and instance key.
	instances map[string]map[any]*node
}

func (n *node) child(name string) *node {
	if n.children == nil {
		n.children = map[string]*node{}
	}
	c := n.children[name]
	if c == nil {
		c = &node{}
		n.children[name] = c
	}
	return c
}

// instance is module name's instance key under n (a "module" node).
func (n *node) instance(name string, key any) *node {
	if n.instances == nil {
		n.instances = map[string]map[any]*node{}
	}
	if n.instances[name] == nil {
		n.instances[name] = map[any]*node{}
	}
	c := n.instances[name][key]
	if c == nil {
		c = &node{}
		n.instances[name][key] = c
	}
	return c
}

// insert puts a resource at deployment.C1.deployment.C2.resource.NAME, or
// in a module instance at module.M[KEY].resource.NAME, as moved and
// import blocks spell it; count and for_each instances, of resources and
// of modules, gather under their name as a tuple or object.
func (n *node) insert(addr source.Address, v cty.Value) {
	last := addr[len(addr)-1]
	res := n.at(addr[:len(addr)-1]).child("resource")
	if last.Key == nil {
		res.child(last.Name).leaf = &v
		return
	}
	if res.keyed == nil {
		res.keyed = map[string]map[any]cty.Value{}
	}
	if res.keyed[last.Name] == nil {
		res.keyed[last.Name] = map[any]cty.Value{}
	}
	res.keyed[last.Name][last.Key] = v
}

// at is the node of the deployment block or module instance path names.
func (n *node) at(path source.Address) *node {
	cur := n
	for _, s := range path {
		switch {
		case !s.Module:
			cur = cur.child("deployment").child(s.Name)
		case s.Key == nil:
			cur = cur.child("module").child(s.Name)
		default:
			cur = cur.child("module").instance(s.Name, s.Key)
		}
	}
	return cur
}

// value renders the tree as objects.
func (n *node) value() cty.Value {
	if n.leaf != nil {
		return *n.leaf
	}
	attrs := map[string]cty.Value{}
	for k, c := range n.children {
		attrs[k] = c.value()
	}
	for name, insts := range n.keyed {
		attrs[name] = keyedValue(insts)
	}
	for name, insts := range n.instances {
		vals := make(map[any]cty.Value, len(insts))
		for k, c := range insts {
			vals[k] = c.value()
		}
		attrs[name] = keyedValue(vals)
	}
	return cty.ObjectVal(attrs)
}

// keyedValue is a tuple for count (int keys) and an object for for_each.
func keyedValue(insts map[any]cty.Value) cty.Value {
	var ints []int
	strs := map[string]cty.Value{}
	for k, v := range insts {
		switch k := k.(type) {
		case int:
			ints = append(ints, k)
		case string:
			strs[k] = v
		}
	}
	if len(ints) > 0 {
		slices.Sort(ints)
		vals := make([]cty.Value, 0, len(ints))
		for _, i := range ints {
			vals = append(vals, insts[i])
		}
		return cty.TupleVal(vals)
	}
	return cty.ObjectVal(strs)
}

// entryValue is {inputs, outputs} of a recorded resource, with what is
// sensitive marked as a deployment's own references mark it: inputs
// recorded as sensitive, the outputs those make sensitive
// ([source.InputSensitiveOutputs]), and the attributes a Terraform
// resource's outputs list as sensitive.
func entryValue(rec *statedoc.Recorded) cty.Value {
	in := jsonValue(rec.Entry.InputProperties)
	out := jsonValue(rec.Entry.OutputProperties)
	for _, p := range rec.Entry.SensitiveInputs {
		in = hclsource.MarkSensitive(in, source.DottedPath(p))
	}
	for _, p := range source.InputSensitiveOutputs(rec.Entry.SensitiveInputs, source.HasSchema(rec.Entry.OutputProperties)) {
		out = hclsource.MarkSensitive(out, p)
	}
	for _, p := range source.SensitiveOutputPaths(rec.Entry.OutputProperties) {
		in = hclsource.MarkSensitive(in, p)
		out = hclsource.MarkSensitive(out, p)
	}
	return cty.ObjectVal(map[string]cty.Value{"inputs": in, "outputs": out})
}

// jsonValue converts recorded JSON to cty as hclsource sees resource
// outputs ([hclsource.FromJSON]): objects and tuples all the way down, and
// a value known only after apply stays unknown.
func jsonValue(x any) cty.Value {
	v, err := hclsource.FromJSON(x)
	if err != nil {
		// Decoded JSON always converts; what fails (a number cty cannot
		// parse) is shown as its text, as it always was.
		return cty.StringVal(fmt.Sprint(x))
	}
	return v
}

// sensitiveObjectType is how the type of a sensitive object reads: its
// attribute names are the object's keys, and those may be secrets.
const sensitiveObjectType = "object(sensitive)"

// valueTypeString renders v's type as an HCL type constraint, without the
// attribute names of any sensitive object in it.
func valueTypeString(v cty.Value) string {
	if v.HasMark(hclsource.SensitiveMark) {
		return typeString(v.Type(), true)
	}
	u, _ := v.Unmark()
	t := u.Type()
	if !v.ContainsMarked() || u.IsNull() || !u.IsKnown() {
		return typeString(t, false)
	}
	switch {
	case t.IsObjectType():
		m := u.AsValueMap()
		names := slices.Sorted(maps.Keys(m))
		parts := make([]string, len(names))
		for i, n := range names {
			parts[i] = n + "=" + valueTypeString(m[n])
		}
		return "object({" + strings.Join(parts, ", ") + "})"
	case t.IsTupleType():
		var parts []string
		for _, e := range u.AsValueSlice() {
			parts = append(parts, valueTypeString(e))
		}
		return "tuple([" + strings.Join(parts, ", ") + "])"
	}
	// A collection's elements share one type: if any is marked, that type
	// may hold a sensitive object's names.
	return typeString(t, true)
}

// typeString renders a type as an HCL type constraint; hide writes object
// types as sensitiveObjectType.
func typeString(t cty.Type, hide bool) string {
	switch {
	case t == cty.DynamicPseudoType:
		return "dynamic"
	case t.IsPrimitiveType():
		return t.FriendlyName()
	case t.IsListType():
		return "list(" + typeString(t.ElementType(), hide) + ")"
	case t.IsSetType():
		return "set(" + typeString(t.ElementType(), hide) + ")"
	case t.IsMapType():
		return "map(" + typeString(t.ElementType(), hide) + ")"
	case t.IsTupleType():
		var parts []string
		for _, e := range t.TupleElementTypes() {
			parts = append(parts, typeString(e, hide))
		}
		return "tuple([" + strings.Join(parts, ", ") + "])"
	case t.IsObjectType() && hide:
		return sensitiveObjectType
	case t.IsObjectType():
		names := make([]string, 0, len(t.AttributeTypes()))
		for n := range t.AttributeTypes() {
			names = append(names, n)
		}
		slices.Sort(names)
		var parts []string
		for _, n := range names {
			parts = append(parts, n+"="+typeString(t.AttributeType(n), hide))
		}
		return "object({" + strings.Join(parts, ", ") + "})"
	}
	return t.FriendlyName()
}
