package hclsource

import (
	"reflect"
	"testing"

	"github.com/zclconf/go-cty/cty"
)

// TestToJSONKnown checks toJSONKnown against what it replaces: the JSON
// of cty's element iteration (sorted, first error first), cty's
// IsWhollyKnown and, for containsMarked, cty's ContainsMarked.
func TestToJSONKnown(t *testing.T) {
	capsule := cty.CapsuleVal(cty.Capsule("thing", reflect.TypeFor[int]()), new(int))
	other := cty.CapsuleVal(cty.Capsule("other", reflect.TypeFor[string]()), new(string))
	secret := cty.StringVal("s").Mark(sensitiveMark{})
	tests := []struct {
		name string
		v    cty.Value
	}{
		{"empty object", cty.EmptyObjectVal},
		{"flat object", cty.ObjectVal(map[string]cty.Value{"a": cty.StringVal("x"), "b": cty.NumberIntVal(3), "c": cty.True})},
		{"null attribute", cty.ObjectVal(map[string]cty.Value{"a": cty.NullVal(cty.String)})},
		{"null object", cty.NullVal(cty.Object(map[string]cty.Type{"a": cty.String}))},
		{"unknown attribute", cty.ObjectVal(map[string]cty.Value{"a": cty.UnknownVal(cty.String), "b": cty.StringVal("x")})},
		{"unknown deep", cty.ObjectVal(map[string]cty.Value{"a": cty.TupleVal([]cty.Value{cty.StringVal("x"), cty.DynamicVal})})},
		{"unknown whole", cty.DynamicVal},
		{"fraction", cty.ObjectVal(map[string]cty.Value{"f": cty.NumberFloatVal(0.25), "big": cty.MustParseNumberVal("123456789012345678901234567890")})},
		{"nested", cty.ObjectVal(map[string]cty.Value{
			"o": cty.ObjectVal(map[string]cty.Value{"l": cty.ListVal([]cty.Value{cty.StringVal("a")})}),
			"m": cty.MapVal(map[string]cty.Value{"k": cty.StringVal("v"), "j": cty.StringVal("w")}),
			"s": cty.SetVal([]cty.Value{cty.StringVal("b"), cty.StringVal("a")}),
		})},
		{"set with unknown", cty.ObjectVal(map[string]cty.Value{"s": cty.SetVal([]cty.Value{cty.StringVal("b"), cty.UnknownVal(cty.String)})})},
		{"map with unknown", cty.MapVal(map[string]cty.Value{"k": cty.UnknownVal(cty.String)})},
		{"no JSON form", cty.ObjectVal(map[string]cty.Value{"a": cty.StringVal("x"), "c": capsule})},
		{"two without JSON form", cty.ObjectVal(map[string]cty.Value{"z": other, "c": capsule, "m": other})},
		{"no JSON form deep", cty.ObjectVal(map[string]cty.Value{"b": cty.ObjectVal(map[string]cty.Value{"y": other, "x": capsule}), "a": cty.ObjectVal(map[string]cty.Value{"q": other})})},
		{"marked attribute", cty.ObjectVal(map[string]cty.Value{"a": secret})},
		{"marked deep", cty.ObjectVal(map[string]cty.Value{"a": cty.TupleVal([]cty.Value{cty.StringVal("x"), secret})})},
		{"marked in map", cty.ObjectVal(map[string]cty.Value{"m": cty.MapVal(map[string]cty.Value{"k": secret})})},
		{"marked whole", cty.EmptyObjectVal.Mark(readMark("x"))},
		{"marked unknown", cty.ObjectVal(map[string]cty.Value{"a": cty.DynamicVal.Mark(waitMark("x"))})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, want := containsMarked(tt.v), tt.v.ContainsMarked(); got != want {
				t.Errorf("containsMarked = %v, want %v", got, want)
			}
			u, _ := tt.v.UnmarkDeep()
			want, wantErr := iteratedJSON(u)
			got, known, err := toJSONKnown(u)
			if (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
				t.Fatalf("error %v, want %v", err, wantErr)
			}
			if err != nil {
				return
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("JSON %#v, want %#v", got, want)
			}
			if known != u.IsWhollyKnown() {
				t.Errorf("known = %v, want %v", known, !known)
			}
		})
	}
}

// iteratedJSON is toJSON as it was written before toJSONKnown: every
// collection through cty's element iterator.
func iteratedJSON(v cty.Value) (any, error) {
	if !v.IsKnown() || v.IsNull() || v.Type().IsPrimitiveType() {
		return toJSON(v)
	}
	ty := v.Type()
	switch {
	case ty.IsListType() || ty.IsSetType() || ty.IsTupleType():
		out := []any{}
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			j, err := iteratedJSON(e)
			if err != nil {
				return nil, err
			}
			out = append(out, j)
		}
		return out, nil
	case ty.IsMapType() || ty.IsObjectType():
		out := map[string]any{}
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			j, err := iteratedJSON(e)
			if err != nil {
				return nil, err
			}
			out[k.AsString()] = j
		}
		return out, nil
	}
	return toJSON(v)
}
