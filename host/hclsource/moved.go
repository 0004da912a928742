package hclsource

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/pierhq/pier/host/source"
)

// A moved block says that what was recorded at one address belongs at
// another now, as Terraform's moved block:
//
//	moved {
//	  from = resource.old
//	  to   = resource.new                      # or module.site["blog"].resource.new
//	}
//
// from and to are addresses, not references: from is usually no longer
// declared. Both end in a resource or both in a module instance
// (module.M[KEY]), which moves everything under it; see
// [source.Moved.Rewrite] for keys. In a module they
// are relative to the module instance. The engine follows chains of
// moves and refuses one whose target is recorded already.

var movedSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "from", Required: true},
	{Name: "to", Required: true},
}}

func (d *Deployment) decodeMoved(u *unit, blocks hcl.Blocks) hcl.Diagnostics {
	var diags hcl.Diagnostics
	seen := map[string]hcl.Range{}
	for _, b := range blocks {
		content, ds := b.Body.Content(movedSchema)
		diags = append(diags, ds...)
		if ds.HasErrors() {
			continue
		}
		fa, ta := content.Attributes["from"], content.Attributes["to"]
		from, ds := movedAddress(u.scope, fa.Expr)
		diags = append(diags, ds...)
		to, ds := movedAddress(u.scope, ta.Expr)
		diags = append(diags, ds...)
		if from == nil || to == nil {
			continue
		}
		fl, tl := from[len(from)-1], to[len(to)-1]
		switch {
		case fl.Module != tl.Module:
			diags = append(diags, diagErr(ta.Expr.Range(), "Invalid moved block",
				"from %s and to %s must both be resources or both module instances.", from, to))
			continue
		case from.String() == to.String():
			diags = append(diags, diagErr(ta.Expr.Range(), "Invalid moved block", "from and to are both %s: nothing moves.", from))
			continue
		}
		if prev, dup := seen[from.String()]; dup {
			diags = append(diags, diagErr(fa.Expr.Range(), "Duplicate moved block",
				"%s is already moved by the moved block at %s.", from, rangeString(prev)))
			continue
		}
		seen[from.String()] = b.DefRange
		d.moved = append(d.moved, &source.Moved{From: from, To: to, Range: toSourceRange(b.DefRange)})
	}
	return diags
}

// movedAddress reads a moved block's from or to: deployment.D and
// module.M[KEY] steps, then resource.NAME[KEY], or ending in a module
// instance.
func movedAddress(s *scope, expr hcl.Expression) (source.Address, hcl.Diagnostics) {
	bad := hcl.Diagnostics{diagErr(expr.Range(), "Invalid moved address",
		"from and to are addresses like resource.NAME, resource.NAME[0], deployment.D.resource.NAME, module.M[KEY].resource.NAME or module.M[KEY].")}
	tr, ds := hcl.AbsTraversalForExpr(expr)
	if ds.HasErrors() {
		return nil, bad
	}
	addr := append(source.Address{}, s.path...)
	for i := 0; i < len(tr); {
		kw, _, _ := stepName(tr, i)
		name, _, ok := stepName(tr, i+1)
		if !ok {
			return nil, bad
		}
		step := source.Step{Name: name, Module: kw == "module"}
		i += 2
		if i < len(tr) {
			if idx, ok := tr[i].(hcl.TraverseIndex); ok {
				if kw == "deployment" {
					return nil, bad
				}
				k, ok := literalKey(expandForEach, idx.Key)
				if !ok {
					k, ok = literalKey(expandCount, idx.Key)
				}
				if !ok {
					return nil, bad
				}
				step.Key = k
				i++
			}
		}
		addr = append(addr, step)
		switch kw {
		case "deployment", "module":
			if i == len(tr) && kw == "deployment" {
				return nil, bad
			}
		case "resource":
			if i != len(tr) {
				return nil, bad
			}
		default:
			return nil, bad
		}
	}
	if len(addr) == len(s.path) {
		return nil, bad
	}
	return addr, nil
}
