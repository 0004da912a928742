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
	for _, a := range b.Attributes {
		p := path.GetAttr(a.Name)
		cv, pv := config.GetAttr(a.Name), planned.GetAttr(a.Name)
		if a.Computed && cv.IsNull() {
			continue
		}
		if !pv.IsWhollyKnown() && cv.IsWhollyKnown() {
			*errs = append(*errs, pathErr(p, "provider planned an unknown value, but the configuration sets it"))
			continue
		}
		if eq := pv.Equals(cv); eq.IsKnown() && eq.False() {
			*errs = append(*errs, pathErr(p, "provider planned a value different from the configured one"))
		}
	}
	for _, nb := range b.BlockTypes {
		p := path.GetAttr(nb.TypeName)
		cv, pv := config.GetAttr(nb.TypeName), planned.GetAttr(nb.TypeName)
		switch nb.Nesting {
		case tfproto.NestingSingle, tfproto.NestingGroup:
			if cv.IsNull() != pv.IsNull() {
				*errs = append(*errs, pathErr(p, "provider planned the block's presence differently from the configuration"))
				continue
			}
			checkPlanBlock(nb.Block, cv, pv, p, errs)
		case tfproto.NestingList:
			if cv.IsNull() || pv.IsNull() || !cv.IsKnown() || !pv.IsKnown() {
				continue
			}
			if cv.LengthInt() != pv.LengthInt() {
				*errs = append(*errs, pathErr(p, "provider planned %d blocks, the configuration has %d", pv.LengthInt(), cv.LengthInt()))
				continue
			}
			for i := 0; i < cv.LengthInt(); i++ {
				idx := cty.NumberIntVal(int64(i))
				checkPlanBlock(nb.Block, cv.Index(idx), pv.Index(idx), p.Index(idx), errs)
			}
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
		for name := range ty.AttributeTypes() {
			if !applied.Type().HasAttribute(name) {
				*errs = append(*errs, pathErr(path.GetAttr(name), "provider dropped a planned attribute"))
				continue
			}
			checkCompatible(planned.GetAttr(name), applied.GetAttr(name), path.GetAttr(name), errs)
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
