package hclsource

import (
	"fmt"
	"math/big"
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/host/tfcache"
	"github.com/pierhq/pier/schema"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

var providerSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "executable"},
	{Name: "args"},
	{Name: "env"},
	{Name: "builtin"},
	{Name: "terraform"},
	{Name: "source"},
	{Name: "version"},
	{Name: "config"},
	{Name: "operations"},
	{Name: "parallelism"},
	{Name: "refresh"},
}}

// decodeProvider declares a provider of unit u. A module instance's own
// provider is keyed by the instance's address, module.site["blog"].NAME,
// so that every instance has its own configuration.
func (d *Deployment) decodeProvider(u *unit, b *hcl.Block) hcl.Diagnostics {
	name := b.Labels[0]
	key := name
	if len(u.scope.path) > 0 {
		key = u.scope.path.String() + "." + name
	}
	if prevKey, ok := u.providers[name]; ok {
		what := "declared at " + d.providers[prevKey].Range.String()
		if u.call != nil && prevKey != key {
			what = "passed by the module block's providers at " + rangeString(u.call.attrs["providers"].Range)
		}
		return hcl.Diagnostics{diagErr(b.DefRange, "Duplicate provider",
			"provider %q is already %s.", name, what)}
	}
	ctx := u.ctx
	content, diags := b.Body.Content(providerSchema)
	p := &source.Provider{Name: key, Range: toSourceRange(b.DefRange)}
	attrs := content.Attributes
	var kinds []string
	for _, k := range []string{"executable", "builtin", "terraform", "source"} {
		if _, ok := attrs[k]; ok {
			kinds = append(kinds, k)
		}
	}
	if len(kinds) != 1 {
		diags = append(diags, diagErr(b.DefRange, "Invalid provider",
			"provider %q needs exactly one of executable, builtin, terraform or source; it has %d.", name, len(kinds)))
	}
	for attr, needs := range map[string]string{"args": "executable", "env": "executable", "config": "terraform", "version": "source"} {
		if a, ok := attrs[attr]; ok {
			_, ok := attrs[needs]
			if _, src := attrs["source"]; attr == "config" && src {
				ok = true
			}
			if !ok {
				diags = append(diags, diagErr(a.NameRange, "Invalid provider attribute",
					"%s applies only to a provider with %s.", attr, needs))
			}
		}
	}
	if a, ok := attrs["executable"]; ok {
		p.Executable = providerPath(u.dir, stringAttr(ctx, a, &diags))
	}
	p.Refresh, _ = d.decodeRefresh(ctx, fmt.Sprintf("provider %q", name), attrs, &diags)
	if a, ok := attrs["terraform"]; ok {
		p.Terraform = providerPath(u.dir, stringAttr(ctx, a, &diags))
	}
	if a, ok := attrs["source"]; ok {
		diags = append(diags, d.findPackage(ctx, p, a, attrs["version"])...)
	}
	if a, ok := attrs["builtin"]; ok {
		p.Builtin = stringAttr(ctx, a, &diags)
		if _, known := schema.Builtin(d.builtins, p.Builtin); p.Builtin != "" && d.builtins != nil && !known {
			names := schema.BuiltinNames(d.builtins)
			diags = append(diags, diagErr(a.Expr.Range(), "Unknown builtin provider",
				"pier has no builtin provider %q; it has: %s.%s", p.Builtin, strings.Join(names, ", "), suggest(p.Builtin, names)))
		}
	}
	if a, ok := attrs["args"]; ok {
		p.Args = stringListAttr(ctx, a, &diags)
		if v, ds := a.Expr.Value(ctx); !ds.HasErrors() && hasSensitive(v) {
			diags = append(diags, sensitiveCommandLineDiag(a.Expr.Range(), fmt.Sprintf("provider %q: args", name), "pass it in env instead"))
		}
	}
	if a, ok := attrs["env"]; ok {
		val := evalAttr(ctx, a, cty.Map(cty.String), &diags)
		if val != cty.NilVal && !val.IsNull() {
			p.Env = map[string]string{}
			for k, v := range val.AsValueMap() {
				if v.IsNull() {
					diags = append(diags, diagErr(a.Expr.Range(), "Invalid env", "env %q is null.", k))
					continue
				}
				p.Env[k] = v.AsString()
			}
		}
	}
	if a, ok := attrs["config"]; ok {
		val, ds := a.Expr.Value(ctx)
		diags = append(diags, ds...)
		if !ds.HasErrors() {
			val, _ = val.UnmarkDeep()
			if !val.IsWhollyKnown() || !(val.Type().IsObjectType() || val.Type().IsMapType()) {
				diags = append(diags, diagErr(a.Expr.Range(), "Invalid provider config", "config must be a known object."))
			} else {
				j, err := toJSON(val)
				if err != nil {
					diags = append(diags, diagErr(a.Expr.Range(), "Invalid provider config", "%s.", err))
				} else if m, ok := j.(map[string]any); ok {
					p.Config = m
				}
			}
		}
	}
	if a, ok := attrs["operations"]; ok {
		elems, ds := hcl.ExprList(a.Expr)
		diags = append(diags, ds...)
		for _, e := range elems {
			s := stringAttr(ctx, &hcl.Attribute{Name: "operations", Expr: e}, &diags)
			if s == "" {
				continue
			}
			if _, err := schema.ParseOperation(s); err != nil {
				diags = append(diags, diagErr(e.Range(), "Unknown operation",
					"provider %q: %s.%s", name, err, suggest(s, []string{"destroy", "read", "import"})))
				continue
			}
			p.Operations = append(p.Operations, s)
		}
	}
	if a, ok := attrs["parallelism"]; ok {
		val := evalAttr(ctx, a, cty.Number, &diags)
		if val != cty.NilVal && !val.IsNull() {
			n, acc := val.AsBigFloat().Int64()
			if acc != big.Exact || n < 0 || n > 1<<20 {
				diags = append(diags, diagErr(a.Expr.Range(), "Invalid parallelism", "parallelism must be a whole number from 0 (the engine's default) up."))
			} else {
				p.Parallelism = int(n)
			}
		}
	}
	d.providers[key] = p
	u.providers[name] = key
	return diags
}

// findPackage resolves source + version to a Terraform provider package
// in Terraform's plugin directories (nothing is downloaded).
func (d *Deployment) findPackage(ctx *hcl.EvalContext, p *source.Provider, a, v *hcl.Attribute) hcl.Diagnostics {
	var diags hcl.Diagnostics
	raw := stringAttr(ctx, a, &diags)
	if v == nil {
		return append(diags, diagErr(a.NameRange, "Missing provider version",
			"provider %q names source %q and needs a version too, e.g. version = \"0.14.2\" or \"~> 0.14\".", p.Name, raw))
	}
	arg := strings.TrimPrefix(strings.TrimSpace(stringAttr(ctx, v, &diags)), "v")
	if diags.HasErrors() || raw == "" {
		return diags
	}
	src, err := tfcache.ParseSource(raw)
	if err != nil {
		return append(diags, diagErr(a.Expr.Range(), "Invalid provider source", "%s.", err))
	}
	pkg, err := tfcache.DefaultDirs(d.root).Select(src, arg, d.lockedVersions[src.String()])
	if err != nil {
		return append(diags, diagErr(v.Expr.Range(), "Provider package not found", "provider %q: %s.", p.Name, err))
	}
	p.Source, p.Version, p.Terraform = src.String(), pkg.Version, pkg.Executable
	if arg != pkg.Version {
		p.Constraints = arg
	}
	return diags
}

// providerPath resolves a relative path containing a slash against the
// directory of the declaring files (the deployment's or a module's). A
// bare name stays bare: the engine looks it up in PATH, as exec does.
func providerPath(dir, p string) string {
	if p == "" || filepath.IsAbs(p) || !strings.ContainsRune(p, '/') {
		return p
	}
	return filepath.Join(dir, p)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// evalAttr evaluates a with ctx and converts it to ty, reporting errors in
// diags and returning cty.NilVal on error.
func evalAttr(ctx *hcl.EvalContext, a *hcl.Attribute, ty cty.Type, diags *hcl.Diagnostics) cty.Value {
	val, ds := a.Expr.Value(ctx)
	*diags = append(*diags, ds...)
	if ds.HasErrors() {
		return cty.NilVal
	}
	val, _ = val.UnmarkDeep()
	if !val.IsWhollyKnown() {
		*diags = append(*diags, diagErr(a.Expr.Range(), "Unknown value", "%s must be known when the deployment is loaded.", a.Name))
		return cty.NilVal
	}
	c, err := convert.Convert(val, ty)
	if err != nil {
		*diags = append(*diags, diagErr(a.Expr.Range(), "Invalid "+a.Name, "%s: %s.", a.Name, err))
		return cty.NilVal
	}
	return c
}

func stringAttr(ctx *hcl.EvalContext, a *hcl.Attribute, diags *hcl.Diagnostics) string {
	val := evalAttr(ctx, a, cty.String, diags)
	if val == cty.NilVal || val.IsNull() {
		return ""
	}
	return val.AsString()
}

func stringListAttr(ctx *hcl.EvalContext, a *hcl.Attribute, diags *hcl.Diagnostics) []string {
	val := evalAttr(ctx, a, cty.List(cty.String), diags)
	if val == cty.NilVal || val.IsNull() {
		return nil
	}
	out := []string{}
	for _, v := range val.AsValueSlice() {
		if v.IsNull() {
			*diags = append(*diags, diagErr(a.Expr.Range(), "Invalid "+a.Name, "%s must not contain null.", a.Name))
			return nil
		}
		out = append(out, v.AsString())
	}
	return out
}
