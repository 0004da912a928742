package tfvalue

import (
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
		"nested block count":       {config, obj(s("n"), nullS, unkS), []string{"attribute item: provider planned 0 blocks, the configuration has 1"}},
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
