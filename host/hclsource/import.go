package hclsource

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/pierhq/pier/host/source"
	"github.com/zclconf/go-cty/cty"
)

// An import block adopts an object that already exists into a resource
// of the deployment, as Terraform's (1.5+, for_each from 1.7):
//
//	import { to = resource.web, id = "i-0abc" }
//	import {
//	  for_each = var.ids
//	  to       = resource.site[each.key]
//	  id       = each.value
//	}
//
// for_each, to and id are known at load: they may use variables, path
// and functions, and each.key and each.value under for_each, but no
// resource.

var importSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "to", Required: true},
	{Name: "id", Required: true},
	{Name: "for_each"},
}}

func (d *Deployment) decodeImports(u *unit, blocks hcl.Blocks) hcl.Diagnostics {
	var diags hcl.Diagnostics
	// One address is imported once, whichever unit's block names it.
	if d.importedAt == nil {
		d.importedAt = map[string]hcl.Range{}
	}
	seen := d.importedAt
	for _, b := range blocks {
		content, ds := b.Body.Content(importSchema)
		diags = append(diags, ds...)
		if ds.HasErrors() {
			continue
		}
		to, id := content.Attributes["to"], content.Attributes["id"]
		one := func(ctx *hcl.EvalContext) {
			addr, ds := d.importTarget(u.scope, to.Expr, ctx)
			diags = append(diags, ds...)
			v := evalAttr(ctx, id, cty.String, &diags)
			if addr == nil || v == cty.NilVal {
				return
			}
			if v.IsNull() || v.AsString() == "" {
				diags = append(diags, diagErr(id.Expr.Range(), "Invalid import id", "the id of the import into %s is empty.", addr))
				return
			}
			if prev, dup := seen[addr.String()]; dup {
				diags = append(diags, diagErr(to.Expr.Range(), "Duplicate import target",
					"%s is already imported by the import block at %s.", addr, rangeString(prev)))
				return
			}
			seen[addr.String()] = b.DefRange
			d.imports = append(d.imports, &source.Import{To: addr, ID: v.AsString(), Range: toSourceRange(b.DefRange)})
		}
		fe, ok := content.Attributes["for_each"]
		if !ok {
			one(u.ctx)
			continue
		}
		v, ds := fe.Expr.Value(u.ctx)
		diags = append(diags, ds...)
		if ds.HasErrors() {
			continue
		}
		v, _ = v.UnmarkDeep()
		ty := v.Type()
		if v.IsNull() || !v.IsWhollyKnown() || !(ty.IsMapType() || ty.IsObjectType() || ty.IsSetType() && ty.ElementType() == cty.String) {
			diags = append(diags, diagErr(fe.Expr.Range(), "Invalid for_each",
				"for_each of an import block must be a map, an object or a set of strings, known when the deployment loads."))
			continue
		}
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			if ty.IsSetType() {
				k = e
			}
			ctx := u.ctx.NewChild()
			ctx.Variables = map[string]cty.Value{"each": cty.ObjectVal(map[string]cty.Value{"key": k, "value": e})}
			one(ctx)
		}
	}
	return diags
}

// importTarget reads an import block's to: a reference to a resource
// instance, whose key may be an expression (resource.site[each.key]).
func (d *Deployment) importTarget(s *scope, expr hcl.Expression, ctx *hcl.EvalContext) (source.Address, hcl.Diagnostics) {
	bad := hcl.Diagnostics{diagErr(expr.Range(), "Invalid import target",
		"to must be a resource of the deployment, like resource.NAME, resource.NAME[each.key], deployment.D.resource.NAME or module.M[KEY].resource.NAME.")}
	tr, ds := hcl.AbsTraversalForExpr(expr)
	if ds.HasErrors() {
		e := expr
		if _, native := expr.(hclsyntax.Expression); !native {
			// HCL's JSON syntax: the reference is a string.
			v, ds := expr.Value(nil)
			if ds.HasErrors() || v.Type() != cty.String || v.IsNull() {
				return nil, bad
			}
			parsed, ds := hclsyntax.ParseExpression([]byte(v.AsString()), expr.Range().Filename, expr.Range().Start)
			if ds.HasErrors() {
				return nil, bad
			}
			e = parsed
			if t, ds := hcl.AbsTraversalForExpr(e); !ds.HasErrors() {
				return d.importAddress(s, t, expr.Range())
			}
		}
		ix, ok := e.(*hclsyntax.IndexExpr)
		if !ok {
			return nil, bad
		}
		coll, ds := hcl.AbsTraversalForExpr(ix.Collection)
		if ds.HasErrors() {
			return nil, bad
		}
		key, ds := ix.Key.Value(ctx)
		if ds.HasErrors() {
			return nil, ds
		}
		key, _ = key.UnmarkDeep()
		if !key.IsKnown() || key.IsNull() {
			return nil, bad
		}
		tr = append(coll, hcl.TraverseIndex{Key: key, SrcRange: ix.Key.Range()})
	}
	return d.importAddress(s, tr, expr.Range())
}

// importAddress resolves an import target from scope s; it may go into
// module instances, as module.site["blog"].resource.page.
func (d *Deployment) importAddress(s *scope, tr hcl.Traversal, rng hcl.Range) (source.Address, hcl.Diagnostics) {
	s, tr, ds := d.moduleInstanceScope(s, tr)
	if ds.HasErrors() {
		return nil, ds
	}
	ref, ds := d.resourceRef(s, tr)
	if ds.HasErrors() {
		return nil, ds
	}
	if ref.kinds != refOutputs|refInputs {
		return nil, hcl.Diagnostics{diagErr(rng, "Invalid import target",
			"to names a resource, like resource.NAME, without inputs or outputs.")}
	}
	t := ref.target
	if t.expand != expandNone && ref.key == nil {
		return nil, hcl.Diagnostics{diagErr(rng, "Missing instance key",
			"resource %q has %s: import into one instance, as in %s.", t.addr, expansionName(t.expand), instanceExample(t))}
	}
	addr := append(source.Address{}, t.addr...)
	addr[len(addr)-1].Key = ref.key
	return addr, nil
}
