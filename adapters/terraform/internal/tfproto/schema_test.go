package tfproto

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/zclconf/go-cty/cty"
)

var typeCmp = cmp.Comparer(func(a, b cty.Type) bool { return a.Equals(b) })

func TestImpliedType(t *testing.T) {
	t.Parallel()
	x := &Block{Attributes: []*Attribute{{Name: "x", Type: cty.String}}}
	xTy := cty.Object(map[string]cty.Type{"x": cty.String})
	dyn := &Block{Attributes: []*Attribute{{Name: "d", Type: cty.DynamicPseudoType}}}
	nested := func(n Nesting) *Block {
		return &Block{Attributes: []*Attribute{{Name: "n", NestedType: &Object{Nesting: n, Attributes: []*Attribute{{Name: "x", Type: cty.String}}}}}}
	}
	block := func(n Nesting, inner *Block) *Block {
		return &Block{BlockTypes: []*NestedBlock{{TypeName: "b", Nesting: n, Block: inner}}}
	}
	one := func(name string, ty cty.Type) cty.Type { return cty.Object(map[string]cty.Type{name: ty}) }
	cases := map[string]struct {
		block *Block
		want  cty.Type
	}{
		"nil":                    {nil, cty.EmptyObject},
		"empty":                  {&Block{}, cty.EmptyObject},
		"attribute":              {x, xTy},
		"attribute without type": {&Block{Attributes: []*Attribute{{Name: "a"}}}, one("a", cty.DynamicPseudoType)},
		"dynamic":                {dyn, one("d", cty.DynamicPseudoType)},
		"nested single":          {nested(NestingSingle), one("n", xTy)},
		"nested list":            {nested(NestingList), one("n", cty.List(xTy))},
		"nested set":             {nested(NestingSet), one("n", cty.Set(xTy))},
		"nested map":             {nested(NestingMap), one("n", cty.Map(xTy))},
		"block single":           {block(NestingSingle, x), one("b", xTy)},
		"block group":            {block(NestingGroup, x), one("b", xTy)},
		"block list":             {block(NestingList, x), one("b", cty.List(xTy))},
		"block set":              {block(NestingSet, x), one("b", cty.Set(xTy))},
		"block map":              {block(NestingMap, x), one("b", cty.Map(xTy))},
		"block list of dynamic":  {block(NestingList, dyn), one("b", cty.DynamicPseudoType)},
		"block map of dynamic":   {block(NestingMap, dyn), one("b", cty.DynamicPseudoType)},
		"block with nil block":   {block(NestingSingle, nil), one("b", cty.EmptyObject)},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, tc.block.ImpliedType(), typeCmp); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseType(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		raw     string
		want    cty.Type
		wantErr bool
	}{
		"string":  {`"string"`, cty.String, false},
		"dynamic": {`"dynamic"`, cty.DynamicPseudoType, false},
		"list":    {`["list","number"]`, cty.List(cty.Number), false},
		"object":  {`["object",{"a":"bool"}]`, cty.Object(map[string]cty.Type{"a": cty.Bool}), false},
		"empty":   {``, cty.NilType, true},
		"garbage": {`["nope"]`, cty.NilType, true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseType([]byte(tc.raw))
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tc.wantErr)
			}
			if !tc.wantErr && !got.Equals(tc.want) {
				t.Errorf("got %#v, want %#v", got, tc.want)
			}
		})
	}
}

func TestSensitivePaths(t *testing.T) {
	t.Parallel()
	b := &Block{
		Attributes: []*Attribute{
			{Name: "password", Type: cty.String, Sensitive: true},
			{Name: "plain", Type: cty.String},
			{Name: "creds", NestedType: &Object{Nesting: NestingSingle, Attributes: []*Attribute{{Name: "key", Type: cty.String, Sensitive: true}}}},
			{Name: "rules", NestedType: &Object{Nesting: NestingList, Attributes: []*Attribute{{Name: "token", Type: cty.String, Sensitive: true}}}},
			{Name: "whole", Sensitive: true, NestedType: &Object{Nesting: NestingSet, Attributes: []*Attribute{{Name: "a", Type: cty.String}}}},
		},
		BlockTypes: []*NestedBlock{
			{TypeName: "login", Nesting: NestingSingle, Block: &Block{Attributes: []*Attribute{{Name: "secret", Type: cty.String, Sensitive: true}}}},
			{TypeName: "hosts", Nesting: NestingMap, Block: &Block{Attributes: []*Attribute{{Name: "pin", Type: cty.String, Sensitive: true}}}},
		},
	}
	want := []string{"creds.key", "hosts.*.pin", "login.secret", "password", "rules.*.token", "whole"}
	if diff := cmp.Diff(want, b.SensitivePaths()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got := (*Block)(nil).SensitivePaths(); got != nil {
		t.Errorf("nil block: %v", got)
	}
}

func TestAttributePathString(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		path AttributePath
		want string
	}{
		"nil":   {nil, ""},
		"one":   {AttributePath{{Kind: StepAttribute, Name: "a"}}, "a"},
		"mixed": {AttributePath{{Kind: StepAttribute, Name: "a"}, {Kind: StepKeyInt, Int: 0}, {Kind: StepAttribute, Name: "b"}, {Kind: StepKeyString, Key: "k"}}, `a[0].b["k"]`},
		"bad":   {AttributePath{{}}, "[?]"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := tc.path.String(); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestDiagnostics(t *testing.T) {
	t.Parallel()
	warn := Diagnostic{Severity: SeverityWarning, Summary: "w"}
	errD := Diagnostic{Severity: SeverityError, Summary: "Bad", Detail: "why", Attribute: AttributePath{{Kind: StepAttribute, Name: "x"}}}
	none := Diagnostic{Summary: "unset severity"}
	cases := map[string]struct {
		diags   Diagnostics
		wantErr string
	}{
		"nil":          {nil, ""},
		"warning only": {Diagnostics{warn}, ""},
		"error":        {Diagnostics{warn, errD}, `error: Bad: why (at attribute x)`},
		"no severity":  {Diagnostics{none}, "invalid: unset severity"},
		"several":      {Diagnostics{errD, errD}, `error: Bad: why (at attribute x); error: Bad: why (at attribute x)`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			err := tc.diags.Err()
			if tc.wantErr == "" {
				if err != nil {
					t.Errorf("Err() = %v, want nil", err)
				}
				return
			}
			var de *DiagnosticsError
			if !errors.As(err, &de) || err.Error() != tc.wantErr {
				t.Errorf("Err() = %v, want %q", err, tc.wantErr)
			}
			if !tc.diags.HasErrors() {
				t.Errorf("HasErrors() = false")
			}
		})
	}
}
