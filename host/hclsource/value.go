package hclsource

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"

	"github.com/pierhq/pier/host/source"
	"github.com/zclconf/go-cty/cty"
)

// toJSON converts an unmarked cty value to the JSON values of
// [source.Resource.Inputs]: numbers become json.Number (exact, in the
// shortest decimal form), and an unknown value anywhere becomes
// [source.Unknown].
func toJSON(v cty.Value) (any, error) {
	if !v.IsKnown() {
		return source.Unknown, nil
	}
	if v.IsNull() {
		return nil, nil
	}
	ty := v.Type()
	switch {
	case ty == cty.String:
		return v.AsString(), nil
	case ty == cty.Bool:
		return v.True(), nil
	case ty == cty.Number:
		return json.Number(formatNumber(v.AsBigFloat())), nil
	case ty.IsListType() || ty.IsSetType() || ty.IsTupleType():
		out := make([]any, 0, v.LengthInt())
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			j, err := toJSON(e)
			if err != nil {
				return nil, err
			}
			out = append(out, j)
		}
		return out, nil
	case ty.IsMapType() || ty.IsObjectType():
		out := make(map[string]any, v.LengthInt())
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			j, err := toJSON(e)
			if err != nil {
				return nil, err
			}
			out[k.AsString()] = j
		}
		return out, nil
	}
	return nil, fmt.Errorf("a value of type %s has no JSON form", ty.FriendlyName())
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
