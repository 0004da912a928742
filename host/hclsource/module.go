package hclsource

import (
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/pierhq/pier/host/source"
	"github.com/zclconf/go-cty/cty"
)

// A module block instantiates a directory of *.pier.hcl files, as
// Terraform's does:
//
//	module "site" {
//	  source    = "./modules/site"
//	  for_each  = toset(["blog", "shop"])
//	  name      = each.key               # the module's variable "name"
//	  state     = resource.state         # a state handler, passed explicitly
//	  providers = { local = provider.local }
//	  depends_on = [resource.db]         # every resource of the module follows it
//	}
//
// Each instance is a unit of its own: its variables are the block's
// arguments, its locals, providers, resources and module blocks are its
// own, and it sees nothing of the caller that is not passed to it. Its
// resources are addressed module.site["blog"].page and recorded as a
// nested deployment (see [source.Step.Module]). The caller reads its
// outputs as module.site["blog"].NAME.
//
// Instances are made at Load, so count and for_each must be known then
// (variables, locals that read no resource, literals); under
// Options.UnsetUnknown, one stand-in instance checks the body of a module
// whose count or for_each reads a variable without a value (see
// moduleCall.unknownKeys). An argument that
// is known at Load is the variable's value; one that reads resources or
// modules is a named expression like a local, evaluated where it is read
// (see localDecl), so the module's resources depend on what it reads.

// unit is the root deployment or one module instance: the names its
// blocks see.
type unit struct {
	dir       string // absolute directory of its files: path.module
	scope     *scope // its root scope
	variables map[string]*variableDecl
	// args are the arguments known only while resolving, by variable
	// name; the others are in ctx's var object.
	args      map[string]*localDecl
	locals    map[string]*localDecl
	providers map[string]string // provider.NAME → key in Deployment.providers
	modules   map[string]*moduleCall
	outputs   map[string]*localDecl // a module instance's output blocks
	ctx       *hcl.EvalContext
	// dependsOn are the depends_on of the module blocks around the unit:
	// every resource in it follows them.
	dependsOn []*ref
	call      *moduleCall // nil at the root
	key       any         // the instance key
	// blocks are the unit's blocks that Load links once every unit is
	// declared.
	blocks *unitBlocks
}

func newUnit(dir string) *unit {
	return &unit{
		dir:       dir,
		variables: map[string]*variableDecl{},
		args:      map[string]*localDecl{},
		locals:    map[string]*localDecl{},
		providers: map[string]string{},
		modules:   map[string]*moduleCall{},
		outputs:   map[string]*localDecl{},
	}
}

// moduleCall is one module block.
type moduleCall struct {
	name      string
	caller    *unit
	block     *hcl.Block
	args      hcl.Attributes // the arguments, without meta-arguments
	attrs     hcl.Attributes
	expand    expansion
	dir       string
	instances []*unit
	byKey     map[any]*unit
	dependsOn []*ref
	// unknownKeys is set when count or for_each is not known, which
	// happens only while a variable has no value (pier validate): one
	// instance, with an unknown count.index or each and no key, stands
	// for them all, so that the module's body is still checked, as
	// terraform validate checks it.
	unknownKeys bool
}

// moduleRead is what one block reads of a module block: the instances
// named by a written key, or all of them.
type moduleRead struct {
	call *moduleCall
	keys map[any]bool // nil: every instance
}

// metaArguments are the module block attributes that are not variables.
var metaArguments = []string{"source", "count", "for_each", "depends_on", "providers", "version"}

func addModuleRead(tree *ctxNode, c *moduleCall, tr hcl.Traversal) {
	if tree.modules == nil {
		tree.modules = map[string]*moduleRead{}
	}
	mr, ok := tree.modules[c.name]
	if !ok {
		mr = &moduleRead{call: c, keys: map[any]bool{}}
		tree.modules[c.name] = mr
	}
	if mr.keys == nil {
		return
	}
	if len(tr) > 2 && c.expand != expandNone {
		if idx, ok := tr[2].(hcl.TraverseIndex); ok {
			if k, ok := literalKey(c.expand, idx.Key); ok {
				mr.keys[k] = true
				return
			}
		}
	}
	if c.expand != expandNone {
		mr.keys = nil
	}
}

// literalKey converts a written instance key to the form of the
// instances' keys.
func literalKey(exp expansion, k cty.Value) (any, bool) {
	if !k.IsKnown() || k.IsNull() {
		return nil, false
	}
	switch {
	case exp == expandCount && k.Type() == cty.Number:
		n, acc := k.AsBigFloat().Int64()
		if acc == 0 && n >= 0 {
			return int(n), true
		}
	case exp == expandForEach && k.Type() == cty.String:
		return k.AsString(), true
	}
	return nil, false
}

// declareModule records a module block of unit u and makes its
// instances.
func (d *Deployment) declareModule(u *unit, b *hcl.Block) hcl.Diagnostics {
	name := b.Labels[0]
	if prev, ok := u.modules[name]; ok {
		return hcl.Diagnostics{diagErr(b.DefRange, "Duplicate module",
			"module %q is already declared at %s.", name, rangeString(prev.block.DefRange))}
	}
	attrs, diags := b.Body.JustAttributes()
	if diags.HasErrors() {
		return diags
	}
	c := &moduleCall{name: name, caller: u, block: b, attrs: attrs, args: hcl.Attributes{}, byKey: map[any]*unit{}}
	u.modules[name] = c
	for n, a := range attrs {
		if !slices.Contains(metaArguments, n) {
			c.args[n] = a
		}
	}
	src, ok := attrs["source"]
	if !ok {
		return append(diags, diagErr(b.DefRange, "Missing source", "module %q needs a source, such as source = \"./modules/%s\".", name, name))
	}
	dir, ds := d.moduleSource(b, src)
	diags = append(diags, ds...)
	if ds.HasErrors() {
		return diags
	}
	c.dir = dir
	bodies, ds := d.moduleBodies(dir, src.Expr.Range())
	diags = append(diags, ds...)
	if ds.HasErrors() {
		return diags
	}

	keys := []any{nil}
	var perKey []map[string]cty.Value
	cnt, hasCount := attrs["count"]
	fe, hasForEach := attrs["for_each"]
	var by *hcl.Attribute
	switch {
	case hasCount && hasForEach:
		return append(diags, diagErr(fe.NameRange, "Invalid combination", "module %q has both count and for_each; use one.", name))
	case hasCount:
		c.expand, by = expandCount, cnt
	case hasForEach:
		c.expand, by = expandForEach, fe
	}
	if by != nil {
		what := expansionName(c.expand)
		if !d.staticExpr(u, by.Expr, nil) {
			return append(diags, diagErr(by.Expr.Range(), "Invalid "+what,
				"%s of module %q must be known when the deployment loads: it may read variables, locals that read no resource, and literals, not resources or modules.", what, name))
		}
		v, ds := d.staticValue(u, by.Expr, nil)
		diags = append(diags, ds...)
		if ds.HasErrors() {
			return diags
		}
		if v.IsWhollyKnown() {
			keys, perKey, _, ds = d.expandValue("module "+quote(name), c.expand, v, by.Expr.Range())
			diags = append(diags, ds...)
			if ds.HasErrors() {
				return diags
			}
		} else {
			// Only a variable without a value is unknown at load.
			c.unknownKeys = true
			perKey = []map[string]cty.Value{unknownEach(c.expand)}
		}
	}
	for i, key := range keys {
		var each map[string]cty.Value
		if perKey != nil {
			each = perKey[i]
		} else if c.expand == expandCount {
			each = countVars(i)
		}
		inst := newUnit(dir)
		inst.call, inst.key = c, key
		step := source.Step{Name: name, Key: key, Module: true}
		inst.scope = &scope{
			name: name, unit: inst, rng: b.DefRange,
			path:      append(append(source.Address{}, u.scope.path...), step),
			resources: map[string]*resourceDecl{}, children: map[string]*scope{},
		}
		diags = append(diags, d.declareUnit(inst, bodies, func() (cty.Value, hcl.Diagnostics) {
			return d.moduleArgs(inst, each, i == 0)
		})...)
		c.instances = append(c.instances, inst)
		c.byKey[key] = inst
		u.scope.instances = append(u.scope.instances, inst)
	}
	return diags
}

func quote(s string) string { return `"` + s + `"` }

// unknownEach is the count or each object of the instance that stands for
// the instances of an unknown count or for_each.
func unknownEach(exp expansion) map[string]cty.Value {
	if exp == expandCount {
		return map[string]cty.Value{"count": cty.ObjectVal(map[string]cty.Value{"index": cty.UnknownVal(cty.Number)})}
	}
	return eachVars(cty.UnknownVal(cty.String), cty.DynamicVal)
}

// moduleSource resolves a module block's source to a directory: a path
// relative to the file of the block, or a git source fetched into the
// cache (see Options.Modules).
func (d *Deployment) moduleSource(b *hcl.Block, a *hcl.Attribute) (string, hcl.Diagnostics) {
	v, diags := a.Expr.Value(nil)
	if diags.HasErrors() || v.Type() != cty.String || v.IsNull() {
		return "", hcl.Diagnostics{diagErr(a.Expr.Range(), "Invalid source",
			"the source of module %q must be a literal string, such as \"./modules/%s\" or \"git::URL//DIR?ref=REF\".", b.Labels[0], b.Labels[0])}
	}
	raw := v.AsString()
	if strings.HasPrefix(raw, "./") || strings.HasPrefix(raw, "../") {
		dir := filepath.Join(filepath.Dir(b.DefRange.Filename), raw)
		abs, err := filepath.Abs(dir)
		if err != nil {
			return "", hcl.Diagnostics{diagErr(a.Expr.Range(), "Invalid source", "module %q: %s.", b.Labels[0], err)}
		}
		return abs, nil
	}
	if d.fetchModule != nil {
		if dir, ok, err := d.fetchModule(raw); ok {
			if err != nil {
				return "", hcl.Diagnostics{diagErr(a.Expr.Range(), "Module source not available", "module %q: %s.", b.Labels[0], err)}
			}
			return dir, nil
		}
	}
	return "", hcl.Diagnostics{diagErr(a.Expr.Range(), "Invalid source",
		"module %q: source %q is neither a local path (starting with ./ or ../) nor a git source (git::URL//DIR?ref=REF).", b.Labels[0], raw)}
}

// moduleBodies parses a module directory's files, once however many
// blocks and instances use it.
func (d *Deployment) moduleBodies(dir string, rng hcl.Range) ([]hcl.Body, hcl.Diagnostics) {
	if bodies, ok := d.moduleFiles[dir]; ok {
		return bodies, nil
	}
	files, err := readDir(dir)
	if err != nil {
		return nil, hcl.Diagnostics{diagErr(rng, "Unreadable module", "module directory %s: %s.", dir, err)}
	}
	var bodies []hcl.Body
	var diags hcl.Diagnostics
	for _, f := range files {
		file, ds := parseFile(d.parser, f.path, f.src)
		diags = append(diags, ds...)
		if file != nil {
			bodies = append(bodies, file.Body)
		}
	}
	if diags.HasErrors() {
		return nil, diags
	}
	d.moduleFiles[dir] = bodies
	return bodies, nil
}

// moduleArgs checks a module instance's arguments against its variables
// and returns the var object of the values known at Load; the others
// become u.args. check reports unknown arguments, once per block.
func (d *Deployment) moduleArgs(u *unit, each map[string]cty.Value, check bool) (cty.Value, hcl.Diagnostics) {
	c := u.call
	var diags hcl.Diagnostics
	vals := map[string]cty.Value{}
	for _, name := range slices.Sorted(maps.Keys(c.args)) {
		a := c.args[name]
		v, ok := u.variables[name]
		if !ok {
			if check {
				diags = append(diags, diagErr(a.NameRange, "Unsupported argument",
					"module %q has no variable %q.%s", c.name, name, suggest(name, slices.Sorted(maps.Keys(u.variables)))))
			}
			continue
		}
		if d.staticExpr(c.caller, a.Expr, each) {
			val, ds := d.staticValue(c.caller, a.Expr, each)
			if !ds.HasErrors() {
				val, ds = v.convertMarked(val, a.Expr.Range())
			}
			diags = append(diags, ds...)
			if !ds.HasErrors() {
				vals[name] = val
			}
			continue
		}
		u.args[name] = &localDecl{name: name, expr: a.Expr, defRange: a.Range, unit: c.caller,
			kind: kindArgument, exp: c.expand, each: each, variable: v}
		vals[name] = cty.DynamicVal
	}
	for _, name := range slices.Sorted(maps.Keys(u.variables)) {
		v := u.variables[name]
		if _, ok := c.args[name]; ok {
			continue
		}
		switch {
		case v.def != cty.NilVal:
			vals[name] = v.def
			if v.sensitive {
				vals[name] = v.def.Mark(sensitiveMark{})
			}
		case !v.given && check:
			diags = append(diags, diagErr(c.block.DefRange, "Missing required argument",
				"module %q needs argument %q: its variable at %s has no default.", c.name, name, rangeString(v.defRange)))
		}
	}
	if len(vals) == 0 {
		return cty.EmptyObjectVal, diags
	}
	return cty.ObjectVal(vals), diags
}

// staticExpr reports whether expr, read in unit u, is known at Load: it
// reads only variables known then, path, count and each (given), and
// locals that are static themselves.
func (d *Deployment) staticExpr(u *unit, expr hcl.Expression, each map[string]cty.Value) bool {
	return d.staticIn(u, expr, each, 0)
}

func (d *Deployment) staticIn(u *unit, expr hcl.Expression, each map[string]cty.Value, depth int) bool {
	if depth > 64 {
		return false // a cycle of locals; their analysis reports it
	}
	for _, tr := range expr.Variables() {
		name, _, _ := stepName(tr, 1)
		switch root := tr.RootName(); root {
		case "var":
			if _, dyn := u.args[name]; dyn {
				return false
			}
		case "path":
		case "count", "each":
			if _, ok := each[root]; !ok {
				return false
			}
		case "local":
			l, ok := u.locals[name]
			if !ok || !d.staticIn(u, l.expr, nil, depth+1) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// staticValue evaluates a static expression (see staticExpr).
func (d *Deployment) staticValue(u *unit, expr hcl.Expression, each map[string]cty.Value) (cty.Value, hcl.Diagnostics) {
	ctx := u.ctx.NewChild()
	ctx.Variables = map[string]cty.Value{}
	for k, v := range each {
		ctx.Variables[k] = v
	}
	var diags hcl.Diagnostics
	locals := map[string]cty.Value{}
	for _, tr := range expr.Variables() {
		if tr.RootName() != "local" {
			continue
		}
		name, _, _ := stepName(tr, 1)
		if _, done := locals[name]; done {
			continue
		}
		v, ds := d.staticValue(u, u.locals[name].expr, nil)
		diags = append(diags, ds...)
		locals[name] = v
	}
	if len(locals) > 0 {
		ctx.Variables["local"] = cty.ObjectVal(locals)
	}
	if diags.HasErrors() {
		return cty.DynamicVal, diags
	}
	return expr.Value(ctx)
}

// moduleProviders fills a module instance's providers from its block's
// providers = { NAME = provider.NAME } map, resolved in the caller.
func (d *Deployment) moduleProviders(u *unit) hcl.Diagnostics {
	a, ok := u.call.attrs["providers"]
	if !ok {
		return nil
	}
	pairs, diags := hcl.ExprMap(a.Expr)
	if diags.HasErrors() {
		return hcl.Diagnostics{diagErr(a.Expr.Range(), "Invalid providers",
			"providers must be a map such as { local = provider.local }.")}
	}
	for _, p := range pairs {
		name := hcl.ExprAsKeyword(p.Key)
		if name == "" {
			diags = append(diags, diagErr(p.Key.Range(), "Invalid providers", "a providers key is the name the module uses, such as local."))
			continue
		}
		key := d.providerRef(u.call.caller, &hcl.Attribute{Name: "providers", Expr: p.Value, Range: p.Value.Range()}, &diags)
		if key != "" {
			u.providers[name] = key
		}
	}
	return diags
}

// moduleRef resolves module.NAME[KEY].OUTPUT read from scope s: the
// references of the outputs it reads, through them.
func (d *Deployment) moduleRef(s *scope, tr hcl.Traversal) ([]*ref, hcl.Diagnostics) {
	rng := tr.SourceRange()
	name, nr, ok := stepName(tr, 1)
	if !ok {
		return nil, hcl.Diagnostics{diagErr(rng, "Invalid reference", "module must be followed by a module name, as in module.NAME.OUTPUT.")}
	}
	c, insts, rest, diags := d.moduleInstances(s, name, nr, tr[2:])
	if diags.HasErrors() {
		return nil, diags
	}
	var outs []*localDecl
	if out, orng, ok := stepName(rest, 0); ok {
		if c.expand != expandNone && len(insts) != 1 {
			return nil, hcl.Diagnostics{diagErr(orng, "Missing instance key",
				"module %q has %s: pick an instance, as in module.%s[%s].%s, or iterate over module.%s.", name, expansionName(c.expand), name, exampleKey(c.expand), out, name)}
		}
		for _, inst := range insts {
			o, ok := inst.outputs[out]
			if !ok {
				return nil, hcl.Diagnostics{diagErr(orng, "Unknown output",
					"module %q has no output %q.%s", name, out, suggest(out, slices.Sorted(maps.Keys(inst.outputs))))}
			}
			outs = append(outs, o)
		}
	} else {
		for _, inst := range insts {
			for _, n := range slices.Sorted(maps.Keys(inst.outputs)) {
				outs = append(outs, inst.outputs[n])
			}
		}
	}
	var refs []*ref
	for _, o := range outs {
		if ds := d.analyzeLocal(o, rng); ds.HasErrors() {
			return nil, ds
		}
		refs = append(refs, viaRefs(o)...)
	}
	return refs, nil
}

func exampleKey(e expansion) string {
	if e == expandCount {
		return "0"
	}
	return `"KEY"`
}

// moduleInstances finds module block name in s's unit and the instances
// that steps (after module.NAME) name: the one a written key names, or
// all. It returns the steps after the key.
func (d *Deployment) moduleInstances(s *scope, name string, nr hcl.Range, steps hcl.Traversal) (*moduleCall, []*unit, hcl.Traversal, hcl.Diagnostics) {
	c, ok := s.unit.modules[name]
	if !ok {
		return nil, nil, nil, hcl.Diagnostics{diagErr(nr, "Unknown module",
			"no module %q is declared here.%s", name, suggest(name, slices.Sorted(maps.Keys(s.unit.modules))))}
	}
	if len(steps) == 0 {
		return c, c.instances, steps, nil
	}
	idx, ok := steps[0].(hcl.TraverseIndex)
	if !ok {
		return c, c.instances, steps, nil
	}
	if c.expand == expandNone {
		return nil, nil, nil, hcl.Diagnostics{diagErr(idx.SrcRange, "Unexpected instance key",
			"module %q has neither count nor for_each, so it has no instances to index.", name)}
	}
	key, ok := literalKey(c.expand, idx.Key)
	if c.unknownKeys && (ok || !idx.Key.IsKnown()) {
		// Any key may name an instance: its one stand-in.
		return c, c.instances, steps[1:], nil
	}
	if !ok {
		if !idx.Key.IsKnown() {
			return c, c.instances, steps[1:], nil
		}
		return nil, nil, nil, hcl.Diagnostics{diagErr(idx.SrcRange, "Invalid instance key",
			"module %q has %s, so its instance keys are %s.", name, expansionName(c.expand), map[bool]string{true: "whole numbers", false: "strings"}[c.expand == expandCount])}
	}
	inst, ok := c.byKey[key]
	if !ok {
		return nil, nil, nil, hcl.Diagnostics{diagErr(idx.SrcRange, "Unknown module instance",
			"module %q has no instance %s; it has %d.", name, source.Address{{Name: name, Key: key, Module: true}}, len(c.instances))}
	}
	return c, []*unit{inst}, steps[1:], nil
}

// moduleValue is what module.NAME evaluates to: the object of an
// instance's outputs, in a tuple for count and an object for for_each.
// Instances the reader does not name by key are left unknown.
func (d *Deployment) moduleValue(mr *moduleRead) (cty.Value, hcl.Diagnostics) {
	c := mr.call
	if c.unknownKeys {
		// Neither its keys nor its length are known.
		return cty.DynamicVal, nil
	}
	var diags hcl.Diagnostics
	instValue := func(u *unit) cty.Value {
		if mr.keys != nil && c.expand != expandNone && !mr.keys[u.key] {
			return cty.DynamicVal
		}
		if len(u.outputs) == 0 {
			return cty.EmptyObjectVal
		}
		vals := make(map[string]cty.Value, len(u.outputs))
		for name, o := range u.outputs {
			v, ds := d.localValue(o)
			diags = append(diags, ds...)
			vals[name] = v
		}
		return cty.ObjectVal(vals)
	}
	switch c.expand {
	case expandNone:
		return instValue(c.instances[0]), diags
	case expandCount:
		if len(c.instances) == 0 {
			return cty.EmptyTupleVal, nil
		}
		vals := make([]cty.Value, len(c.instances))
		for i, u := range c.instances {
			vals[i] = instValue(u)
		}
		return cty.TupleVal(vals), diags
	}
	if len(c.instances) == 0 {
		return cty.EmptyObjectVal, nil
	}
	vals := make(map[string]cty.Value, len(c.instances))
	for _, u := range c.instances {
		vals[u.key.(string)] = instValue(u)
	}
	return cty.ObjectVal(vals), diags
}

// varValue is the var object a block of unit u sees when it reads
// arguments known only while resolving.
func (d *Deployment) varValue(u *unit, args map[string]*localDecl) (cty.Value, hcl.Diagnostics) {
	static := u.ctx.Variables["var"]
	vals := make(map[string]cty.Value, len(u.variables))
	if static.Type().IsObjectType() {
		for k, v := range static.AsValueMap() {
			vals[k] = v
		}
	}
	var diags hcl.Diagnostics
	for name, a := range args {
		v, ds := d.localValue(a)
		diags = append(diags, ds...)
		vals[name] = v
	}
	return cty.ObjectVal(vals), diags
}

// moduleResources lists the resource blocks of every instance of c and
// the modules within them, for depends_on = [module.NAME].
func moduleResources(insts []*unit) []*resourceDecl {
	var out []*resourceDecl
	for _, u := range insts {
		var walk func(s *scope)
		walk = func(s *scope) {
			for _, name := range s.members {
				if r, ok := s.resources[name]; ok {
					out = append(out, r)
				} else if c, ok := s.children[name]; ok {
					walk(c)
				}
			}
			for _, inst := range s.instances {
				out = append(out, moduleResources([]*unit{inst})...)
			}
		}
		walk(u.scope)
	}
	return out
}

// dependsOnRefs resolves one depends_on entry: a resource, or a module
// (every resource in its instances).
func (d *Deployment) dependsOnRefs(s *scope, expr hcl.Expression) ([]*ref, hcl.Diagnostics) {
	tr, ds := hcl.AbsTraversalForExpr(expr)
	if !ds.HasErrors() && tr.RootName() == "module" {
		name, nr, ok := stepName(tr, 1)
		if !ok {
			return nil, hcl.Diagnostics{diagErr(expr.Range(), "Invalid reference", "expected module.NAME.")}
		}
		_, insts, rest, diags := d.moduleInstances(s, name, nr, tr[2:])
		if diags.HasErrors() {
			return nil, diags
		}
		if len(rest) > 0 {
			return nil, hcl.Diagnostics{diagErr(expr.Range(), "Invalid reference",
				"depends_on names a whole module, like module.NAME or module.NAME[KEY], without outputs.")}
		}
		var refs []*ref
		for _, r := range moduleResources(insts) {
			refs = append(refs, &ref{target: r, kinds: refOutputs | refInputs, rng: expr.Range()})
		}
		return refs, nil
	}
	r, diags := d.traversalRef(s, expr)
	if r == nil {
		return nil, diags
	}
	return []*ref{r}, diags
}

// stateRef resolves a resource's state: resource.NAME, or var.NAME of a
// module whose argument passes a state handler.
func (d *Deployment) stateRef(s *scope, expr hcl.Expression) (*ref, hcl.Diagnostics) {
	tr, ds := hcl.AbsTraversalForExpr(expr)
	if ds.HasErrors() || tr.RootName() != "var" {
		return d.traversalRef(s, expr)
	}
	name, nr, _ := stepName(tr, 1)
	a, ok := s.unit.args[name]
	if !ok || len(tr) != 2 {
		return nil, hcl.Diagnostics{diagErr(nr, "Invalid state reference",
			"state = var.%s needs a variable that the module block sets to a state handler, as in state = resource.NAME.", name)}
	}
	return d.stateRef(a.unit.scope, a.expr)
}

// moduleInstanceScope follows module.NAME[KEY] steps at the start of tr
// from unit u, for import blocks: it returns the scope reached and the
// rest of tr.
func (d *Deployment) moduleInstanceScope(s *scope, tr hcl.Traversal) (*scope, hcl.Traversal, hcl.Diagnostics) {
	for tr.RootName() == "module" || (len(tr) > 0 && isAttr(tr[0], "module")) {
		name, nr, ok := stepName(tr, 1)
		if !ok {
			return nil, nil, hcl.Diagnostics{diagErr(tr.SourceRange(), "Invalid reference", "expected module.NAME.")}
		}
		c, insts, rest, diags := d.moduleInstances(s, name, nr, tr[2:])
		if diags.HasErrors() {
			return nil, nil, diags
		}
		if c.expand != expandNone && len(rest) == len(tr)-2 {
			return nil, nil, hcl.Diagnostics{diagErr(nr, "Missing instance key",
				"module %q has %s: name one instance, as in module.%s[%s].", name, expansionName(c.expand), name, exampleKey(c.expand))}
		}
		s = insts[0].scope
		tr = rootedAt(rest)
	}
	return s, tr, nil
}

func isAttr(t hcl.Traverser, name string) bool {
	a, ok := t.(hcl.TraverseAttr)
	return ok && a.Name == name
}

// rootedAt makes a relative traversal absolute, so that stepName and
// RootName read its first step.
func rootedAt(tr hcl.Traversal) hcl.Traversal {
	if len(tr) == 0 {
		return tr
	}
	if a, ok := tr[0].(hcl.TraverseAttr); ok {
		return append(hcl.Traversal{hcl.TraverseRoot{Name: a.Name, SrcRange: a.SrcRange}}, tr[1:]...)
	}
	return tr
}
