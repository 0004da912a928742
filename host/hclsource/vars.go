package hclsource

import (
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/typeexpr"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/json"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/pierhq/pier/host/hcldepth"
)

var variableSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "default"},
	{Name: "type"},
	{Name: "sensitive"},
	{Name: "description"},
}, Blocks: []hcl.BlockHeaderSchema{{Type: "validation"}}}

func (d *Deployment) decodeVariable(u *unit, b *hcl.Block) hcl.Diagnostics {
	name := b.Labels[0]
	if prev, ok := u.variables[name]; ok {
		return hcl.Diagnostics{diagErr(b.DefRange, "Duplicate variable",
			"variable %q is already declared at %s.", name, rangeString(prev.defRange))}
	}
	content, diags := b.Body.Content(variableSchema)
	v := &variableDecl{name: name, typ: cty.DynamicPseudoType, defRange: b.DefRange, unit: u}
	if a, ok := content.Attributes["type"]; ok {
		ty, defaults, ds := typeexpr.TypeConstraintWithDefaults(a.Expr)
		diags = append(diags, ds...)
		if !ds.HasErrors() {
			v.typ, v.defaults = ty, defaults
		}
	}
	if a, ok := content.Attributes["sensitive"]; ok {
		val, ds := a.Expr.Value(nil)
		diags = append(diags, ds...)
		if !ds.HasErrors() {
			s, err := convert.Convert(val, cty.Bool)
			if err != nil || s.IsNull() {
				diags = append(diags, diagErr(a.Expr.Range(), "Invalid sensitive", "sensitive must be true or false."))
			} else {
				v.sensitive = s.True()
			}
		}
	}
	if a, ok := content.Attributes["default"]; ok {
		v.given = true
		val, ds := a.Expr.Value(nil)
		diags = append(diags, ds...)
		if !ds.HasErrors() {
			c, ds := v.convert(val, a.Expr.Range())
			diags = append(diags, ds...)
			v.def = c
		}
	}
	for _, vb := range content.Blocks {
		c, ds := decodeCondition(vb)
		diags = append(diags, ds...)
		if c != nil {
			v.validations = append(v.validations, c)
		}
	}
	u.variables[name] = v
	return diags
}

// validateVariables checks every variable's validation blocks against
// the values in u's context, as Terraform does before planning. A
// condition that reads a value not known yet (a variable left unknown for
// pier validate) is skipped.
//
// A module's variables are checked per instance against the arguments
// known at load; an argument that reads resources is checked when its
// value is known (see validateArgument).
func (d *Deployment) validateVariables(u *unit) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, name := range slices.Sorted(maps.Keys(u.variables)) {
		diags = append(diags, d.validateValue(u, u.variables[name], u.ctx)...)
	}
	return diags
}

// validateArgument checks a module argument that is known only while
// resolving against its variable's validations, once its value is known:
// val is the argument's value, converted to the variable's type.
func (d *Deployment) validateArgument(v *variableDecl, val cty.Value) hcl.Diagnostics {
	if len(v.validations) == 0 || !val.IsWhollyKnown() {
		return nil
	}
	u := v.unit
	vals := map[string]cty.Value{}
	if static := u.ctx.Variables["var"]; static.Type().IsObjectType() {
		vals = static.AsValueMap()
	}
	vals[v.name] = val
	ctx := u.ctx.NewChild()
	ctx.Variables = map[string]cty.Value{"var": cty.ObjectVal(vals)}
	return d.validateValue(u, v, ctx)
}

// validateValue evaluates v's validation blocks in ctx. A failure in a
// module instance names the variable with the instance's address
// (module.site["blog"].var.name) and is reported at the argument that
// set it, in the caller, with the validation block's position in the
// detail; a variable left to its default is reported at the condition.
func (d *Deployment) validateValue(u *unit, v *variableDecl, ctx *hcl.EvalContext) hcl.Diagnostics {
	var diags hcl.Diagnostics
	checkable := "var." + v.name
	if u.call != nil {
		checkable = u.scope.path.String() + "." + checkable
	}
	for _, c := range v.validations {
		res, ds := c.eval(ctx)
		diags = append(diags, ds...)
		if !res.failed {
			continue
		}
		f := c.failureDiag(hcl.DiagError, "Invalid value for variable", checkable, res)
		if u.call != nil {
			if a, ok := u.call.args[v.name]; ok {
				rng := a.Expr.Range()
				f.Subject = &rng
			}
		}
		diags = append(diags, f)
	}
	return diags
}

func (v *variableDecl) convert(val cty.Value, rng hcl.Range) (cty.Value, hcl.Diagnostics) {
	if v.defaults != nil {
		val = v.defaults.Apply(val)
	}
	c, err := convert.Convert(val, v.typ)
	if err != nil {
		return cty.NilVal, hcl.Diagnostics{diagErr(rng, "Invalid value for variable",
			"variable %q needs a value of type %s: %s.", v.name, typeexpr.TypeString(v.typ), err)}
	}
	return c, nil
}

// convertMarked converts a value that may carry marks (a module
// argument's: what it read, sensitivity) to the variable's type, keeping
// the marks, and marks it sensitive if the variable is.
func (v *variableDecl) convertMarked(val cty.Value, rng hcl.Range) (cty.Value, hcl.Diagnostics) {
	if v.typ != cty.DynamicPseudoType {
		unmarked, marks := val.UnmarkDeep()
		c, ds := v.convert(unmarked, rng)
		if ds.HasErrors() {
			return cty.NilVal, ds
		}
		val = c.WithMarks(marks)
	}
	if v.sensitive {
		val = val.Mark(sensitiveMark{})
	}
	return val, nil
}

// variableValues combines defaults, the environment, var files (the
// auto-loaded ones first, then --var-file, in order) and --var flags,
// later ones winning, into the object that var.NAME reads; see
// varsources.go.
func (d *Deployment) variableValues(opts Options) (cty.Value, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	vals := map[string]cty.Value{}
	// given holds variables that have a value, valid or not, so that an
	// invalid one is not also reported as missing.
	given := map[string]bool{}
	for name, v := range d.variables {
		if v.def != cty.NilVal {
			vals[name] = v.def
		}
		given[name] = v.given
	}
	for _, name := range slices.Sorted(maps.Keys(opts.EnvVars)) {
		v, ok := d.variables[name]
		if !ok {
			continue
		}
		given[name] = true
		if c, ds := v.fromText(opts.EnvVars[name], envVarPrefix+name); ds.HasErrors() {
			diags = append(diags, ds...)
		} else {
			vals[name] = c
		}
	}
	for _, path := range opts.VarFiles {
		diags = append(diags, d.readVarFile(path, vals, given)...)
	}
	for _, name := range slices.Sorted(maps.Keys(opts.Vars)) {
		v, ok := d.variables[name]
		if !ok {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Undeclared variable",
				Detail:   "--var " + name + ": no variable \"" + name + "\" is declared." + suggest(name, slices.Sorted(maps.Keys(d.variables))),
			})
			continue
		}
		given[name] = true
		if c, ds := v.fromText(opts.Vars[name], "--var "+name); ds.HasErrors() {
			diags = append(diags, ds...)
		} else {
			vals[name] = c
		}
	}
	for _, name := range slices.Sorted(maps.Keys(opts.Values)) {
		v, ok := d.variables[name]
		if !ok {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Undeclared variable",
				Detail: "no variable \"" + name + "\" is declared." + suggest(name, slices.Sorted(maps.Keys(d.variables)))})
			continue
		}
		given[name] = true
		if c, ds := v.convert(opts.Values[name], v.defRange); ds.HasErrors() {
			diags = append(diags, ds...)
		} else {
			vals[name] = c
		}
	}
	for _, name := range slices.Sorted(maps.Keys(d.variables)) {
		v := d.variables[name]
		val, ok := vals[name]
		if !ok && given[name] {
			continue
		}
		if !ok && opts.UnsetUnknown {
			val, ok = cty.UnknownVal(v.typ), true
			vals[name] = val
		}
		if !ok {
			diags = append(diags, diagErr(v.defRange, "Missing variable value",
				"variable %q has no default and no value: set it with --var %s=VALUE, in a --var-file or pier.vars, or as %s%s.", name, name, envVarPrefix, name))
			continue
		}
		if v.sensitive {
			vals[name] = val.Mark(sensitiveMark{})
		}
	}
	if len(vals) == 0 {
		return cty.EmptyObjectVal, diags
	}
	return cty.ObjectVal(vals), diags
}

// fromText converts a value given as text (--var, the environment) to
// the variable's type. Strings, numbers and bools convert from the text;
// collections and objects take an HCL expression, e.g. --var 'ports=[80]'.
// from names where the text came from, for messages.
func (v *variableDecl) fromText(raw, from string) (cty.Value, hcl.Diagnostics) {
	val := cty.StringVal(raw)
	if !v.typ.IsPrimitiveType() && v.typ != cty.DynamicPseudoType {
		ds := hcldepth.CheckSyntax([]byte(raw), from, false)
		var expr hclsyntax.Expression
		if !ds.HasErrors() {
			expr, ds = hclsyntax.ParseExpression([]byte(raw), from, hcl.InitialPos)
		}
		if ds.HasErrors() {
			return cty.NilVal, ds
		}
		if val, ds = expr.Value(nil); ds.HasErrors() {
			return cty.NilVal, ds
		}
	}
	c, ds := v.convert(val, v.defRange)
	for _, d := range ds {
		d.Detail = strings.TrimSuffix(d.Detail, ".") + " (the value of " + from + ")."
	}
	return c, ds
}

// readVarFile reads NAME = VALUE assignments (HCL, or JSON for *.json).
func (d *Deployment) readVarFile(path string, vals map[string]cty.Value, given map[string]bool) hcl.Diagnostics {
	src, err := os.ReadFile(path)
	if err != nil {
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Unreadable variable file", Detail: err.Error()}}
	}
	var f *hcl.File
	diags := hcldepth.CheckSyntax(src, path, strings.HasSuffix(path, ".json"))
	switch {
	case diags.HasErrors():
	case strings.HasSuffix(path, ".json"):
		f, diags = json.Parse(src, path)
	default:
		f, diags = hclsyntax.ParseConfig(src, path, hcl.InitialPos)
	}
	if diags.HasErrors() {
		return diags
	}
	attrs, ds := f.Body.JustAttributes()
	diags = append(diags, ds...)
	for _, name := range slices.Sorted(maps.Keys(attrs)) {
		a := attrs[name]
		v, ok := d.variables[name]
		if !ok {
			diags = append(diags, diagErr(a.NameRange, "Undeclared variable",
				"no variable %q is declared.%s", name, suggest(name, slices.Sorted(maps.Keys(d.variables)))))
			continue
		}
		given[name] = true
		val, ds := a.Expr.Value(nil)
		diags = append(diags, ds...)
		if ds.HasErrors() {
			continue
		}
		c, ds := v.convert(val, a.Expr.Range())
		diags = append(diags, ds...)
		if !ds.HasErrors() {
			vals[name] = c
		}
	}
	return diags
}
