package tfvalue

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pierhq/pier/adapters/terraform/internal/tfproto"
	"github.com/zclconf/go-cty/cty"
)

var checkBlock = &tfproto.Block{
	Attributes: []*tfproto.Attribute{
		{Name: "name", Type: cty.String, Required: true},
		{Name: "mode", Type: cty.String, Optional: true, Computed: true},
		{Name: "id", Type: cty.String, Computed: true},
	},
	BlockTypes: []*tfproto.NestedBlock{
		{TypeName: "item", Nesting: tfproto.NestingList, Block: &tfproto.Block{Attributes: []*tfproto.Attribute{{Name: "v", Type: cty.String, Optional: true}}}},
	},
}

func obj(name, mode, id cty.Value, items ...string) cty.Value {
	ity := cty.Object(map[string]cty.Type{"v": cty.String})
	list := cty.ListValEmpty(ity)
	if len(items) > 0 {
		var vs []cty.Value
		for _, s := range items {
			vs = append(vs, cty.ObjectVal(map[string]cty.Value{"v": cty.StringVal(s)}))
		}
		list = cty.ListVal(vs)
	}
	return cty.ObjectVal(map[string]cty.Value{"name": name, "mode": mode, "id": id, "item": list})
}

func TestCheckPlan(t *testing.T) {
	t.Parallel()
	s := cty.StringVal
	nullS := cty.NullVal(cty.String)
	unkS := cty.UnknownVal(cty.String)
	config := obj(s("n"), nullS, nullS, "a")
	cases := map[string]struct {
		config, planned cty.Value
		want            []string
	}{
		"consistent":               {config, obj(s("n"), s("0644"), unkS, "a"), nil},
		"computed set by config":   {obj(s("n"), s("0600"), nullS), obj(s("n"), s("0600"), unkS), nil},
		"changed required":         {config, obj(s("x"), nullS, unkS, "a"), []string{"attribute name: provider planned a value different from the configured one"}},
		"unknown required":         {config, obj(unkS, nullS, unkS, "a"), []string{"attribute name: provider planned an unknown value, but the configuration sets it"}},
		"overrode configured mode": {obj(s("n"), s("0600"), nullS), obj(s("n"), s("0644"), unkS), []string{"attribute mode: provider planned a value different from the configured one"}},
		"nested block value":       {config, obj(s("n"), nullS, unkS, "b"), []string{"attribute item[0].v: provider planned a value different from the configured one"}},
		"nested block count":       {config, obj(s("n"), nullS, unkS), []string{"attribute item: provider planned 0 elements, the configuration has 1"}},
		"null plan":                {config, cty.NullVal(checkBlock.ImpliedType()), []string{"provider planned a null object"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var got []string
			for _, e := range CheckPlan(checkBlock, tc.config, tc.planned) {
				got = append(got, e.Error())
			}
			if len(got) != len(tc.want) {
				t.Fatalf("errors %q, want %q", got, tc.want)
			}
			for i := range got {
				if !strings.Contains(got[i], tc.want[i]) {
					t.Errorf("error %q, want %q", got[i], tc.want[i])
				}
			}
		})
	}
}

func TestCheckApply(t *testing.T) {
	t.Parallel()
	s := cty.StringVal
	nullS := cty.NullVal(cty.String)
	unkS := cty.UnknownVal(cty.String)
	cases := map[string]struct {
		planned, applied cty.Value
		want             []string
	}{
		"unknowns filled":    {obj(s("n"), unkS, unkS), obj(s("n"), s("0644"), s("id")), nil},
		"known kept":         {obj(s("n"), s("0644"), unkS, "a"), obj(s("n"), s("0644"), s("id"), "a"), nil},
		"known changed":      {obj(s("n"), s("0644"), unkS), obj(s("n"), s("0600"), s("id")), []string{"attribute mode: provider produced a value different from the planned one"}},
		"null became value":  {obj(s("n"), nullS, unkS), obj(s("n"), s("0600"), s("id")), []string{"attribute mode"}},
		"list length":        {obj(s("n"), unkS, unkS, "a"), obj(s("n"), s("m"), s("id")), []string{"attribute item: provider produced 0 elements, the plan had 1"}},
		"nested element":     {obj(s("n"), unkS, unkS, "a"), obj(s("n"), s("m"), s("id"), "b"), []string{"attribute item[0].v"}},
		"wholly unknown":     {cty.UnknownVal(checkBlock.ImpliedType()), obj(s("n"), s("m"), s("id")), nil},
		"both null":          {cty.NullVal(checkBlock.ImpliedType()), cty.NullVal(checkBlock.ImpliedType()), nil},
		"object not deleted": {cty.NullVal(checkBlock.ImpliedType()), obj(s("n"), s("m"), s("id")), []string{"provider produced a value different from the planned one"}},
		"map element kept":   {tagged(cty.MapVal(map[string]cty.Value{"a": s("1")})), tagged(cty.MapVal(map[string]cty.Value{"a": s("1")})), nil},
		"map element changed": {
			tagged(cty.MapVal(map[string]cty.Value{"a": s("1"), "b": s("2")})), tagged(cty.MapVal(map[string]cty.Value{"a": s("1"), "b": s("3")})),
			[]string{`attribute tags["b"]: provider produced a value different from the planned one`},
		},
		"map element unknown kept":   {tagged(cty.MapVal(map[string]cty.Value{"a": unkS})), tagged(cty.MapVal(map[string]cty.Value{"a": s("x")})), nil},
		"map element became null":    {tagged(cty.MapVal(map[string]cty.Value{"a": s("1")})), tagged(cty.MapVal(map[string]cty.Value{"a": nullS})), []string{`attribute tags["a"]`}},
		"map element became unknown": {tagged(cty.MapVal(map[string]cty.Value{"a": s("1")})), tagged(cty.MapVal(map[string]cty.Value{"a": unkS})), []string{`attribute tags["a"]`}},
		"map element dropped":        {tagged(cty.MapVal(map[string]cty.Value{"a": s("1")})), tagged(cty.MapValEmpty(cty.String)), []string{`attribute tags["a"]: provider dropped a planned map element`}},
		"leaf changed type": {
			cty.ObjectVal(map[string]cty.Value{"n": cty.NumberIntVal(1)}), cty.ObjectVal(map[string]cty.Value{"n": s("1")}),
			[]string{"attribute n: provider produced a value different from the planned one"},
		},
		"leaf became unknown": {
			cty.ObjectVal(map[string]cty.Value{"n": cty.True}), cty.ObjectVal(map[string]cty.Value{"n": cty.UnknownVal(cty.Bool)}),
			[]string{"attribute n: provider produced a value different from the planned one"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var got []string
			for _, e := range CheckApply(tc.planned, tc.applied) {
				got = append(got, e.Error())
			}
			if len(got) != len(tc.want) {
				t.Fatalf("errors %q, want %q", got, tc.want)
			}
			for i := range got {
				if !strings.Contains(got[i], tc.want[i]) {
					t.Errorf("error %q, want %q", got[i], tc.want[i])
				}
			}
		})
	}
}

func TestInputs(t *testing.T) {
	t.Parallel()
	s := cty.StringVal
	cases := map[string]struct {
		block *tfproto.Block
		state cty.Value
		want  map[string]any
	}{
		"nil block":  {nil, cty.EmptyObjectVal, map[string]any{}},
		"null state": {checkBlock, cty.NullVal(checkBlock.ImpliedType()), map[string]any{}},
		"configurable only": {checkBlock, obj(s("n"), s("0644"), s("id-1"), "a"),
			map[string]any{"name": "n", "mode": "0644", "item": []any{map[string]any{"v": "a"}}}},
		"nulls and empty blocks omitted": {checkBlock, obj(s("n"), cty.NullVal(cty.String), s("id-1")),
			map[string]any{"name": "n"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := Inputs(tc.block, tc.state)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// nestedBlock has nested attributes with a computed attribute inside.
var nestedBlock = &tfproto.Block{Attributes: []*tfproto.Attribute{
	{Name: "rules", Optional: true, NestedType: &tfproto.Object{Nesting: tfproto.NestingList, Attributes: []*tfproto.Attribute{
		{Name: "port", Type: cty.Number, Required: true},
		{Name: "rid", Type: cty.String, Computed: true},
	}}},
	{Name: "byname", Optional: true, NestedType: &tfproto.Object{Nesting: tfproto.NestingMap, Attributes: []*tfproto.Attribute{
		{Name: "port", Type: cty.Number, Required: true},
		{Name: "rid", Type: cty.String, Computed: true},
	}}},
}}

func rules(m map[string]cty.Value, ports ...cty.Value) cty.Value {
	ety := cty.Object(map[string]cty.Type{"port": cty.Number, "rid": cty.String})
	list := cty.NullVal(cty.List(ety))
	if len(ports) > 0 {
		var vs []cty.Value
		for i := 0; i+1 < len(ports); i += 2 {
			vs = append(vs, cty.ObjectVal(map[string]cty.Value{"port": ports[i], "rid": ports[i+1]}))
		}
		list = cty.ListVal(vs)
	}
	mv := cty.NullVal(cty.Map(ety))
	if m != nil {
		mv = cty.MapVal(m)
	}
	return cty.ObjectVal(map[string]cty.Value{"rules": list, "byname": mv})
}

func TestCheckPlanNestedAttributes(t *testing.T) {
	t.Parallel()
	n := cty.NumberIntVal
	null := cty.NullVal(cty.String)
	elem := func(port int64, rid cty.Value) cty.Value {
		return cty.ObjectVal(map[string]cty.Value{"port": n(port), "rid": rid})
	}
	cases := map[string]struct {
		config, planned cty.Value
		want            []string
	}{
		"inner computed filled": {
			rules(map[string]cty.Value{"a": elem(1, null)}, n(80), null),
			rules(map[string]cty.Value{"a": elem(1, cty.UnknownVal(cty.String))}, n(80), cty.UnknownVal(cty.String)),
			nil,
		},
		"inner required changed": {
			rules(nil, n(80), null),
			rules(nil, n(81), cty.StringVal("r")),
			[]string{"attribute rules[0].port: provider planned a value different from the configured one"},
		},
		"map element changed": {
			rules(map[string]cty.Value{"a": elem(1, null)}, n(80), null),
			rules(map[string]cty.Value{"a": elem(2, null)}, n(80), null),
			[]string{`attribute byname["a"].port`},
		},
		"map element dropped": {
			rules(map[string]cty.Value{"a": elem(1, null)}),
			rules(map[string]cty.Value{"b": elem(1, null)}),
			[]string{`attribute byname["a"]: provider dropped a configured element`},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var got []string
			for _, e := range CheckPlan(nestedBlock, tc.config, tc.planned) {
				got = append(got, e.Error())
			}
			if len(got) != len(tc.want) {
				t.Fatalf("errors %q, want %q", got, tc.want)
			}
			for i := range got {
				if !strings.Contains(got[i], tc.want[i]) {
					t.Errorf("error %q, want %q", got[i], tc.want[i])
				}
			}
		})
	}
}

func TestInputsNestedAttributes(t *testing.T) {
	t.Parallel()
	state := rules(map[string]cty.Value{"a": cty.ObjectVal(map[string]cty.Value{"port": cty.NumberIntVal(1), "rid": cty.StringVal("x")})},
		cty.NumberIntVal(80), cty.StringVal("r1"))
	got, err := Inputs(nestedBlock, state)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"rules":  []any{map[string]any{"port": json.Number("80")}},
		"byname": map[string]any{"a": map[string]any{"port": json.Number("1")}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// The inputs are valid configuration again.
	if _, err := Config(nestedBlock, got); err != nil {
		t.Errorf("inputs do not make a valid configuration: %v", err)
	}
}

// tagged is an object whose one attribute, tags, is the map m.
func tagged(m cty.Value) cty.Value { return cty.ObjectVal(map[string]cty.Value{"tags": m}) }
