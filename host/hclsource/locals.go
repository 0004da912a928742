package hclsource

import (
	"fmt"
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
type localDecl struct {
	name     string
	expr     hcl.Expression
	defRange hcl.Range
	refs     []*ref
	tree     *ctxNode
	// analysing and analysed guard the resolution of local.X references
	// between locals, which Load does on demand, reporting cycles.
	analysing, analysed bool
}

// decodeLocals records the attributes of every locals block. Their
// references are resolved later, in analyzeLocal, once every resource is
// declared.
func (d *Deployment) decodeLocals(blocks hcl.Blocks) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, b := range blocks {
		attrs, ds := b.Body.JustAttributes()
		diags = append(diags, ds...)
		names := make([]string, 0, len(attrs))
		for name := range attrs {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			a := attrs[name]
			if prev, ok := d.locals[name]; ok {
				diags = append(diags, diagErr(a.NameRange, "Duplicate local",
					"local %q is already declared at %s.", name, rangeString(prev.defRange)))
				continue
			}
			d.locals[name] = &localDecl{name: name, expr: a.Expr, defRange: a.Range}
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
		return hcl.Diagnostics{diagErr(use, "Cycle in locals",
			"local %q refers to itself, through the locals it reads.", l.name)}
	}
	l.analysing = true
	refs, diags := d.analyze(d.scope, l.expr, expandNone)
	l.analysing, l.analysed = false, true
	l.refs = refs
	l.tree = buildTree(refs)
	l.tree.locals = d.localsIn(l.expr)
	return diags
}

// localRef resolves local.NAME in an expression: the references of the
// local, marked as reached through it.
func (d *Deployment) localRef(tr hcl.Traversal) ([]*ref, hcl.Diagnostics) {
	name, nr, ok := stepName(tr, 1)
	if !ok {
		return nil, hcl.Diagnostics{diagErr(tr.SourceRange(), "Invalid reference", "local must be followed by a local value's name, as in local.NAME.")}
	}
	l, ok := d.locals[name]
	if !ok {
		return nil, hcl.Diagnostics{diagErr(nr, "Undeclared local",
			"no local %q is declared in a locals block.%s", name, suggest(name, sortedKeys(d.locals)))}
	}
	if diags := d.analyzeLocal(l, tr.SourceRange()); diags.HasErrors() {
		return nil, diags
	}
	out := make([]*ref, len(l.refs))
	for i, r := range l.refs {
		c := *r
		c.via = l
		out[i] = &c
	}
	return out, nil
}

// localsIn lists the locals that expr reads directly.
func (d *Deployment) localsIn(expr hcl.Expression) map[string]*localDecl {
	var out map[string]*localDecl
	for _, tr := range expr.Variables() {
		if tr.RootName() != "local" {
			continue
		}
		if name, _, ok := stepName(tr, 1); ok {
			if l, ok := d.locals[name]; ok {
				if out == nil {
					out = map[string]*localDecl{}
				}
				out[name] = l
			}
		}
	}
	return out
}

// addLocals adds the locals that exprs read to tree.
func (d *Deployment) addLocals(tree *ctxNode, exprs ...hcl.Expression) {
	for _, e := range exprs {
		if e == nil {
			continue
		}
		for name, l := range d.localsIn(e) {
			if tree.locals == nil {
				tree.locals = map[string]*localDecl{}
			}
			tree.locals[name] = l
		}
	}
}

// localValues evaluates the locals a block reads, as the local object.
func (d *Deployment) localValues(locals map[string]*localDecl) (cty.Value, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	vals := make(map[string]cty.Value, len(locals))
	for name, l := range locals {
		ctx := d.baseCtx.NewChild()
		vars, ds := d.refVariables(l.tree)
		diags = append(diags, ds...)
		ctx.Variables = vars
		v, ds := l.expr.Value(ctx)
		for _, diag := range ds {
			if diag.Detail != "" && !strings.Contains(diag.Detail, "local."+name) {
				diag.Detail = fmt.Sprintf("%s (in local.%s)", diag.Detail, name)
			}
		}
		diags = append(diags, ds...)
		if ds.HasErrors() {
			v = cty.DynamicVal
		}
		vals[name] = v
	}
	return cty.ObjectVal(vals), diags
}
