package terraform

import (
	"github.com/pierhq/pier/adapters/terraform/internal/tfproto"
	"github.com/zclconf/go-cty/cty"
)

// proposedNew is the proposed new state Terraform sends in
// PlanResourceChange: the configuration, except that computed attributes
// the configuration leaves null keep their prior values. Nested blocks and
// nested attributes are merged element by element where they line up (same
// index in a list, same key in a map); sets take the configuration as is.
func proposedNew(b *tfproto.Block, prior, config cty.Value) cty.Value {
	if config.IsNull() || !config.IsKnown() {
		return config
	}
	if prior.IsNull() || !prior.IsKnown() {
		return config
	}
	vals := map[string]cty.Value{}
	for _, a := range b.Attributes {
		vals[a.Name] = proposedAttr(a, prior.GetAttr(a.Name), config.GetAttr(a.Name))
	}
	for _, nb := range b.BlockTypes {
		pv, cv := prior.GetAttr(nb.TypeName), config.GetAttr(nb.TypeName)
		switch nb.Nesting {
		case tfproto.NestingSingle, tfproto.NestingGroup:
			vals[nb.TypeName] = proposedNew(nb.Block, pv, cv)
		case tfproto.NestingList, tfproto.NestingMap:
			vals[nb.TypeName] = mergeElements(pv, cv, func(p, c cty.Value) cty.Value { return proposedNew(nb.Block, p, c) })
		default:
			vals[nb.TypeName] = cv
		}
	}
	return cty.ObjectVal(vals)
}

func proposedAttr(a *tfproto.Attribute, prior, config cty.Value) cty.Value {
	if a.Computed && config.IsNull() {
		return prior
	}
	if a.NestedType == nil || config.IsNull() || prior.IsNull() {
		return config
	}
	inner := &tfproto.Block{Attributes: a.NestedType.Attributes}
	switch a.NestedType.Nesting {
	case tfproto.NestingSingle:
		return proposedNew(inner, prior, config)
	case tfproto.NestingList, tfproto.NestingMap:
		return mergeElements(prior, config, func(p, c cty.Value) cty.Value { return proposedNew(inner, p, c) })
	}
	return config
}

// mergeElements merges a list (by index) or map (by key) element-wise,
// keeping config's shape. Elements only in config stay as configured.
func mergeElements(prior, config cty.Value, merge func(p, c cty.Value) cty.Value) cty.Value {
	if config.IsNull() || !config.IsKnown() || prior.IsNull() || !prior.IsKnown() || config.LengthInt() == 0 {
		return config
	}
	ty := config.Type()
	switch {
	case ty.IsListType() || ty.IsTupleType():
		var out []cty.Value
		n := prior.LengthInt()
		for it := config.ElementIterator(); it.Next(); {
			k, cv := it.Element()
			i, _ := k.AsBigFloat().Int64()
			if int(i) < n {
				cv = merge(prior.Index(k), cv)
			}
			out = append(out, cv)
		}
		if ty.IsTupleType() {
			return cty.TupleVal(out)
		}
		return cty.ListVal(out)
	case ty.IsMapType() || ty.IsObjectType():
		out := map[string]cty.Value{}
		for it := config.ElementIterator(); it.Next(); {
			k, cv := it.Element()
			if prior.Type().IsMapType() && prior.HasIndex(k).True() {
				cv = merge(prior.Index(k), cv)
			} else if prior.Type().IsObjectType() && prior.Type().HasAttribute(k.AsString()) {
				cv = merge(prior.GetAttr(k.AsString()), cv)
			}
			out[k.AsString()] = cv
		}
		if ty.IsObjectType() {
			return cty.ObjectVal(out)
		}
		return cty.MapVal(out)
	}
	return config
}
