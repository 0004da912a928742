package tfvalue

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pierhq/pier/adapters/terraform/internal/tfproto"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// decode parses JSON the way the v0 protocol delivers properties.
func decode(t testing.TB, s string) any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

var ctyCmp = cmp.Comparer(func(a, b cty.Value) bool { return a.RawEquals(b) })

// TestRoundTrip converts JSON to cty against a type, through msgpack and
// back to JSON, which must give the JSON again.
func TestRoundTrip(t *testing.T) {
	t.Parallel()
	obj := cty.Object(map[string]cty.Type{"a": cty.String, "n": cty.Number})
	cases := map[string]struct {
		ty   cty.Type
		json string
		want cty.Value
	}{
		"null string":      {cty.String, `null`, cty.NullVal(cty.String)},
		"empty string":     {cty.String, `""`, cty.StringVal("")},
		"zero":             {cty.Number, `0`, cty.Zero},
		"big integer":      {cty.Number, `12345678901234567890123`, cty.MustParseNumberVal("12345678901234567890123")},
		"fraction":         {cty.Number, `1.5`, cty.NumberFloatVal(1.5)},
		"false":            {cty.Bool, `false`, cty.False},
		"empty list":       {cty.List(cty.String), `[]`, cty.ListValEmpty(cty.String)},
		"list":             {cty.List(cty.String), `["a","b"]`, cty.ListVal([]cty.Value{cty.StringVal("a"), cty.StringVal("b")})},
		"list with null":   {cty.List(cty.String), `["a",null]`, cty.ListVal([]cty.Value{cty.StringVal("a"), cty.NullVal(cty.String)})},
		"empty set":        {cty.Set(cty.Number), `[]`, cty.SetValEmpty(cty.Number)},
		"set":              {cty.Set(cty.Number), `[1]`, cty.SetVal([]cty.Value{cty.NumberIntVal(1)})},
		"empty map":        {cty.Map(cty.Bool), `{}`, cty.MapValEmpty(cty.Bool)},
		"map":              {cty.Map(cty.Bool), `{"x":true}`, cty.MapVal(map[string]cty.Value{"x": cty.True})},
		"object":           {obj, `{"a":"s","n":2}`, cty.ObjectVal(map[string]cty.Value{"a": cty.StringVal("s"), "n": cty.NumberIntVal(2)})},
		"object null attr": {obj, `{"a":null,"n":null}`, cty.ObjectVal(map[string]cty.Value{"a": cty.NullVal(cty.String), "n": cty.NullVal(cty.Number)})},
		"null object":      {obj, `null`, cty.NullVal(obj)},
		"tuple":            {cty.Tuple([]cty.Type{cty.String, cty.Bool}), `["a",true]`, cty.TupleVal([]cty.Value{cty.StringVal("a"), cty.True})},
		"dynamic string":   {cty.DynamicPseudoType, `"x"`, cty.StringVal("x")},
		"dynamic array":    {cty.DynamicPseudoType, `[1,"a"]`, cty.TupleVal([]cty.Value{cty.NumberIntVal(1), cty.StringVal("a")})},
		"dynamic object":   {cty.DynamicPseudoType, `{"k":[true]}`, cty.ObjectVal(map[string]cty.Value{"k": cty.TupleVal([]cty.Value{cty.True})})},
		"dynamic null":     {cty.DynamicPseudoType, `null`, cty.NullVal(cty.DynamicPseudoType)},
		"list of dynamic":  {cty.List(cty.DynamicPseudoType), `["a","b"]`, cty.ListVal([]cty.Value{cty.StringVal("a"), cty.StringVal("b")})},
		"map of dynamic":   {cty.Map(cty.DynamicPseudoType), `{"a":1}`, cty.MapVal(map[string]cty.Value{"a": cty.NumberIntVal(1)})},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			in := decode(t, tc.json)
			v, err := FromJSON(in, tc.ty, nil)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, v, ctyCmp); diff != "" {
				t.Fatalf("FromJSON (-want +got):\n%s", diff)
			}
			data, err := Marshal(v, tc.ty)
			if err != nil {
				t.Fatal(err)
			}
			back, err := Unmarshal(data, tc.ty)
			if err != nil {
				t.Fatal(err)
			}
			if !back.RawEquals(v) {
				t.Fatalf("msgpack round trip: %#v, want %#v", back, v)
			}
			out, err := ToJSON(back)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(in, out); diff != "" {
				t.Errorf("ToJSON (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFromJSONConversions(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		ty   cty.Type
		in   any
		want cty.Value
	}{
		"string to number": {cty.Number, "5", cty.NumberIntVal(5)},
		"number to string": {cty.String, json.Number("5"), cty.StringVal("5")},
		"bool to string":   {cty.String, true, cty.StringVal("true")},
		"float64":          {cty.Number, 2.5, cty.NumberFloatVal(2.5)},
		"int":              {cty.Number, 7, cty.NumberIntVal(7)},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := FromJSON(tc.in, tc.ty, nil)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got, ctyCmp); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// numberToStringReference is how FromJSON converted a number where a
// string belongs before it took its shortcut: cty's own conversion.
func numberToStringReference(raw any) (cty.Value, error) {
	v, err := primitive(raw, nil)
	if err != nil {
		return cty.NilVal, err
	}
	return convert.Convert(v, cty.String)
}

// TestFromJSONNumberToString: a number given for a string attribute reads
// as cty's conversion would have it, at every precision a number arrives
// with (json.Number at 512 bits, float64 at 53, int at 64).
func TestFromJSONNumberToString(t *testing.T) {
	t.Parallel()
	ins := []any{0, 7, -7, int64(1 << 62), float64(0), 0.1, -2.5, 1e21, 1e-7, 1 << 53, 123456789.125}
	for _, n := range []string{"0", "-0", "5", "-5", "007", "1e3", "1E3", "1.0", "1.50", "0.1", "-0.000001", "123456789012345678901234567890",
		"9223372036854775807", "9223372036854775808", "-9223372036854775808", "1e-400", "3.14159265358979323846264338327950288419716939937510"} {
		ins = append(ins, json.Number(n))
	}
	for _, in := range ins {
		want, werr := numberToStringReference(in)
		got, gerr := FromJSON(in, cty.String, nil)
		if werr != nil || gerr != nil {
			t.Errorf("%T %v: FromJSON error %v, reference error %v", in, in, gerr, werr)
			continue
		}
		if !got.RawEquals(want) {
			t.Errorf("%T %v: FromJSON = %#v, cty's conversion gives %#v", in, in, got, want)
		}
	}
}

func TestFromJSONErrors(t *testing.T) {
	t.Parallel()
	obj := cty.Object(map[string]cty.Type{"a": cty.List(cty.Number)})
	cases := map[string]struct {
		ty   cty.Type
		json string
		want string
	}{
		"not a number":     {cty.Number, `"x"`, "must be number"},
		"array for string": {cty.String, `[]`, "must be string, not an array"},
		"object for list":  {cty.List(cty.String), `{}`, "must be list of string, not an object"},
		"nested element":   {obj, `{"a":[1,"x"]}`, "attribute a[1]: must be number"},
		"extra attribute":  {obj, `{"a":[],"b":1}`, "attribute b: is not in the schema"},
		"map element":      {cty.Map(cty.Number), `{"k":"v"}`, `attribute ["k"]: must be number`},
		"tuple length":     {cty.Tuple([]cty.Type{cty.String}), `["a","b"]`, "must have 1 elements, not 2"},
		"mixed dynamic":    {cty.List(cty.DynamicPseudoType), `["a",{"b":1}]`, "different types"},
		"huge number":      {cty.Number, `1e10000000`, "number out of range"},
		"tiny number":      {cty.Number, `1e-10000000`, "number out of range"},
		"huge as string":   {cty.String, `{"a":1e10000000}`, "must be string, not an object"},
		"huge in map":      {cty.Map(cty.Number), `{"a":-1e10000000}`, `attribute ["a"]: number out of range`},
		"huge in dynamic":  {cty.DynamicPseudoType, `{"a":[1e10000000]}`, `attribute ["a"][0]: number out of range`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := FromJSON(decode(t, tc.json), tc.ty, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// testBlock has one of each kind of attribute and nested block.
var testBlock = &tfproto.Block{
	Attributes: []*tfproto.Attribute{
		{Name: "name", Type: cty.String, Required: true},
		{Name: "size", Type: cty.Number, Optional: true},
		{Name: "id", Type: cty.String, Computed: true},
		{Name: "mode", Type: cty.String, Optional: true, Computed: true},
		{Name: "any", Type: cty.DynamicPseudoType, Optional: true},
		{Name: "secret", Type: cty.String, Optional: true, Sensitive: true},
		{Name: "rules", Optional: true, NestedType: &tfproto.Object{
			Nesting:    tfproto.NestingList,
			Attributes: []*tfproto.Attribute{{Name: "port", Type: cty.Number, Required: true}, {Name: "key", Type: cty.String, Optional: true, Sensitive: true}},
		}},
	},
	BlockTypes: []*tfproto.NestedBlock{
		{TypeName: "single", Nesting: tfproto.NestingSingle, Block: &tfproto.Block{Attributes: []*tfproto.Attribute{{Name: "x", Type: cty.String, Optional: true}}}},
		{TypeName: "group", Nesting: tfproto.NestingGroup, Block: &tfproto.Block{Attributes: []*tfproto.Attribute{{Name: "x", Type: cty.String, Optional: true}}}},
		{TypeName: "list", Nesting: tfproto.NestingList, Block: &tfproto.Block{Attributes: []*tfproto.Attribute{{Name: "x", Type: cty.String, Optional: true}}}},
		{TypeName: "set", Nesting: tfproto.NestingSet, Block: &tfproto.Block{Attributes: []*tfproto.Attribute{{Name: "x", Type: cty.String, Optional: true}}}},
		{TypeName: "map", Nesting: tfproto.NestingMap, Block: &tfproto.Block{Attributes: []*tfproto.Attribute{{Name: "x", Type: cty.String, Optional: true}}}},
	},
}

func TestConfig(t *testing.T) {
	t.Parallel()
	xObj := cty.Object(map[string]cty.Type{"x": cty.String})
	ruleTy := cty.Object(map[string]cty.Type{"port": cty.Number, "key": cty.String})
	base := func(over map[string]cty.Value) cty.Value {
		vals := map[string]cty.Value{
			"name":   cty.StringVal("n"),
			"size":   cty.NullVal(cty.Number),
			"id":     cty.NullVal(cty.String),
			"mode":   cty.NullVal(cty.String),
			"any":    cty.NullVal(cty.DynamicPseudoType),
			"secret": cty.NullVal(cty.String),
			"rules":  cty.NullVal(cty.List(ruleTy)),
			"single": cty.NullVal(xObj),
			"group":  cty.ObjectVal(map[string]cty.Value{"x": cty.NullVal(cty.String)}),
			"list":   cty.ListValEmpty(xObj),
			"set":    cty.SetValEmpty(xObj),
			"map":    cty.MapValEmpty(xObj),
		}
		for k, v := range over {
			vals[k] = v
		}
		return cty.ObjectVal(vals)
	}
	x := func(s string) cty.Value { return cty.ObjectVal(map[string]cty.Value{"x": cty.StringVal(s)}) }
	cases := map[string]struct {
		json string
		want cty.Value
	}{
		"minimal: absent blocks are empty, single is null, group is an object": {`{"name":"n"}`, base(nil)},
		"null inputs are absent": {`{"name":"n","size":null,"list":null}`, base(nil)},
		"all set": {
			`{"name":"n","size":3,"mode":"0600","any":{"k":[1]},"rules":[{"port":80}],"single":{"x":"s"},"group":{"x":"g"},"list":[{"x":"l"}],"set":[{"x":"s1"},{"x":"s2"}],"map":{"k":{"x":"m"}}}`,
			base(map[string]cty.Value{
				"size":   cty.NumberIntVal(3),
				"mode":   cty.StringVal("0600"),
				"any":    cty.ObjectVal(map[string]cty.Value{"k": cty.TupleVal([]cty.Value{cty.NumberIntVal(1)})}),
				"rules":  cty.ListVal([]cty.Value{cty.ObjectVal(map[string]cty.Value{"port": cty.NumberIntVal(80), "key": cty.NullVal(cty.String)})}),
				"single": x("s"),
				"group":  x("g"),
				"list":   cty.ListVal([]cty.Value{x("l")}),
				"set":    cty.SetVal([]cty.Value{x("s1"), x("s2")}),
				"map":    cty.MapVal(map[string]cty.Value{"k": x("m")}),
			}),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			in, _ := decode(t, tc.json).(map[string]any)
			got, err := Config(testBlock, in)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got, ctyCmp); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if errs := got.Type().TestConformance(testBlock.ImpliedType()); errs != nil {
				t.Errorf("type does not conform to the implied type: %v", errs)
			}
			if _, err := Marshal(got, testBlock.ImpliedType()); err != nil {
				t.Errorf("marshal: %v", err)
			}
		})
	}
}

func TestConfigNilAndEmpty(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		block *tfproto.Block
		in    map[string]any
	}{
		"nil block nil inputs":   {nil, nil},
		"empty block nil inputs": {&tfproto.Block{}, nil},
		"empty block empty map":  {&tfproto.Block{}, map[string]any{}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := Config(tc.block, tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if !got.RawEquals(cty.EmptyObjectVal) {
				t.Errorf("got %#v, want the empty object", got)
			}
		})
	}
}

func TestConfigErrors(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		json string
		want string
	}{
		"missing required":     {`{}`, "attribute name: is required"},
		"computed only":        {`{"name":"n","id":"x"}`, "attribute id: is computed by the provider and cannot be set"},
		"unknown":              {`{"name":"n","colour":"red"}`, "attribute colour: is not in the schema"},
		"wrong type":           {`{"name":"n","size":"big"}`, "attribute size: must be number, not a string"},
		"nested required":      {`{"name":"n","rules":[{"key":"k"}]}`, "attribute rules[0].port: is required"},
		"nested unknown":       {`{"name":"n","rules":[{"port":1,"x":1}]}`, "attribute rules[0].x: is not in the schema"},
		"block not an object":  {`{"name":"n","single":"s"}`, "attribute single: must be an object, not a string"},
		"block list not array": {`{"name":"n","list":{}}`, "attribute list: must be an array, not an object"},
		"block map element":    {`{"name":"n","map":{"k":{"y":1}}}`, `attribute map["k"].y: is not in the schema`},
		"set element":          {`{"name":"n","set":[{"x":[]}]}`, "attribute set[0].x: must be string, not an array"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			in, _ := decode(t, tc.json).(map[string]any)
			_, err := Config(testBlock, in)
			if err == nil || err.Error() != tc.want {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

func TestUnmarshalEmptyIsNull(t *testing.T) {
	t.Parallel()
	ty := testBlock.ImpliedType()
	for name, data := range map[string][]byte{"nil": nil, "empty": {}} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			v, err := Unmarshal(data, ty)
			if err != nil || !v.IsNull() {
				t.Errorf("Unmarshal(%v) = %#v, %v; want null", data, v, err)
			}
		})
	}
}

func TestToJSONNullAndUnknown(t *testing.T) {
	t.Parallel()
	if v, err := ToJSON(cty.NullVal(cty.String)); v != nil || err != nil {
		t.Errorf("ToJSON(null) = %v, %v", v, err)
	}
	if _, err := ToJSON(cty.UnknownVal(cty.String)); err == nil {
		t.Errorf("ToJSON(unknown) succeeded")
	}
	// The walk meets an unknown value or a mark in whatever order, and
	// the error is the one checking for unknowns first gives.
	unknownInside := cty.ObjectVal(map[string]cty.Value{"a": cty.StringVal("x"), "b": cty.ListVal([]cty.Value{cty.UnknownVal(cty.String)})})
	markedAndUnknown := cty.ObjectVal(map[string]cty.Value{"a": cty.StringVal("x").Mark("s"), "b": cty.UnknownVal(cty.String), "c": cty.StringVal("y").Mark("s")})
	for name, tc := range map[string]struct {
		v    cty.Value
		want string
	}{
		"unknown inside":     {unknownInside, "value is not wholly known"},
		"marked and unknown": {markedAndUnknown, "value is not wholly known"},
		"marked":             {cty.ObjectVal(map[string]cty.Value{"a": cty.StringVal("x").Mark("s")}), "value has marks, so it cannot be serialized as JSON"},
	} {
		if _, err := ToJSON(tc.v); err == nil || err.Error() != tc.want {
			t.Errorf("%s: ToJSON error %v, want %q", name, err, tc.want)
		}
	}
}

func TestStateJSONKeepsDynamicTypes(t *testing.T) {
	t.Parallel()
	ty := cty.Object(map[string]cty.Type{"any": cty.DynamicPseudoType})
	v := cty.ObjectVal(map[string]cty.Value{"any": cty.ListVal([]cty.Value{cty.StringVal("a")})})
	data, err := StateJSON(v, ty)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"any":{"value":["a"],"type":["list","string"]}}`; string(data) != want {
		t.Errorf("StateJSON = %s, want %s", data, want)
	}
}

func TestFormatPath(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		path cty.Path
		want string
	}{
		"nil":         {nil, ""},
		"attr":        {cty.GetAttrPath("a"), "a"},
		"mixed":       {cty.GetAttrPath("a").Index(cty.NumberIntVal(2)).GetAttr("b").Index(cty.StringVal("k")), `a[2].b["k"]`},
		"unknown key": {cty.GetAttrPath("a").Index(cty.UnknownVal(cty.String)), "a[?]"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := FormatPath(tc.path); got != tc.want {
				t.Errorf("FormatPath = %q, want %q", got, tc.want)
			}
		})
	}
}

func BenchmarkConfigMarshal(b *testing.B) {
	in, _ := decode(b, `{"name":"n","size":3,"any":{"k":[1,2,3]},"rules":[{"port":80},{"port":443}],"list":[{"x":"a"},{"x":"b"}],"set":[{"x":"s"}],"map":{"k":{"x":"m"}}}`).(map[string]any)
	ty := testBlock.ImpliedType()
	b.ReportAllocs()
	for b.Loop() {
		v, err := Config(testBlock, in)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Marshal(v, ty); err != nil {
			b.Fatal(err)
		}
	}
}

// toJSONReference is what ToJSON must equal: cty's JSON encoder, then
// encoding/json decoding the text with numbers as json.Number.
func toJSONReference(v cty.Value) (any, error) {
	if v.IsNull() {
		return nil, nil
	}
	data, err := ctyjson.Marshal(v, v.Type())
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var out any
	err = dec.Decode(&out)
	return out, err
}

func TestToJSONMatchesEncoder(t *testing.T) {
	t.Parallel()
	big, _ := cty.ParseNumberVal("123456789012345678901234567890.000000000000000001")
	cases := map[string]cty.Value{
		"string":       cty.StringVal("a\"b\\c\u00e9\n"),
		"invalid utf8": cty.StringVal("a\xffb\xc3"),
		"numbers":      cty.TupleVal([]cty.Value{cty.NumberIntVal(0), cty.NumberIntVal(-7), cty.NumberFloatVal(0.1), cty.NumberFloatVal(1e21), big}),
		"bools":        cty.ListVal([]cty.Value{cty.True, cty.False}),
		"empty":        cty.ObjectVal(map[string]cty.Value{"l": cty.ListValEmpty(cty.String), "s": cty.SetValEmpty(cty.Number), "m": cty.MapValEmpty(cty.Bool), "o": cty.EmptyObjectVal, "t": cty.EmptyTupleVal}),
		"nulls inside": cty.ObjectVal(map[string]cty.Value{"a": cty.NullVal(cty.String), "d": cty.NullVal(cty.DynamicPseudoType), "l": cty.ListVal([]cty.Value{cty.NullVal(cty.Number)})}),
		"set":          cty.SetVal([]cty.Value{cty.StringVal("b"), cty.StringVal("a"), cty.StringVal("c")}),
		"map":          cty.MapVal(map[string]cty.Value{"z": cty.ObjectVal(map[string]cty.Value{"x": cty.NumberIntVal(1)}), "a": cty.ObjectVal(map[string]cty.Value{"x": cty.NullVal(cty.Number)})}),
		"nested": cty.ObjectVal(map[string]cty.Value{
			"rules": cty.SetVal([]cty.Value{cty.ObjectVal(map[string]cty.Value{"port": cty.NumberIntVal(443)}), cty.ObjectVal(map[string]cty.Value{"port": cty.NumberIntVal(80)})}),
			"any":   cty.TupleVal([]cty.Value{cty.StringVal("x"), cty.MapVal(map[string]cty.Value{"k": cty.ListVal([]cty.Value{cty.True})})}),
		}),
		"null": cty.NullVal(cty.EmptyObject),
	}
	for name, v := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			want, err := toJSONReference(v)
			if err != nil {
				t.Fatal(err)
			}
			got, err := ToJSON(v)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("ToJSON differs from the encoder round trip (-want +got):\n%s", diff)
			}
		})
	}
	for name, v := range map[string]cty.Value{
		"infinity": cty.ListVal([]cty.Value{cty.PositiveInfinity}),
		"marked":   cty.ObjectVal(map[string]cty.Value{"a": cty.StringVal("s").Mark("x")}),
	} {
		if _, err := ToJSON(v); err == nil {
			t.Errorf("ToJSON(%s) succeeded, want the error the encoder gives", name)
		}
		if _, err := toJSONReference(v); err == nil {
			t.Errorf("the encoder accepted %s", name)
		}
	}
}

func TestNumberTextIsShortest(t *testing.T) {
	t.Parallel()
	var fs []*big.Float
	for _, prec := range []uint{24, 53, 64, 512} {
		for _, x := range []float64{0, 1, -1, 7, 1000, -123456, 1 << 52, 1<<53 + 2, 1<<62 + 1024, -(1 << 63), 1 << 63, 1e21, 0.5, 3.25} {
			fs = append(fs, new(big.Float).SetPrec(prec).SetFloat64(x))
		}
		for _, i := range []int64{1<<62 + 1, 1<<63 - 1, -(1<<63 - 1), 9007199254740993} {
			fs = append(fs, new(big.Float).SetPrec(prec).SetInt64(i))
		}
	}
	fs = append(fs, new(big.Float).Neg(new(big.Float)))
	for _, f := range fs {
		if got, want := numberText(f), f.Text('f', -1); got != want {
			t.Errorf("numberText(%s at prec %d) = %s, want %s", f.Text('g', 30), f.Prec(), got, want)
		}
	}
}

// BenchmarkToJSON compares ToJSON with the encoder round trip it replaced.
func BenchmarkToJSON(b *testing.B) {
	in, _ := decode(b, `{"name":"n","size":3,"any":{"k":[1,2,3]},"rules":[{"port":80},{"port":443}],"list":[{"x":"a"},{"x":"b"}],"set":[{"x":"s"}],"map":{"k":{"x":"m"}}}`).(map[string]any)
	v, err := Config(testBlock, in)
	if err != nil {
		b.Fatal(err)
	}
	for name, f := range map[string]func(cty.Value) (any, error){"walk": ToJSON, "encoder round trip": toJSONReference} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := f(v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// A leaf's error names its path, though leaves are converted without one
// until they fail.
func TestToJSONErrorPaths(t *testing.T) {
	t.Parallel()
	mark := cty.StringVal("x").Mark("s")
	for name, tc := range map[string]struct {
		v    cty.Value
		want string
	}{
		"attribute":     {cty.ObjectVal(map[string]cty.Value{"a": mark}), "a"},
		"map element":   {cty.ObjectVal(map[string]cty.Value{"m": cty.MapVal(map[string]cty.Value{"k": mark})}), `m["k"]`},
		"list element":  {cty.ObjectVal(map[string]cty.Value{"l": cty.ListVal([]cty.Value{cty.StringVal("y"), mark})}), "l[1]"},
		"infinity":      {cty.ObjectVal(map[string]cty.Value{"n": cty.PositiveInfinity}), "n"},
		"nested object": {cty.ObjectVal(map[string]cty.Value{"o": cty.ObjectVal(map[string]cty.Value{"b": mark})}), "o.b"},
		"tuple element": {cty.ObjectVal(map[string]cty.Value{"t": cty.TupleVal([]cty.Value{cty.True, cty.NegativeInfinity})}), "t[1]"},
	} {
		_, err := toJSON(tc.v, nil)
		var pe cty.PathError
		if !errors.As(err, &pe) {
			t.Errorf("%s: toJSON error %v, want a cty.PathError", name, err)
			continue
		}
		if got := FormatPath(pe.Path); got != tc.want {
			t.Errorf("%s: error path %q, want %q (%v)", name, got, tc.want, err)
		}
	}
}
