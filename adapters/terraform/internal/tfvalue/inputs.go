package tfvalue

import (
	"github.com/pierhq/pier/adapters/terraform/internal/tfproto"
	"github.com/zclconf/go-cty/cty"
)

// Inputs returns the part of a state object a user would configure to
// reproduce it: the non-null attributes that are required or optional, and
// nested blocks (recursively the same). Import uses it to propose inputs.
func Inputs(b *tfproto.Block, state cty.Value) (map[string]any, error) {
	out := map[string]any{}
	if b == nil || state.IsNull() || !state.IsKnown() {
		return out, nil
	}
	for _, a := range b.Attributes {
		if !a.Required && !a.Optional {
			continue
		}
		v := state.GetAttr(a.Name)
		if v.IsNull() {
			continue
		}
		j, err := ToJSON(v)
		if err != nil {
			return nil, pathErr(cty.GetAttrPath(a.Name), "%v", err)
		}
		out[a.Name] = j
	}
	for _, nb := range b.BlockTypes {
		v := state.GetAttr(nb.TypeName)
		if v.IsNull() || !v.IsKnown() {
			continue
		}
		switch nb.Nesting {
		case tfproto.NestingSingle, tfproto.NestingGroup:
			m, err := Inputs(nb.Block, v)
			if err != nil {
				return nil, err
			}
			out[nb.TypeName] = m
		case tfproto.NestingMap:
			if v.LengthInt() == 0 {
				continue
			}
			m := map[string]any{}
			for it := v.ElementIterator(); it.Next(); {
				k, ev := it.Element()
				em, err := Inputs(nb.Block, ev)
				if err != nil {
					return nil, err
				}
				m[k.AsString()] = em
			}
			out[nb.TypeName] = m
		default:
			if v.LengthInt() == 0 {
				continue
			}
			var list []any
			for it := v.ElementIterator(); it.Next(); {
				_, ev := it.Element()
				em, err := Inputs(nb.Block, ev)
				if err != nil {
					return nil, err
				}
				list = append(list, em)
			}
			out[nb.TypeName] = list
		}
	}
	return out, nil
}
