package hclsource

import (
	"encoding/json"
	"testing"

	"github.com/zclconf/go-cty/cty"

	"github.com/pierhq/pier/host/source"
)

func TestFromJSON(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		in   any
		want cty.Value
	}{
		"nil":              {in: nil, want: cty.NullVal(cty.DynamicPseudoType)},
		"empty object":     {in: map[string]any{}, want: cty.EmptyObjectVal},
		"empty array":      {in: []any{}, want: cty.EmptyTupleVal},
		"number":           {in: json.Number("1.5"), want: cty.NumberFloatVal(1.5)},
		"unknown":          {in: source.Unknown, want: cty.DynamicVal},
		"unknown in array": {in: []any{"a", source.Unknown}, want: cty.TupleVal([]cty.Value{cty.StringVal("a"), cty.DynamicVal})},
		"unknown attribute": {in: map[string]any{"id": source.Unknown, "n": float64(1)},
			want: cty.ObjectVal(map[string]cty.Value{"id": cty.DynamicVal, "n": cty.NumberIntVal(1)})},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := FromJSON(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if !got.RawEquals(tc.want) {
				t.Errorf("FromJSON(%#v) = %#v, want %#v", tc.in, got, tc.want)
			}
		})
	}
}
