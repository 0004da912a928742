package tfvalue

import (
	"github.com/pierhq/pier/adapters/terraform/internal/tfproto"
	"github.com/zclconf/go-cty/cty"
)

// CheckPlan applies Terraform's rules for a planned state: an attribute the
// user can set but the provider does not compute must be planned exactly as
// configured, and a computed attribute the configuration sets must keep the
// configured value. It returns one error per broken rule, each naming the
// attribute path. A provider using the legacy type system breaks these
// rules routinely; callers then log the errors instead of failing.
func CheckPlan(b *tfproto.Block, config, planned cty.Value) []error {
	if planned.IsNull() {
		return []error{pathErr(nil, "provider planned a null object for a resource that is not being destroyed")}
	}
	var errs []error
	checkPlanBlock(b, config, planned, nil, &errs)
	return errs
}

func checkPlanBlock(b *tfproto.Block, config, planned cty.Value, path cty.Path, errs *[]error) {
	if b == nil || config.IsNull() || planned.IsNull() || !config.IsKnown() || !planned.IsKnown() {
		return
	}
	// An attribute's path is built only where it is needed (a nested
	// check or an error): cty.Path.GetAttr allocates twice, and most
	// attributes pass.
	for _, a := range b.Attributes {
		cv, pv := config.GetAttr(a.Name), planned.GetAttr(a.Name)
		if a.Computed && cv.IsNull() {
			continue
		}
		if a.NestedType != nil && !cv.IsNull() && !pv.IsNull() && pv.IsKnown() {
			// Nested attributes may hold computed attributes of their own:
			// check them like a nested block.
			checkNested(&tfproto.Block{Attributes: a.NestedType.Attributes}, a.NestedType.Nesting, cv, pv, path.GetAttr(a.Name), errs)
			continue
		}
		if !WhollyKnown(pv) && WhollyKnown(cv) {
			*errs = append(*errs, pathErr(path.GetAttr(a.Name), "provider planned an unknown value, but the configuration sets it"))
			continue
		}
		if eq := pv.Equals(cv); eq.IsKnown() && eq.False() {
			*errs = append(*errs, pathErr(path.GetAttr(a.Name), "provider planned a value different from the configured one"))
		}
	}
	for _, nb := range b.BlockTypes {
		p := path.GetAttr(nb.TypeName)
		cv, pv := config.GetAttr(nb.TypeName), planned.GetAttr(nb.TypeName)
		if (nb.Nesting == tfproto.NestingSingle || nb.Nesting == tfproto.NestingGroup) && cv.IsNull() != pv.IsNull() {
			*errs = append(*errs, pathErr(p, "provider planned the block's presence differently from the configuration"))
			continue
		}
		checkNested(nb.Block, nb.Nesting, cv, pv, p, errs)
	}
}

// checkNested checks nested objects (blocks or nested attributes) that line
// up: the single object, list elements by index, map elements by key. Set
// elements have no identity to line up by and are left to the provider.
func checkNested(b *tfproto.Block, n tfproto.Nesting, cv, pv cty.Value, p cty.Path, errs *[]error) {
	if cv.IsNull() || pv.IsNull() || !cv.IsKnown() || !pv.IsKnown() {
		return
	}
	switch n {
	case tfproto.NestingSingle, tfproto.NestingGroup:
		checkPlanBlock(b, cv, pv, p, errs)
	case tfproto.NestingList:
		if cv.LengthInt() != pv.LengthInt() {
			*errs = append(*errs, pathErr(p, "provider planned %d elements, the configuration has %d", pv.LengthInt(), cv.LengthInt()))
			return
		}
		for i := 0; i < cv.LengthInt(); i++ {
			idx := cty.NumberIntVal(int64(i))
			checkPlanBlock(b, cv.Index(idx), pv.Index(idx), p.Index(idx), errs)
		}
	case tfproto.NestingMap:
		for it := cv.ElementIterator(); it.Next(); {
			k, ce := it.Element()
			if !pv.Type().IsMapType() && !pv.Type().IsObjectType() {
				return
			}
			if pv.Type().IsMapType() && pv.HasIndex(k).False() {
				*errs = append(*errs, pathErr(p.Index(k), "provider dropped a configured element"))
				continue
			}
			if pv.Type().IsObjectType() && !pv.Type().HasAttribute(k.AsString()) {
				*errs = append(*errs, pathErr(p.Index(k), "provider dropped a configured element"))
				continue
			}
			var pe cty.Value
			if pv.Type().IsMapType() {
				pe = pv.Index(k)
			} else {
				pe = pv.GetAttr(k.AsString())
			}
			checkPlanBlock(b, ce, pe, p.Index(k), errs)
		}
	}
}

// CheckApply applies Terraform's rule for a new state: every value the plan
// knew must come back unchanged. Unknown planned values may become
// anything.
func CheckApply(planned, applied cty.Value) []error {
	var errs []error
	checkCompatible(planned, applied, nil, &errs)
	return errs
}

func checkCompatible(planned, applied cty.Value, path cty.Path, errs *[]error) {
	if !planned.IsKnown() {
		return
	}
	if planned.IsNull() || applied.IsNull() || !applied.IsKnown() {
		if planned.IsNull() != applied.IsNull() || !applied.IsKnown() {
			*errs = append(*errs, pathErr(path, "provider produced a value different from the planned one"))
		}
		return
	}
	ty := planned.Type()
	switch {
	case ty.IsObjectType() && applied.Type().IsObjectType():
		for name, aty := range ty.AttributeTypes() {
			if !applied.Type().HasAttribute(name) {
				*errs = append(*errs, pathErr(path.GetAttr(name), "provider dropped a planned attribute"))
				continue
			}
			pv, av := planned.GetAttr(name), applied.GetAttr(name)
			if aty.IsPrimitiveType() {
				// A leaf: its path (two allocations) only for an error.
				if msg := primitiveMismatch(pv, av); msg != "" {
					*errs = append(*errs, pathErr(path.GetAttr(name), "%s", msg))
				}
				continue
			}
			checkCompatible(pv, av, path.GetAttr(name), errs)
		}
	case (ty.IsListType() || ty.IsTupleType()) && applied.CanIterateElements():
		if planned.LengthInt() != applied.LengthInt() {
			*errs = append(*errs, pathErr(path, "provider produced %d elements, the plan had %d", applied.LengthInt(), planned.LengthInt()))
			return
		}
		for i := 0; i < planned.LengthInt(); i++ {
			idx := cty.NumberIntVal(int64(i))
			checkCompatible(planned.Index(idx), applied.Index(idx), path.Index(idx), errs)
		}
	case ty.IsMapType() && applied.Type().IsMapType():
		for it := planned.ElementIterator(); it.Next(); {
			k, pv := it.Element()
			if applied.HasIndex(k).False() {
				*errs = append(*errs, pathErr(path.Index(k), "provider dropped a planned map element"))
				continue
			}
			if ty.ElementType().IsPrimitiveType() {
				if msg := primitiveMismatch(pv, applied.Index(k)); msg != "" {
					*errs = append(*errs, pathErr(path.Index(k), "%s", msg))
				}
				continue
			}
			checkCompatible(pv, applied.Index(k), path.Index(k), errs)
		}
	case ty.IsSetType():
		if !planned.IsWhollyKnown() {
			return
		}
		if eq := planned.Equals(applied); eq.IsKnown() && eq.False() {
			*errs = append(*errs, pathErr(path, "provider produced a set different from the planned one"))
		}
	default:
		if eq := planned.Equals(applied); !eq.IsKnown() || eq.False() {
			*errs = append(*errs, pathErr(path, "provider produced a value different from the planned one"))
		}
	}
}

// primitiveMismatch is checkCompatible for a planned value of a primitive
// type, without a path: it returns what checkCompatible would report, or ""
// when the applied value keeps the plan.
func primitiveMismatch(planned, applied cty.Value) string {
	if !planned.IsKnown() {
		return ""
	}
	if planned.IsNull() || applied.IsNull() || !applied.IsKnown() {
		if planned.IsNull() != applied.IsNull() || !applied.IsKnown() {
			return "provider produced a value different from the planned one"
		}
		return ""
	}
	if eq := planned.Equals(applied); !eq.IsKnown() || eq.False() {
		return "provider produced a value different from the planned one"
	}
	return ""
}
