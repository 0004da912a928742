package hclsource

import (
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/pierhq/pier/host/source"
	"github.com/zclconf/go-cty/cty"
)

var resourceSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "provider", Required: true},
	{Name: "type", Required: true},
	{Name: "inputs"},
	{Name: "state"},
	{Name: "depends_on"},
	{Name: "count"},
	{Name: "for_each"},
	{Name: "refresh"},
}, Blocks: []hcl.BlockHeaderSchema{{Type: "lifecycle"}}}

var lifecycleSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "create_before_destroy"},
	{Name: "prevent_destroy"},
	{Name: "ignore_changes"},
}, Blocks: []hcl.BlockHeaderSchema{{Type: "precondition"}, {Type: "postcondition"}}}

var outputSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "value", Required: true},
	{Name: "sensitive"},
	{Name: "description"},
}}

func (d *Deployment) declareResource(s *scope, b *hcl.Block) (*resourceDecl, hcl.Diagnostics) {
	name := b.Labels[0]
	if ds := duplicateMember(s, name, b); ds != nil {
		return nil, ds
	}
	r := &resourceDecl{
		name:     name,
		scope:    s,
		addr:     append(append(source.Address{}, s.path...), source.Step{Name: name}),
		defRange: b.DefRange,
	}
	s.resources[name] = r
	s.members = append(s.members, name)
	d.resources = append(d.resources, r)
	return r, nil
}

// decodeResource reads a resource block's attributes. References are
// resolved later, in linkResource, once every resource has a name and an
// expansion.
func (d *Deployment) decodeResource(r *resourceDecl, b *hcl.Block) (*hcl.BodyContent, hcl.Diagnostics) {
	content, diags := b.Body.Content(resourceSchema)
	attrs := content.Attributes
	u := r.scope.unit
	if a, ok := attrs["provider"]; ok {
		r.provider = d.providerRef(u, a, &diags)
	}
	if a, ok := attrs["type"]; ok {
		r.typ = stringAttr(u.ctx, a, &diags)
		if r.typ == "" && !diags.HasErrors() {
			diags = append(diags, diagErr(a.Expr.Range(), "Invalid type", "resource %q needs a non-empty type.", r.name))
		}
	}
	if a, ok := attrs["inputs"]; ok {
		r.inputs = a.Expr
	}
	c, hasCount := attrs["count"]
	f, hasForEach := attrs["for_each"]
	switch {
	case hasCount && hasForEach:
		diags = append(diags, diagErr(f.NameRange, "Invalid combination",
			"resource %q has both count and for_each; use one.", r.name))
	case hasCount:
		r.expand, r.expandBy = expandCount, c.Expr
	case hasForEach:
		r.expand, r.expandBy = expandForEach, f.Expr
	}
	refresh, set := d.decodeRefresh(u.ctx, fmt.Sprintf("resource %q", r.name), attrs, &diags)
	r.refresh, r.noRefresh = refresh, set && !refresh
	for i, lb := range content.Blocks {
		if i > 0 {
			diags = append(diags, diagErr(lb.DefRange, "Duplicate lifecycle block",
				"resource %q has more than one lifecycle block; merge them.", r.name))
			continue
		}
		r.lifecycle = d.decodeLifecycle(r, lb, &diags)
	}
	return content, diags
}

// decodeLifecycle reads a lifecycle block. Its values must be known when
// the deployment loads, as in Terraform: they decide what a plan may do.
func (d *Deployment) decodeLifecycle(r *resourceDecl, b *hcl.Block, diags *hcl.Diagnostics) *source.Lifecycle {
	content, ds := b.Body.Content(lifecycleSchema)
	*diags = append(*diags, ds...)
	lc := &source.Lifecycle{Range: toSourceRange(b.DefRange)}
	boolAttr := func(name string, dst *bool) {
		a, ok := content.Attributes[name]
		if !ok {
			return
		}
		v, ds := a.Expr.Value(r.scope.unit.ctx)
		*diags = append(*diags, ds...)
		if ds.HasErrors() {
			return
		}
		v, _ = v.Unmark()
		if !v.IsKnown() || v.IsNull() || v.Type() != cty.Bool {
			*diags = append(*diags, diagErr(a.Expr.Range(), "Invalid lifecycle setting",
				"lifecycle.%s of resource %q must be true or false, known when the deployment loads.", name, r.name))
			return
		}
		*dst = v.True()
	}
	boolAttr("create_before_destroy", &lc.CreateBeforeDestroy)
	boolAttr("prevent_destroy", &lc.PreventDestroy)
	if a, ok := content.Attributes["prevent_destroy"]; ok {
		lc.Range = toSourceRange(a.NameRange)
	}
	if a, ok := content.Attributes["ignore_changes"]; ok {
		lc.IgnoreChanges = ignoreChangesPaths(r.name, a, diags)
	}
	for _, cb := range content.Blocks {
		r.decodeCondition(cb, diags)
	}
	return lc
}

// ignoreChangesPaths reads ignore_changes: a list of references into the
// inputs (inputs.tags, inputs.tags["owner"]) or the keyword all.
func ignoreChangesPaths(name string, a *hcl.Attribute, diags *hcl.Diagnostics) []string {
	if kw := hcl.ExprAsKeyword(a.Expr); kw == "all" {
		return []string{"*"}
	}
	exprs, ds := hcl.ExprList(a.Expr)
	*diags = append(*diags, ds...)
	var out []string
	for _, e := range exprs {
		tr, ds := hcl.AbsTraversalForExpr(e)
		bad := func() {
			*diags = append(*diags, diagErr(e.Range(), "Invalid ignore_changes entry",
				"lifecycle.ignore_changes of resource %q lists inputs by reference, like inputs.NAME or inputs.NAME.KEY, or is the keyword all.", name))
		}
		if ds.HasErrors() || len(tr) < 2 || tr.RootName() != "inputs" {
			bad()
			continue
		}
		var parts []string
		ok := true
		for _, step := range tr[1:] {
			switch s := step.(type) {
			case hcl.TraverseAttr:
				parts = append(parts, s.Name)
			case hcl.TraverseIndex:
				if s.Key.Type() == cty.String {
					parts = append(parts, s.Key.AsString())
				} else {
					ok = false
				}
			default:
				ok = false
			}
		}
		if !ok {
			bad()
			continue
		}
		out = append(out, strings.Join(parts, "."))
	}
	return out
}

// providerRef resolves provider.NAME in unit u to its key in
// d.providers. A module instance sees only the providers its block
// passes and those it declares.
func (d *Deployment) providerRef(u *unit, a *hcl.Attribute, diags *hcl.Diagnostics) string {
	tr, ds := hcl.AbsTraversalForExpr(a.Expr)
	if ds.HasErrors() || len(tr) != 2 || tr.RootName() != "provider" {
		*diags = append(*diags, diagErr(a.Expr.Range(), "Invalid provider reference",
			"provider must be a reference like provider.NAME."))
		return ""
	}
	step, ok := tr[1].(hcl.TraverseAttr)
	if !ok {
		*diags = append(*diags, diagErr(a.Expr.Range(), "Invalid provider reference",
			"provider must be a reference like provider.NAME."))
		return ""
	}
	key, ok := u.providers[step.Name]
	if !ok {
		hint := suggest(step.Name, slices.Sorted(maps.Keys(u.providers)))
		if u.call != nil {
			hint += fmt.Sprintf(" A module sees only the providers it declares and those its block passes, as in providers = { %s = provider.%s } at %s.", step.Name, step.Name, rangeString(u.call.block.DefRange))
		}
		*diags = append(*diags, diagErr(step.SrcRange, "Unknown provider",
			"no provider %q is declared.%s", step.Name, hint))
		return ""
	}
	return key
}

// linkResource resolves the references of a decoded resource block.
func (d *Deployment) linkResource(r *resourceDecl, content *hcl.BodyContent) hcl.Diagnostics {
	var diags hcl.Diagnostics
	if r.expandBy != nil {
		refs, ds := d.analyze(r.scope, r.expandBy, expandNone)
		diags = append(diags, ds...)
		r.refs = append(r.refs, refs...)
		r.expandRefs = len(refs) > 0
	}
	if r.inputs != nil {
		refs, ds := d.analyze(r.scope, r.inputs, r.expand)
		diags = append(diags, ds...)
		r.refs = append(r.refs, refs...)
	}
	if a, ok := content.Attributes["state"]; ok {
		ref, ds := d.stateRef(r.scope, a.Expr)
		diags = append(diags, ds...)
		if ref != nil {
			addr, ds := stateAddress(ref)
			diags = append(diags, ds...)
			if addr != nil {
				r.state, r.stateRef = addr, ref
			}
		}
	}
	if a, ok := content.Attributes["depends_on"]; ok {
		exprs, ds := hcl.ExprList(a.Expr)
		diags = append(diags, ds...)
		for _, e := range exprs {
			refs, ds := d.dependsOnRefs(r.scope, e)
			diags = append(diags, ds...)
			r.dependsOn = append(r.dependsOn, refs...)
		}
	}
	if len(r.conditions) > 0 {
		refs, ds := d.linkConditions(r)
		diags = append(diags, ds...)
		r.refs = append(r.refs, refs...)
		// A postcondition reads the instances' own outputs.
		r.watched = r.watched || r.postconditions
	}
	// A module block's depends_on orders every resource in it.
	r.dependsOn = append(r.dependsOn, r.scope.unit.dependsOn...)
	r.tree = d.exprTree(r.scope.unit, r.refs, append([]hcl.Expression{r.expandBy, r.inputs}, r.conditionExprs()...)...)
	if p := d.providers[r.provider]; p != nil {
		r.terraform = p.Terraform != ""
	}
	_, hasState := content.Attributes["state"]
	// A builtin adapter says which of its types keep their result in
	// state, and so make no sense without a state handler.
	if p := d.providers[r.provider]; p != nil && p.Builtin != "" && !hasState {
		caps := d.builtins[p.Builtin]
		if needs, input := caps.NeedsState(r.typ, func(name string) bool { return d.inputTrue(r, name) }); needs {
			what := "type " + r.typ
			if input != "" {
				what += " with " + input + " = true"
			}
			diags = append(diags, diagErr(r.defRange, "Missing state",
				"resource %q has %s on the builtin %s provider %q, which keeps its result in state: set state = resource.NAME of a state handler.", r.name, what, p.Builtin, r.provider))
		}
	}
	return diags
}

// traversalRef resolves a bare reference such as state = resource.s.
func (d *Deployment) traversalRef(s *scope, expr hcl.Expression) (*ref, hcl.Diagnostics) {
	tr, diags := hcl.AbsTraversalForExpr(expr)
	if diags.HasErrors() {
		return nil, hcl.Diagnostics{diagErr(expr.Range(), "Invalid reference",
			"expected a reference to a resource, like resource.NAME.")}
	}
	ref, diags := d.resourceRef(s, tr)
	if ref != nil && ref.kinds != refOutputs|refInputs {
		return nil, hcl.Diagnostics{diagErr(ref.rng, "Invalid reference",
			"expected a reference to a resource, like resource.NAME, without inputs or outputs.")}
	}
	return ref, diags
}

func stateAddress(ref *ref) (*source.Address, hcl.Diagnostics) {
	t := ref.target
	if t.expand != expandNone && ref.key == nil {
		return nil, hcl.Diagnostics{diagErr(ref.rng, "Invalid state reference",
			"resource %q has count or for_each: name one instance as the state handler, e.g. %s[0].", t.addr, t.addr)}
	}
	addr := append(source.Address{}, t.addr...)
	addr[len(addr)-1].Key = ref.key
	return &addr, nil
}

// inputTrue reports whether a resource's inputs set the boolean input
// name to true in a way Load can see (a literal or variable).
func (d *Deployment) inputTrue(r *resourceDecl, name string) bool {
	if r.inputs == nil {
		return false
	}
	pairs, diags := hcl.ExprMap(r.inputs)
	if diags.HasErrors() {
		return false
	}
	for _, p := range pairs {
		k, diags := p.Key.Value(nil)
		if diags.HasErrors() || !k.IsKnown() || k.Type() != cty.String || k.IsNull() || k.AsString() != name {
			continue
		}
		v, diags := p.Value.Value(r.scope.unit.ctx)
		if diags.HasErrors() {
			return false
		}
		v, _ = v.Unmark()
		return v.IsKnown() && v.Type() == cty.Bool && !v.IsNull() && v.True()
	}
	return false
}

func (d *Deployment) decodeOutput(b *hcl.Block) hcl.Diagnostics {
	name := b.Labels[0]
	for _, o := range d.outputs {
		if o.name == name {
			return hcl.Diagnostics{diagErr(b.DefRange, "Duplicate output",
				"output %q is already declared at %s.", name, rangeString(o.defRange))}
		}
	}
	content, diags := b.Body.Content(outputSchema)
	o := &outputDecl{name: name, defRange: b.DefRange}
	if a, ok := content.Attributes["sensitive"]; ok {
		v := evalAttr(d.baseCtx, a, cty.Bool, &diags)
		o.sensitive = v != cty.NilVal && !v.IsNull() && v.True()
	}
	if a, ok := content.Attributes["value"]; ok {
		o.value = a.Expr
		refs, ds := d.analyze(d.scope, a.Expr, expandNone)
		diags = append(diags, ds...)
		o.refs = refs
		o.tree = d.exprTree(d.rootUnit, refs, a.Expr)
	}
	d.outputs = append(d.outputs, o)
	return diags
}

// analyze resolves every reference in expr, read from scope s, and checks
// the other variables it uses.
func (d *Deployment) analyze(s *scope, expr hcl.Expression, exp expansion) ([]*ref, hcl.Diagnostics) {
	return d.analyzeTraversals(s, expr.Variables(), exp)
}

func (d *Deployment) analyzeTraversals(s *scope, trs []hcl.Traversal, exp expansion) ([]*ref, hcl.Diagnostics) {
	var refs []*ref
	var diags hcl.Diagnostics
	for _, tr := range trs {
		rng := tr.SourceRange()
		switch root := tr.RootName(); root {
		case "resource", "deployment":
			ref, ds := d.resourceRef(s, tr)
			diags = append(diags, ds...)
			if ref != nil {
				refs = append(refs, ref)
			}
		case "local":
			lrefs, ds := d.localRef(s, tr)
			diags = append(diags, ds...)
			refs = append(refs, lrefs...)
		case "module":
			mrefs, ds := d.moduleRef(s, tr)
			diags = append(diags, ds...)
			refs = append(refs, mrefs...)
		case "var":
			u := s.unit
			name, nr, ok := stepName(tr, 1)
			if !ok {
				diags = append(diags, diagErr(rng, "Invalid reference", "var must be followed by a variable name, as in var.NAME."))
			} else if _, ok := u.variables[name]; !ok {
				diags = append(diags, diagErr(nr, "Undeclared variable",
					"no variable %q is declared.%s", name, suggest(name, slices.Sorted(maps.Keys(u.variables)))))
			} else if a, ok := u.args[name]; ok {
				if ds := d.analyzeLocal(a, rng); ds.HasErrors() {
					diags = append(diags, ds...)
				} else {
					refs = append(refs, viaRefs(a)...)
				}
			}
		case "path":
			if name, _, ok := stepName(tr, 1); !ok || (name != "root" && name != "module") {
				diags = append(diags, diagErr(rng, "Invalid reference", "path has two attributes: path.root, the deployment directory, and path.module, the directory of the module's files."))
			}
		case "count":
			if exp != expandCount {
				diags = append(diags, diagErr(rng, "Invalid reference", "count.index is available only in the inputs of a resource with count."))
			} else if name, _, ok := stepName(tr, 1); !ok || name != "index" {
				diags = append(diags, diagErr(rng, "Invalid reference", "count has one attribute: count.index."))
			}
		case "each":
			if exp != expandForEach {
				diags = append(diags, diagErr(rng, "Invalid reference", "each.key and each.value are available only in the inputs of a resource with for_each."))
			} else if name, _, ok := stepName(tr, 1); !ok || (name != "key" && name != "value") {
				diags = append(diags, diagErr(rng, "Invalid reference", "each has two attributes: each.key and each.value."))
			}
		default:
			diags = append(diags, diagErr(rng, "Unknown variable",
				"there is no variable named %q: references start with resource, deployment, module, var, local, path, count or each.%s",
				root, suggest(root, []string{"resource", "deployment", "module", "var", "local", "path", "count", "each"})))
		}
	}
	return refs, diags
}

// stepName returns the name of the i-th step of tr, when it is a name.
func stepName(tr hcl.Traversal, i int) (string, hcl.Range, bool) {
	if i >= len(tr) {
		return "", hcl.Range{}, false
	}
	switch s := tr[i].(type) {
	case hcl.TraverseRoot:
		return s.Name, s.SrcRange, true
	case hcl.TraverseAttr:
		return s.Name, s.SrcRange, true
	}
	return "", hcl.Range{}, false
}

// resourceRef resolves resource.X… or deployment.D….resource.X… read from
// scope s. The first step looks outward through enclosing deployments;
// later deployment steps go inward only.
func (d *Deployment) resourceRef(s *scope, tr hcl.Traversal) (*ref, hcl.Diagnostics) {
	rng := tr.SourceRange()
	cur, first := s, true
	var path []string
	i := 0
	var target *resourceDecl
	for target == nil {
		kw, _, _ := stepName(tr, i)
		name, nr, ok := stepName(tr, i+1)
		switch kw {
		case "deployment":
			if !ok {
				return nil, hcl.Diagnostics{diagErr(rng, "Invalid reference",
					"deployment must be followed by a deployment name, as in deployment.NAME.resource.X.outputs.Y.")}
			}
			var c *scope
			if first {
				c = cur.lookupDeployment(name)
			} else {
				c = cur.children[name]
			}
			if c == nil {
				var names []string
				for x := cur; x != nil; x = x.parent {
					names = append(names, slices.Sorted(maps.Keys(x.children))...)
					if !first {
						break
					}
				}
				return nil, hcl.Diagnostics{diagErr(nr, "Unknown deployment",
					"no deployment %q is visible here.%s", name, suggest(name, names))}
			}
			cur, first = c, false
		case "resource":
			if !ok {
				return nil, hcl.Diagnostics{diagErr(rng, "Invalid reference",
					"resource must be followed by a resource name, as in resource.NAME.outputs.X.")}
			}
			if first {
				target = cur.lookupResource(name)
			} else {
				target = cur.resources[name]
			}
			if target == nil {
				// Suggestions are built only on error: listing names is
				// linear in the deployment.
				names := slices.Sorted(maps.Keys(cur.resources))
				if first {
					names = cur.visibleResources()
				}
				where := "here"
				if len(cur.path) > 0 && !first {
					where = "in deployment " + cur.path.String()
				}
				slices.Sort(names)
				return nil, hcl.Diagnostics{diagErr(nr, "Unknown resource",
					"no resource %q is declared %s.%s", name, where, suggest(name, names))}
			}
		default:
			return nil, hcl.Diagnostics{diagErr(rng, "Invalid reference",
				"expected resource.NAME or deployment.NAME.resource.NAME.")}
		}
		path = append(path, kw, name)
		i += 2
	}
	r := &ref{target: target, path: path, rng: rng, kinds: refOutputs | refInputs}
	rest := tr[i:]
	if len(rest) > 0 {
		if idx, ok := rest[0].(hcl.TraverseIndex); ok {
			key, ds := instanceKey(target, idx)
			if ds.HasErrors() {
				return nil, ds
			}
			r.key = key
			rest = rest[1:]
		}
	}
	if len(rest) == 0 {
		return r, nil
	}
	part, pr, ok := stepName(rest, 0)
	switch {
	case ok && part == "outputs":
		r.kinds = refOutputs
		if name, nr, ok := stepName(rest, 1); ok {
			r.output, r.outputRange = name, nr
		}
	case ok && part == "inputs":
		r.kinds = refInputs
	case ok:
		return nil, hcl.Diagnostics{diagErr(pr, "Unsupported attribute",
			"a resource has inputs and outputs, not %q.%s", part, suggest(part, []string{"inputs", "outputs"}))}
	default:
		return r, nil
	}
	if target.expand != expandNone && r.key == nil {
		return nil, hcl.Diagnostics{diagErr(pr, "Missing instance key",
			"resource %q has %s: pick an instance, as in %s, or iterate over resource.%s.",
			target.addr, expansionName(target.expand), instanceExample(target), target.name)}
	}
	return r, nil
}

func expansionName(e expansion) string {
	if e == expandCount {
		return "count"
	}
	return "for_each"
}

func instanceExample(t *resourceDecl) string {
	if t.expand == expandCount {
		return "resource." + t.name + "[0]"
	}
	return `resource.` + t.name + `["KEY"]`
}

// instanceKey checks a literal instance key against the target's
// expansion.
func instanceKey(t *resourceDecl, idx hcl.TraverseIndex) (any, hcl.Diagnostics) {
	k := idx.Key
	switch {
	case t.expand == expandNone:
		return nil, hcl.Diagnostics{diagErr(idx.SrcRange, "Unexpected instance key",
			"resource %q has neither count nor for_each, so it has no instances to index.", t.addr)}
	case t.expand == expandCount && k.Type() == cty.Number && k.IsKnown() && !k.IsNull():
		n, acc := k.AsBigFloat().Int64()
		if acc == big.Exact && n >= 0 {
			return int(n), nil
		}
	case t.expand == expandForEach && k.Type() == cty.String && k.IsKnown() && !k.IsNull():
		return k.AsString(), nil
	}
	want := "a whole number"
	if t.expand == expandForEach {
		want = "a string"
	}
	return nil, hcl.Diagnostics{diagErr(idx.SrcRange, "Invalid instance key",
		"resource %q has %s, so its instance keys are %s.", t.addr, expansionName(t.expand), want)}
}
