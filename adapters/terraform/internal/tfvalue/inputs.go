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
		if a.NestedType != nil {
			// Nested attributes may hold computed attributes of their own,
			// which are no input.
			j, err := nestedInputs(&tfproto.Block{Attributes: a.NestedType.Attributes}, a.NestedType.Nesting, v)
			if err != nil {
				return nil, err
			}
			out[a.Name] = j
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
		if v.IsNull() || !v.IsKnown() || (nb.Nesting != tfproto.NestingSingle && nb.Nesting != tfproto.NestingGroup && v.LengthInt() == 0) {
			continue
		}
		j, err := nestedInputs(nb.Block, nb.Nesting, v)
		if err != nil {
			return nil, err
		}
		out[nb.TypeName] = j
	}
	return out, nil
}

// nestedInputs applies [Inputs] to each nested object of v.
func nestedInputs(b *tfproto.Block, n tfproto.Nesting, v cty.Value) (any, error) {
	switch n {
	case tfproto.NestingSingle, tfproto.NestingGroup:
		return Inputs(b, v)
	case tfproto.NestingMap:
		m := map[string]any{}
		for it := v.ElementIterator(); it.Next(); {
			k, ev := it.Element()
			em, err := Inputs(b, ev)
			if err != nil {
				return nil, err
			}
			m[k.AsString()] = em
		}
		return m, nil
	}
	list := []any{}
	for it := v.ElementIterator(); it.Next(); {
		_, ev := it.Element()
		em, err := Inputs(b, ev)
		if err != nil {
			return nil, err
		}
		list = append(list, em)
	}
	return list, nil
}
