package plan

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
)

// normalize rewrites a JSON value so that equal JSON compares equal with
// reflect.DeepEqual: numbers become their exact value and empty
// containers nil. It is how sameInputs compared before equalJSON, kept
// as the reference equalJSON must agree with.
func normalize(v any) any {
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 0 {
			return nil
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = normalize(e)
		}
		return out
	case []any:
		if len(x) == 0 {
			return nil
		}
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalize(e)
		}
		return out
	case json.Number, float64, int, int64:
		return exactNumber(x)
	}
	return v
}

func TestEqualJSON(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		a, b any
		want bool
	}{
		"same strings":              {"a", "a", true},
		"different strings":         {"a", "b", false},
		"number and its string":     {json.Number("1"), "1", false},
		"1 and 1.0":                 {json.Number("1"), json.Number("1.0"), true},
		"json.Number and float64":   {json.Number("0.1"), 0.1, true},
		"int and json.Number":       {3, json.Number("3e0"), true},
		"beyond float64":            {json.Number("9007199254740993"), json.Number("9007199254740992"), false},
		"empty object and null":     {map[string]any{}, nil, true},
		"empty array and object":    {[]any{}, map[string]any{}, true},
		"nil map and empty":         {map[string]any(nil), map[string]any{}, true},
		"empty and non-empty":       {map[string]any{}, map[string]any{"a": 1}, false},
		"member null and empty":     {map[string]any{"a": nil}, map[string]any{"a": map[string]any{}}, true},
		"member null and absent":    {map[string]any{"a": nil}, map[string]any{}, false},
		"member absent both ways":   {map[string]any{"a": 1}, map[string]any{"b": 1}, false},
		"nested numbers":            {map[string]any{"l": []any{json.Number("2")}}, map[string]any{"l": []any{2.0}}, true},
		"array order matters":       {[]any{"a", "b"}, []any{"b", "a"}, false},
		"bools":                     {true, true, true},
		"bool and string":           {true, "true", false},
		"typed slice left alone":    {[]string{"a"}, []string{"a"}, true},
		"typed empty slice vs null": {[]string{}, nil, false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := equalJSON(tc.a, tc.b); got != tc.want {
				t.Errorf("equalJSON(%#v, %#v) = %v, want %v", tc.a, tc.b, got, tc.want)
			}
			if got := equalJSON(tc.b, tc.a); got != tc.want {
				t.Errorf("equalJSON(%#v, %#v) = %v, want %v (swapped)", tc.b, tc.a, got, tc.want)
			}
			if ref := reflect.DeepEqual(normalize(tc.a), normalize(tc.b)); ref != tc.want {
				t.Errorf("the reference says %v", ref)
			}
		})
	}
}

// TestEqualJSONAgreesWithNormalize compares equalJSON with the reference
// on random pairs of small JSON values, many of them nearly alike.
func TestEqualJSONAgreesWithNormalize(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 20000 {
		a := randomJSON(r, 3)
		b := a
		if r.IntN(2) == 0 {
			b = randomJSON(r, 3)
		}
		if got, want := equalJSON(a, b), reflect.DeepEqual(normalize(a), normalize(b)); got != want {
			t.Fatalf("pair %d: equalJSON(%#v, %#v) = %v, reference %v", i, a, b, got, want)
		}
	}
}

func randomJSON(r *rand.Rand, depth int) any {
	leaves := []any{nil, true, false, "", "a", json.Number("1"), json.Number("1.0"), 1.0, 2, int64(2), json.Number("2e0")}
	if depth == 0 || r.IntN(3) == 0 {
		return leaves[r.IntN(len(leaves))]
	}
	if r.IntN(2) == 0 {
		m := map[string]any{}
		for j := range r.IntN(3) {
			m[fmt.Sprint("k", j+r.IntN(2))] = randomJSON(r, depth-1)
		}
		return m
	}
	var l []any
	for range r.IntN(3) {
		l = append(l, randomJSON(r, depth-1))
	}
	if l == nil && r.IntN(2) == 0 {
		return []any{}
	}
	return l
}

func BenchmarkSameInputs(b *testing.B) {
	a := map[string]any{"initialize_with": "value-1234", "n": json.Number("3"), "tags": map[string]any{"env": "prod", "team": "x"}}
	c := map[string]any{"initialize_with": "value-1234", "n": json.Number("3"), "tags": map[string]any{"env": "prod", "team": "x"}}
	b.ReportAllocs()
	for b.Loop() {
		if !SameInputs(a, c) {
			b.Fatal("not equal")
		}
	}
}
