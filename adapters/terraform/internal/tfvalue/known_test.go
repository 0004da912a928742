package tfvalue

import (
	"reflect"
	"testing"

	"github.com/zclconf/go-cty/cty"
)

// knownJSONReference is what KnownJSON must equal: cty.Transform making
// each unknown value null and noting its path, then ToJSON.
func knownJSONReference(v cty.Value) (any, []cty.Path, error) {
	var unknowns []cty.Path
	known, err := cty.Transform(v, func(p cty.Path, v cty.Value) (cty.Value, error) {
		if v.IsKnown() {
			return v, nil
		}
		unknowns = append(unknowns, p.Copy())
		return cty.NullVal(v.Type()), nil
	})
	if err != nil {
		return nil, nil, err
	}
	j, err := ToJSON(known)
	return j, unknowns, err
}

func checkKnownJSON(t *testing.T, name string, v cty.Value) {
	t.Helper()
	want, wantUnknown, werr := knownJSONReference(v)
	var gotUnknown [][]any
	got, gerr := KnownJSON(v, func(p []any) { gotUnknown = append(gotUnknown, p) })
	if (werr == nil) != (gerr == nil) || (werr != nil && werr.Error() != gerr.Error()) {
		t.Errorf("%s: KnownJSON error %v, the reference's %v", name, gerr, werr)
		return
	}
	if werr != nil {
		return // the paths noted before the failure are not part of the answer
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: KnownJSON = %#v, the reference gives %#v", name, got, want)
	}
	if len(gotUnknown) != len(wantUnknown) {
		t.Errorf("%s: unknown paths %#v, the reference gives %#v", name, gotUnknown, wantUnknown)
		return
	}
	for i := range gotUnknown {
		if want := AttributePath(wantUnknown[i]); !reflect.DeepEqual(gotUnknown[i], want) {
			t.Errorf("%s: unknown path %d is %#v, the reference gives %#v (from %#v)", name, i, gotUnknown[i], want, wantUnknown[i])
		}
	}
}

// TestKnownJSON holds KnownJSON to the Transform and ToJSON it replaces:
// on a value with every kind of container, made unknown at each of its
// paths in turn, and on a few whole cases besides.
func TestKnownJSON(t *testing.T) {
	t.Parallel()
	obj := func(m map[string]cty.Value) cty.Value { return cty.ObjectVal(m) }
	full := obj(map[string]cty.Value{
		"s":     cty.StringVal("a\xffb"),
		"n":     cty.NumberIntVal(3),
		"b":     cty.True,
		"null":  cty.NullVal(cty.String),
		"list":  cty.ListVal([]cty.Value{cty.StringVal("x"), cty.StringVal("y")}),
		"tuple": cty.TupleVal([]cty.Value{cty.NumberFloatVal(0.5), cty.StringVal("t")}),
		"map":   cty.MapVal(map[string]cty.Value{"k\xff": cty.StringVal("v"), "a": cty.StringVal("w")}),
		"set":   cty.SetVal([]cty.Value{cty.StringVal("p"), cty.StringVal("q"), cty.StringVal("r")}),
		"objs": cty.SetVal([]cty.Value{
			obj(map[string]cty.Value{"id": cty.StringVal("1"), "v": cty.NumberIntVal(1)}),
			obj(map[string]cty.Value{"id": cty.StringVal("2"), "v": cty.NumberIntVal(2)}),
		}),
		"nested": cty.ListVal([]cty.Value{obj(map[string]cty.Value{
			"inner": cty.MapVal(map[string]cty.Value{"z": cty.ListVal([]cty.Value{cty.NumberIntVal(9)})}),
		})}),
		"empty": cty.ListValEmpty(cty.String),
	})
	checkKnownJSON(t, "wholly known", full)
	checkKnownJSON(t, "unknown", cty.UnknownVal(full.Type()))
	checkKnownJSON(t, "null", cty.NullVal(full.Type()))
	checkKnownJSON(t, "marked", full.Mark("secret"))
	checkKnownJSON(t, "marked inside", obj(map[string]cty.Value{"a": cty.StringVal("x").Mark("secret"), "b": cty.UnknownVal(cty.String)}))
	checkKnownJSON(t, "marked unknown", obj(map[string]cty.Value{"a": cty.UnknownVal(cty.String).Mark("secret")}))
	checkKnownJSON(t, "infinity", obj(map[string]cty.Value{"a": cty.PositiveInfinity, "b": cty.UnknownVal(cty.String)}))
	checkKnownJSON(t, "dynamic unknown", obj(map[string]cty.Value{"d": cty.DynamicVal}))

	// Every path of full made unknown, one at a time.
	var paths []cty.Path
	_ = cty.Walk(full, func(p cty.Path, v cty.Value) (bool, error) {
		paths = append(paths, p.Copy())
		return true, nil
	})
	for _, p := range paths {
		v, err := cty.Transform(full, func(q cty.Path, v cty.Value) (cty.Value, error) {
			if q.Equals(p) {
				return cty.UnknownVal(v.Type()), nil
			}
			return v, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		checkKnownJSON(t, FormatPath(p)+" unknown", v)
	}
}

// TestWhollyKnown holds WhollyKnown to cty's IsWhollyKnown.
func TestWhollyKnown(t *testing.T) {
	t.Parallel()
	obj := func(m map[string]cty.Value) cty.Value { return cty.ObjectVal(m) }
	vals := append(msgpackValues(),
		obj(map[string]cty.Value{"a": cty.StringVal("x"), "b": obj(map[string]cty.Value{"c": cty.UnknownVal(cty.String)})}),
		obj(map[string]cty.Value{"a": cty.StringVal("x").Mark("secret"), "b": obj(map[string]cty.Value{"c": cty.True})}),
		obj(map[string]cty.Value{"a": cty.UnknownVal(cty.String).Mark("secret")}),
		obj(map[string]cty.Value{"a": cty.ListVal([]cty.Value{cty.UnknownVal(cty.Number)})}).Mark("secret"),
		obj(map[string]cty.Value{"m": cty.MapVal(map[string]cty.Value{"k": cty.UnknownVal(cty.Bool)})}),
	)
	for _, v := range vals {
		if got, want := WhollyKnown(v), v.IsWhollyKnown(); got != want {
			t.Errorf("WhollyKnown(%#v) = %v, IsWhollyKnown %v", v, got, want)
		}
	}
}
