package hclsource

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// localDecl is one attribute of a locals block: a named expression, as in
// Terraform. Locals are top level only and are read as local.NAME from any
// block. A local's own references are resolved once, from the top level,
// like an output's: resource.X in a local means the top-level X wherever
// the local is read.
//
// A local is not a node of the resource graph. A block that reads it
// depends on what the local reads (analyze adds those references, marked
// via, to the block's), and each evaluation of the block evaluates the
// local again; read marks flow through, so Resolve's cache sees through
// the local to the instances it read.
//
// Module arguments that read resources or modules, and a module's
// outputs, are named expressions of the same kind (see module.go): unit
// is where the expression is read, which for an argument is the caller.
type localDecl struct {
	name     string
	expr     hcl.Expression
	defRange hcl.Range
	refs     []*ref
	tree     *ctxNode
	// analysing and analysed guard the resolution of local.X references
	// between locals, which Load does on demand, reporting cycles.
	analysing, analysed bool
	unit                *unit
	kind                localKind
	// exp and each are a module argument's count or for_each and its
	// instance's count or each object; variable is the module variable
	// it sets, whose type and sensitivity the value takes.
	exp      expansion
	each     map[string]cty.Value
	variable *variableDecl
	// sensitive is an output's sensitive = true.
	sensitive bool
}

// localKind says what a localDecl is, for messages.
type localKind uint8

const (
	kindLocal localKind = iota
	kindArgument
	kindOutput
)

// what names l in messages.
func (l *localDecl) what() string {
	switch l.kind {
	case kindArgument:
		return "argument " + l.name + " of " + l.variable.unit.scope.path.String()
	case kindOutput:
		return "output " + l.name + " of " + l.unit.scope.path.String()
	}
	return "local." + l.name
}

// decodeLocals records the attributes of every locals block. Their
// references are resolved later, in analyzeLocal, once every resource is
// declared.
func (d *Deployment) decodeLocals(u *unit, blocks hcl.Blocks) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, b := range blocks {
		attrs, ds := b.Body.JustAttributes()
		diags = append(diags, ds...)
		names := slices.Sorted(maps.Keys(attrs))
		for _, name := range names {
			a := attrs[name]
			if prev, ok := u.locals[name]; ok {
				diags = append(diags, diagErr(a.NameRange, "Duplicate local",
					"local %q is already declared at %s.", name, rangeString(prev.defRange)))
				continue
			}
			u.locals[name] = &localDecl{name: name, expr: a.Expr, defRange: a.Range, unit: u}
		}
	}
	return diags
}

// analyzeLocal resolves the references of l (and of the locals it reads),
// once.
func (d *Deployment) analyzeLocal(l *localDecl, use hcl.Range) hcl.Diagnostics {
	if l.analysed {
		return nil
	}
	if l.analysing {
		what := l.what()
		if l.kind == kindLocal {
			what = fmt.Sprintf("local %q", l.name)
		}
		return hcl.Diagnostics{diagErr(use, "Cycle in locals",
			"%s refers to itself, through the values it reads.", what)}
	}
	l.analysing = true
	refs, diags := d.analyze(l.unit.scope, l.expr, l.exp)
	l.analysing, l.analysed = false, true
	l.refs = refs
	l.tree = d.exprTree(l.unit, refs, l.expr)
	return diags
}

// viaRefs are l's references, marked as reached through it: a block that
// reads l depends on them, but its evaluation context holds l's value.
func viaRefs(l *localDecl) []*ref {
	out := make([]*ref, len(l.refs))
	for i, r := range l.refs {
		c := *r
		c.via = l
		out[i] = &c
	}
	return out
}

// localRef resolves local.NAME in an expression: the references of the
// local, marked as reached through it.
func (d *Deployment) localRef(s *scope, tr hcl.Traversal) ([]*ref, hcl.Diagnostics) {
	name, nr, ok := stepName(tr, 1)
	if !ok {
		return nil, hcl.Diagnostics{diagErr(tr.SourceRange(), "Invalid reference", "local must be followed by a local value's name, as in local.NAME.")}
	}
	l, ok := s.unit.locals[name]
	if !ok {
		return nil, hcl.Diagnostics{diagErr(nr, "Undeclared local",
			"no local %q is declared in a locals block.%s", name, suggest(name, slices.Sorted(maps.Keys(s.unit.locals))))}
	}
	if diags := d.analyzeLocal(l, tr.SourceRange()); diags.HasErrors() {
		return nil, diags
	}
	return viaRefs(l), nil
}

// exprTree builds the evaluation context shape of expressions read in
// unit u, given their references: the resources they reach directly,
// and the locals, module arguments and modules they read.
func (d *Deployment) exprTree(u *unit, refs []*ref, exprs ...hcl.Expression) *ctxNode {
	tree := buildTree(refs)
	tree.unit = u
	for _, e := range exprs {
		if e == nil {
			continue
		}
		for _, tr := range e.Variables() {
			name, _, ok := stepName(tr, 1)
			if !ok {
				continue
			}
			switch tr.RootName() {
			case "local":
				if l, ok := u.locals[name]; ok {
					if tree.locals == nil {
						tree.locals = map[string]*localDecl{}
					}
					tree.locals[name] = l
				}
			case "var":
				if a, ok := u.args[name]; ok {
					if tree.vars == nil {
						tree.vars = map[string]*localDecl{}
					}
					tree.vars[name] = a
				}
			case "module":
				if c, ok := u.modules[name]; ok {
					addModuleRead(tree, c, tr)
				}
			}
		}
	}
	return tree
}

// localValues evaluates the named expressions a block reads, as the
// object of their values by name.
func (d *Deployment) localValues(locals map[string]*localDecl) (cty.Value, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	vals := make(map[string]cty.Value, len(locals))
	for name, l := range locals {
		v, ds := d.localValue(l)
		diags = append(diags, ds...)
		vals[name] = v
	}
	return cty.ObjectVal(vals), diags
}

// localValue evaluates one named expression where it is read; an error
// makes it unknown, and is reported.
func (d *Deployment) localValue(l *localDecl) (cty.Value, hcl.Diagnostics) {
	ctx := l.unit.ctx.NewChild()
	vars, diags := d.refVariables(l.tree)
	for k, v := range l.each {
		vars[k] = v
	}
	ctx.Variables = vars
	v, ds := l.expr.Value(ctx)
	what := l.what()
	for _, diag := range ds {
		if diag.Detail != "" && !strings.Contains(diag.Detail, what) {
			diag.Detail = fmt.Sprintf("%s (in %s)", diag.Detail, what)
		}
	}
	diags = append(diags, ds...)
	if ds.HasErrors() {
		return cty.DynamicVal, diags
	}
	if l.variable != nil {
		c, ds := l.variable.convertMarked(v, l.expr.Range())
		diags = append(diags, ds...)
		if ds.HasErrors() {
			return cty.DynamicVal, diags
		}
		v = c
		if ds := d.validateArgument(l.variable, v); ds.HasErrors() {
			// As at load: a value its validation refuses is not used.
			return cty.DynamicVal, append(diags, ds...)
		}
	}
	if l.kind == kindOutput {
		if l.sensitive {
			v = v.Mark(sensitiveMark{})
		} else if hasSensitive(v) {
			return cty.DynamicVal, append(diags, diagErr(l.expr.Range(), "Output refers to sensitive values",
				"%s reads a sensitive value: declare it sensitive = true.", what))
		}
	}
	return v, diags
}
