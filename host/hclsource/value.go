package hclsource

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strconv"

	"github.com/pierhq/pier/host/source"
	"github.com/zclconf/go-cty/cty"
)

// toJSON converts an unmarked cty value to the JSON values of
// [source.Resource.Inputs]: numbers become json.Number (exact, in the
// shortest decimal form), and an unknown value anywhere becomes
// [source.Unknown].
func toJSON(v cty.Value) (any, error) {
	j, _, err := toJSONKnown(v)
	return j, err
}

// toJSONKnown is toJSON that also reports whether v is wholly known, as
// cty's IsWhollyKnown would, from the same walk. An object's attributes
// are read by name, without cty's element iterator, which sorts the
// names and makes a key value for each; its first error, in name order,
// is the one reported, as with the iterator.
func toJSONKnown(v cty.Value) (any, bool, error) {
	if !v.IsKnown() {
		return source.Unknown, false, nil
	}
	if v.IsNull() {
		return nil, true, nil
	}
	ty := v.Type()
	switch {
	case ty == cty.String:
		return v.AsString(), true, nil
	case ty == cty.Bool:
		return v.True(), true, nil
	case ty == cty.Number:
		return json.Number(formatNumber(v.AsBigFloat())), true, nil
	case ty.IsObjectType():
		attrs := ty.AttributeTypes()
		out := make(map[string]any, len(attrs))
		known := true
		for name := range attrs {
			j, k, err := toJSONKnown(v.GetAttr(name))
			if err != nil {
				return nil, false, firstAttrError(v, attrs)
			}
			out[name], known = j, known && k
		}
		return out, known, nil
	case ty.IsListType() || ty.IsSetType() || ty.IsTupleType():
		out := make([]any, 0, v.LengthInt())
		known := true
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			j, k, err := toJSONKnown(e)
			if err != nil {
				return nil, false, err
			}
			out, known = append(out, j), known && k
		}
		return out, known, nil
	case ty.IsMapType():
		out := make(map[string]any, v.LengthInt())
		known := true
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			j, kn, err := toJSONKnown(e)
			if err != nil {
				return nil, false, err
			}
			out[k.AsString()], known = j, known && kn
		}
		return out, known, nil
	}
	return nil, false, fmt.Errorf("a value of type %s has no JSON form", ty.FriendlyName())
}

// firstAttrError is the error of the first attribute of object v, in name
// order, that has no JSON form.
func firstAttrError(v cty.Value, attrs map[string]cty.Type) error {
	for _, name := range slices.Sorted(maps.Keys(attrs)) {
		if _, _, err := toJSONKnown(v.GetAttr(name)); err != nil {
			return err
		}
	}
	panic("firstAttrError of an object whose attributes all convert: this is a bug in pier")
}

// containsMarked is cty's ContainsMarked, reading an object's attributes
// by name rather than through cty's walk, which allocates for every
// value it visits: an instance's inputs are mostly unmarked objects.
func containsMarked(v cty.Value) bool {
	if v.IsMarked() {
		return true
	}
	if !v.IsKnown() || v.IsNull() {
		return false
	}
	ty := v.Type()
	switch {
	case ty.IsObjectType():
		for name := range ty.AttributeTypes() {
			if containsMarked(v.GetAttr(name)) {
				return true
			}
		}
	case v.CanIterateElements():
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			if containsMarked(e) {
				return true
			}
		}
	}
	return false
}

func formatNumber(f *big.Float) string {
	if f.IsInt() {
		if i, acc := f.Int64(); acc == big.Exact {
			return strconv.FormatInt(i, 10)
		}
		return f.Text('f', 0)
	}
	return f.Text('g', -1)
}

// FromJSON converts JSON values as the engine holds them (decoded JSON,
// with [source.Unknown] for a value known only after apply) to cty.
// Objects become cty objects, arrays tuples, so that any shape works, and
// an unknown value stays unknown (cty.DynamicVal): it must never read as
// a placeholder string. It is the one JSON→cty conversion on the host
// side, used for resource outputs here and for recorded state by
// host/inspect.
func FromJSON(v any) (cty.Value, error) {
	if source.IsUnknown(v) {
		return cty.DynamicVal, nil
	}
	switch x := v.(type) {
	case nil:
		return cty.NullVal(cty.DynamicPseudoType), nil
	case string:
		return cty.StringVal(x), nil
	case bool:
		return cty.BoolVal(x), nil
	case float64:
		return cty.NumberFloatVal(x), nil
	case int:
		return cty.NumberIntVal(int64(x)), nil
	case int64:
		return cty.NumberIntVal(x), nil
	case json.Number:
		n, err := cty.ParseNumberVal(string(x))
		if err != nil {
			return cty.NilVal, fmt.Errorf("number %s: %w", x, err)
		}
		return n, nil
	case []any:
		if len(x) == 0 {
			return cty.EmptyTupleVal, nil
		}
		vals := make([]cty.Value, len(x))
		for i, e := range x {
			c, err := FromJSON(e)
			if err != nil {
				return cty.NilVal, err
			}
			vals[i] = c
		}
		return cty.TupleVal(vals), nil
	case map[string]any:
		if len(x) == 0 {
			return cty.EmptyObjectVal, nil
		}
		vals := make(map[string]cty.Value, len(x))
		for k, e := range x {
			c, err := FromJSON(e)
			if err != nil {
				return cty.NilVal, err
			}
			vals[k] = c
		}
		return cty.ObjectVal(vals), nil
	}
	// Anything else the engine might hold (typed maps, structs): go through
	// encoding/json once.
	raw, err := json.Marshal(v)
	if err != nil {
		return cty.NilVal, fmt.Errorf("output value of type %T: %w", v, err)
	}
	var generic any
	if err := json.Unmarshal(raw, &generic); err != nil {
		return cty.NilVal, fmt.Errorf("output value of type %T: %w", v, err)
	}
	return FromJSON(generic)
}
