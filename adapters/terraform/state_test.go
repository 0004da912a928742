package terraform

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pierhq/pier/adapters/terraform/internal/tfproto"
	"github.com/pierhq/pier/schema"
	"github.com/zclconf/go-cty/cty"
)

var testType = newResourceType("x_thing", &tfproto.Schema{Version: 3, Block: &tfproto.Block{
	Attributes: []*tfproto.Attribute{
		{Name: "id", Type: cty.String, Computed: true},
		{Name: "password", Type: cty.String, Optional: true, Sensitive: true},
		{Name: "any", Type: cty.DynamicPseudoType, Optional: true},
	},
}}, false)

// viaJSON passes properties through JSON the way the v0 protocol does.
func viaJSON(t *testing.T, p schema.Properties) schema.Properties {
	t.Helper()
	data, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.UseNumber()
	var out schema.Properties
	if err := dec.Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestOutputsRoundTrip(t *testing.T) {
	t.Parallel()
	state := cty.ObjectVal(map[string]cty.Value{
		"id":       cty.StringVal("i-1"),
		"password": cty.StringVal("pw"),
		"any":      cty.ListVal([]cty.Value{cty.StringVal("a")}),
	})
	cases := map[string]struct {
		private []byte
	}{
		"nil private":    {nil},
		"empty private":  {[]byte{}},
		"binary private": {[]byte{0, 1, 2, 0xff, '"', '\n'}},
		"json private":   {[]byte(`{"k":"v"}`)},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			out, err := outputs(testType, state, tc.private)
			if err != nil {
				t.Fatal(err)
			}
			got, m, err := splitOutputs(viaJSON(t, out))
			if err != nil {
				t.Fatal(err)
			}
			if string(m.Private) != string(tc.private) {
				t.Errorf("private %q, want %q", m.Private, tc.private)
			}
			if m.SchemaVersion != 3 {
				t.Errorf("schema version %d, want 3", m.SchemaVersion)
			}
			want := map[string]any{"id": "i-1", "password": "pw", "any": []any{"a"}}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("state (-want +got):\n%s", diff)
			}
			meta := out[ReservedKey].(map[string]any)
			if diff := cmp.Diff([]any{"password"}, meta["sensitive_paths"]); diff != "" {
				t.Errorf("sensitive_paths (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSplitOutputsErrors(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		props schema.Properties
		want  string
	}{
		"nil":           {nil, `recorded outputs lack "__tf"`},
		"not an object": {schema.Properties{"__tf": "x"}, `"__tf" is not an object`},
		"bad version":   {schema.Properties{"__tf": map[string]any{"schema_version": "one"}}, "schema_version is not a number"},
		"bad private":   {schema.Properties{"__tf": map[string]any{"private": "!!"}}, "__tf.private"},
		"float version": {schema.Properties{"__tf": map[string]any{"schema_version": json.Number("1.5")}}, "schema_version"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, _, err := splitOutputs(tc.props)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestRawState(t *testing.T) {
	t.Parallel()
	state := map[string]any{"id": "i-1", "password": nil, "any": []any{"a", json.Number("1")}}
	cases := map[string]struct {
		version int64
		want    string
	}{
		// The current version is re-encoded with the dynamic value's type.
		"current version": {3, `{"any":{"value":["a",1],"type":["tuple",["string","number"]]},"id":"i-1","password":null}`},
		// Older state goes as recorded, for the provider's own upgrader.
		"older version": {1, `{"any":["a",1],"id":"i-1","password":null}`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := rawState(testType, state, tc.version)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("rawState = %s, want %s", got, tc.want)
			}
		})
	}
}

func TestDecodeConfig(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		in      string
		want    map[string]any
		wantErr string
	}{
		"empty":      {"", map[string]any{}, ""},
		"whitespace": {" \n", map[string]any{}, ""},
		"null":       {"null", map[string]any{}, ""},
		"object":     {`{"token":"t","n":12345678901234567890}`, map[string]any{"token": "t", "n": json.Number("12345678901234567890")}, ""},
		"array":      {`["secret-value"]`, nil, "not a JSON object (a JSON array where an object belongs)"},
		"garbage":    {`{"token": secret-value}`, nil, "not a JSON object (syntax error at byte"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := DecodeConfig(strings.NewReader(tc.in))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				if strings.Contains(err.Error(), "secret-value") {
					t.Errorf("the error quotes the configuration: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestProposedNew(t *testing.T) {
	t.Parallel()
	inner := &tfproto.Block{Attributes: []*tfproto.Attribute{
		{Name: "v", Type: cty.String, Optional: true},
		{Name: "c", Type: cty.String, Computed: true},
	}}
	b := &tfproto.Block{
		Attributes: []*tfproto.Attribute{
			{Name: "name", Type: cty.String, Required: true},
			{Name: "id", Type: cty.String, Computed: true},
			{Name: "mode", Type: cty.String, Optional: true, Computed: true},
			{Name: "nested", NestedType: &tfproto.Object{Nesting: tfproto.NestingList, Attributes: inner.Attributes}, Optional: true},
		},
		BlockTypes: []*tfproto.NestedBlock{{TypeName: "blk", Nesting: tfproto.NestingList, Block: inner}},
	}
	s := cty.StringVal
	null := cty.NullVal(cty.String)
	elem := func(v, c cty.Value) cty.Value { return cty.ObjectVal(map[string]cty.Value{"v": v, "c": c}) }
	obj := func(name, id, mode cty.Value, nested, blk []cty.Value) cty.Value {
		ety := inner.ImpliedType()
		nl, bl := cty.ListValEmpty(ety), cty.ListValEmpty(ety)
		if len(nested) > 0 {
			nl = cty.ListVal(nested)
		}
		if len(blk) > 0 {
			bl = cty.ListVal(blk)
		}
		return cty.ObjectVal(map[string]cty.Value{"name": name, "id": id, "mode": mode, "nested": nl, "blk": bl})
	}
	prior := obj(s("a"), s("i-1"), s("0644"), []cty.Value{elem(s("x"), s("cx"))}, []cty.Value{elem(s("y"), s("cy")), elem(s("z"), s("cz"))})
	cases := map[string]struct {
		prior, config, want cty.Value
	}{
		"null prior": {cty.NullVal(b.ImpliedType()), obj(s("a"), null, null, nil, nil), obj(s("a"), null, null, nil, nil)},
		"computed kept from prior": {
			prior,
			obj(s("b"), null, null, []cty.Value{elem(s("x2"), null)}, []cty.Value{elem(s("y2"), null)}),
			obj(s("b"), s("i-1"), s("0644"), []cty.Value{elem(s("x2"), s("cx"))}, []cty.Value{elem(s("y2"), s("cy"))}),
		},
		"configured computed wins": {
			prior,
			obj(s("a"), null, s("0600"), nil, nil),
			obj(s("a"), s("i-1"), s("0600"), nil, nil),
		},
		"null config": {prior, cty.NullVal(b.ImpliedType()), cty.NullVal(b.ImpliedType())},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := proposedNew(b, tc.prior, tc.config)
			if !got.RawEquals(tc.want) {
				t.Errorf("proposedNew =\n%#v\nwant\n%#v", got, tc.want)
			}
		})
	}
}

func TestTypeString(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		ty   cty.Type
		want string
	}{
		"string":  {cty.String, "string"},
		"dynamic": {cty.DynamicPseudoType, "dynamic"},
		"list":    {cty.List(cty.Number), "list(number)"},
		"set":     {cty.Set(cty.Bool), "set(bool)"},
		"map":     {cty.Map(cty.String), "map(string)"},
		"object":  {cty.Object(map[string]cty.Type{"b": cty.String, "a": cty.Number}), "object({a=number, b=string})"},
		"tuple":   {cty.Tuple([]cty.Type{cty.String, cty.Bool}), "tuple([string, bool])"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := typeString(tc.ty); got != tc.want {
				t.Errorf("typeString = %q, want %q", got, tc.want)
			}
		})
	}
}

// BenchmarkOutputsRoundTrip measures what every operation pays to turn a
// new state into outputs and recorded outputs back into state JSON.
func BenchmarkOutputsRoundTrip(b *testing.B) {
	state := cty.ObjectVal(map[string]cty.Value{
		"id":       cty.StringVal("i-0123456789"),
		"password": cty.StringVal("pw"),
		"any":      cty.ListVal([]cty.Value{cty.StringVal("a"), cty.StringVal("b"), cty.StringVal("c")}),
	})
	private := []byte(`{"fixture":"eyJtYXJrZXIiOiJmaXh0dXJlLXByaXZhdGUtdjEifQ=="}`)
	b.ReportAllocs()
	for b.Loop() {
		out, err := outputs(testType, state, private)
		if err != nil {
			b.Fatal(err)
		}
		st, m, err := splitOutputs(out)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := rawState(testType, st, m.SchemaVersion); err != nil {
			b.Fatal(err)
		}
	}
}
