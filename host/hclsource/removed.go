package hclsource

import (
	"math/big"

	"github.com/hashicorp/hcl/v2"
	"github.com/pierhq/pier/host/source"
	"github.com/zclconf/go-cty/cty"
)

// A removed block says what becomes of the records at an address no
// resource block declares any more, as Terraform's removed block:
//
//	removed { from = resource.old, provider = provider.local }   # destroy with this provider
//	removed { from = resource.kept, destroy = false }            # forget the record
//	removed {
//	  from = resource.kept
//	  lifecycle { destroy = false }                               # Terraform's spelling
//	}
//
// provider matters for records that name no provider (NixOps4 writes
// none) or one no longer declared. Everything is known at load.

var removedSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "from", Required: true},
	{Name: "provider"},
	{Name: "destroy"},
}, Blocks: []hcl.BlockHeaderSchema{{Type: "lifecycle"}}}

var removedLifecycleSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "destroy"}}}

func (d *Deployment) decodeRemoved(u *unit, blocks hcl.Blocks) hcl.Diagnostics {
	var diags hcl.Diagnostics
	seen := map[string]hcl.Range{}
	for _, b := range blocks {
		content, ds := b.Body.Content(removedSchema)
		diags = append(diags, ds...)
		if ds.HasErrors() {
			continue
		}
		rm := &source.Removed{Destroy: true, Range: toSourceRange(b.DefRange)}
		a := content.Attributes["from"]
		from, ds := d.removedAddress(u.scope, a.Expr)
		diags = append(diags, ds...)
		if from == nil {
			continue
		}
		rm.From = from
		if prev, dup := seen[from.String()]; dup {
			diags = append(diags, diagErr(a.Expr.Range(), "Duplicate removed block",
				"%s is already the subject of the removed block at %s.", from, rangeString(prev)))
			continue
		}
		seen[from.String()] = b.DefRange
		if p, ok := content.Attributes["provider"]; ok {
			rm.Provider = d.providerRef(u, p, &diags)
		}
		destroy := func(a *hcl.Attribute) {
			v := evalAttr(u.ctx, a, cty.Bool, &diags)
			if v != cty.NilVal && !v.IsNull() {
				rm.Destroy = v.True()
			}
		}
		if a, ok := content.Attributes["destroy"]; ok {
			destroy(a)
		}
		for i, lb := range content.Blocks {
			if i > 0 {
				diags = append(diags, diagErr(lb.DefRange, "Duplicate lifecycle block", "a removed block has at most one lifecycle block."))
				continue
			}
			lc, ds := lb.Body.Content(removedLifecycleSchema)
			diags = append(diags, ds...)
			if a, ok := lc.Attributes["destroy"]; ok {
				destroy(a)
			}
		}
		d.removed = append(d.removed, rm)
	}
	return diags
}

// removedAddress reads a removed block's from: resource.NAME, optionally
// with an instance key, under deployment.NAME steps. Unlike a reference
// it names something that must not be declared any more.
func (d *Deployment) removedAddress(s *scope, expr hcl.Expression) (source.Address, hcl.Diagnostics) {
	bad := hcl.Diagnostics{diagErr(expr.Range(), "Invalid removed address",
		"from must name a resource that is no longer declared, like resource.NAME, resource.NAME[0], deployment.D.resource.NAME or module.M[KEY].resource.NAME.")}
	tr, ds := hcl.AbsTraversalForExpr(expr)
	if ds.HasErrors() {
		return nil, bad
	}
	addr := append(source.Address{}, s.path...)
	cur := s
	for i := 0; i < len(tr); i += 2 {
		kw, _, _ := stepName(tr, i)
		name, _, ok := stepName(tr, i+1)
		if !ok {
			return nil, bad
		}
		switch kw {
		case "deployment":
			addr = append(addr, source.Step{Name: name})
			if cur != nil {
				cur = cur.children[name]
			}
			continue
		case "module":
			// A module instance that is gone, or one whose block no
			// longer declares the resource.
			step := source.Step{Name: name, Module: true}
			if i+2 < len(tr) {
				if idx, ok := tr[i+2].(hcl.TraverseIndex); ok {
					k, ok := literalKey(expandForEach, idx.Key)
					if !ok {
						k, ok = literalKey(expandCount, idx.Key)
					}
					if !ok {
						return nil, bad
					}
					step.Key = k
					tr = append(tr[:i+2:i+2], tr[i+3:]...)
				}
			}
			addr = append(addr, step)
			var next *scope
			if cur != nil {
				if c, ok := cur.unit.modules[name]; ok && cur == cur.unit.scope {
					if inst, ok := c.byKey[step.Key]; ok {
						next = inst.scope
					}
				}
			}
			cur = next
			continue
		case "resource":
		default:
			return nil, bad
		}
		step := source.Step{Name: name}
		rest := tr[i+2:]
		if len(rest) > 0 {
			idx, ok := rest[0].(hcl.TraverseIndex)
			if !ok || len(rest) > 1 {
				return nil, bad
			}
			switch k := idx.Key; {
			case k.Type() == cty.String:
				step.Key = k.AsString()
			case k.Type() == cty.Number:
				n, acc := k.AsBigFloat().Int64()
				if acc != big.Exact || n < 0 {
					return nil, bad
				}
				step.Key = int(n)
			default:
				return nil, bad
			}
		}
		addr = append(addr, step)
		if cur != nil {
			if r := cur.resources[name]; r != nil {
				return nil, hcl.Diagnostics{diagErr(expr.Range(), "Removed resource still declared",
					"%s is declared at %s: a removed block is for a resource whose block is gone; remove one of the two.", r.addr, rangeString(r.defRange))}
			}
		}
		return addr, nil
	}
	return nil, bad
}
