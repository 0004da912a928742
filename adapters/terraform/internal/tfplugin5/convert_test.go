package tfplugin5

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pierhq/pier/adapters/terraform/internal/tfproto"
	"github.com/zclconf/go-cty/cty"
)

var typeCmp = cmp.Comparer(func(a, b cty.Type) bool { return a.Equals(b) })

func TestProviderSchemaFromProto(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		in      *GetProviderSchema_Response
		want    *tfproto.ProviderSchema
		wantErr bool
	}{
		"nil": {nil, &tfproto.ProviderSchema{ResourceTypes: map[string]*tfproto.Schema{}, DataSources: map[string]*tfproto.Schema{}, ProtocolVersion: 5}, false},
		"zero": {&GetProviderSchema_Response{}, &tfproto.ProviderSchema{
			Provider:      &tfproto.Schema{Block: &tfproto.Block{}},
			ResourceTypes: map[string]*tfproto.Schema{}, DataSources: map[string]*tfproto.Schema{}, ProtocolVersion: 5,
		}, false},
		"full": {&GetProviderSchema_Response{
			Provider: &Schema{Block: &Schema_Block{Attributes: []*Schema_Attribute{{Name: "token", Type: []byte(`"string"`), Required: true, Sensitive: true, DescriptionKind: StringKind_MARKDOWN}}}},
			Functions: map[string]*Function{"f": {
				Parameters:        []*Function_Parameter{{Name: "s", Type: []byte(`"string"`), AllowNullValue: true}},
				VariadicParameter: &Function_Parameter{Name: "rest", Type: []byte(`["list","number"]`)},
				Return:            &Function_Return{Type: []byte(`"bool"`)},
				Summary:           "sum", DescriptionKind: StringKind_MARKDOWN,
			}, "skipped": nil},
			ResourceSchemas: map[string]*Schema{"r": {Version: 2, Block: &Schema_Block{
				Attributes: []*Schema_Attribute{{Name: "id", Type: []byte(`"string"`), Computed: true}, nil},
				BlockTypes: []*Schema_NestedBlock{{TypeName: "b", Nesting: Schema_NestedBlock_SET, MaxItems: 3, Block: &Schema_Block{}}, nil},
			}}},
			DataSourceSchemas:  map[string]*Schema{"d": nil},
			ServerCapabilities: &ServerCapabilities{PlanDestroy: true},
			Diagnostics:        []*Diagnostic{{Severity: Diagnostic_WARNING, Summary: "w"}, nil},
		}, &tfproto.ProviderSchema{
			Provider: &tfproto.Schema{Block: &tfproto.Block{Attributes: []*tfproto.Attribute{{Name: "token", Type: cty.String, Required: true, Sensitive: true, DescriptionKind: tfproto.StringMarkdown}}}},
			Functions: map[string]*tfproto.Function{"f": {
				Parameters:        []*tfproto.FunctionParameter{{Name: "s", Type: cty.String, AllowNullValue: true}},
				VariadicParameter: &tfproto.FunctionParameter{Name: "rest", Type: cty.List(cty.Number)},
				Return:            cty.Bool,
				Summary:           "sum", DescriptionKind: tfproto.StringMarkdown,
			}},
			ResourceTypes: map[string]*tfproto.Schema{"r": {Version: 2, Block: &tfproto.Block{
				Attributes: []*tfproto.Attribute{{Name: "id", Type: cty.String, Computed: true}},
				BlockTypes: []*tfproto.NestedBlock{{TypeName: "b", Nesting: tfproto.NestingSet, MaxItems: 3, Block: &tfproto.Block{}}},
			}}},
			DataSources:     map[string]*tfproto.Schema{"d": {Block: &tfproto.Block{}}},
			Capabilities:    tfproto.ServerCapabilities{PlanDestroy: true},
			Diagnostics:     tfproto.Diagnostics{{Severity: tfproto.SeverityWarning, Summary: "w"}},
			ProtocolVersion: 5,
		}, false},
		"bad type": {&GetProviderSchema_Response{ResourceSchemas: map[string]*Schema{"r": {Block: &Schema_Block{
			Attributes: []*Schema_Attribute{{Name: "a", Type: []byte(`"nope"`)}},
		}}}}, nil, true},
		"bad function type": {&GetProviderSchema_Response{Functions: map[string]*Function{"f": {Return: &Function_Return{Type: []byte(`"nope"`)}}}}, nil, true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := ProviderSchemaFromProto(tc.in)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got, typeCmp); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestBlockFromProtoZeroAttribute(t *testing.T) {
	t.Parallel()
	// An attribute without a type is an error naming it.
	_, err := BlockFromProto(&Schema_Block{Attributes: []*Schema_Attribute{{Name: "a"}}})
	if err == nil || err.Error() != "attribute a: empty type" {
		t.Errorf("err = %v", err)
	}
}

func TestAttributePathFromProto(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		in   *AttributePath
		want tfproto.AttributePath
	}{
		"nil":   {nil, nil},
		"empty": {&AttributePath{}, nil},
		"steps": {&AttributePath{Steps: []*AttributePath_Step{
			{Selector: &AttributePath_Step_AttributeName{AttributeName: "a"}},
			{Selector: &AttributePath_Step_ElementKeyInt{ElementKeyInt: 1}},
			{Selector: &AttributePath_Step_ElementKeyString{ElementKeyString: "k"}},
			{},
			nil,
		}}, tfproto.AttributePath{
			{Kind: tfproto.StepAttribute, Name: "a"},
			{Kind: tfproto.StepKeyInt, Int: 1},
			{Kind: tfproto.StepKeyString, Key: "k"},
			{Kind: tfproto.StepInvalid},
			{Kind: tfproto.StepInvalid},
		}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, AttributePathFromProto(tc.in)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	if got := AttributePathsFromProto([]*AttributePath{nil, {}}); len(got) != 1 {
		t.Errorf("AttributePathsFromProto skipped wrongly: %v", got)
	}
}

func TestDiagnosticsFromProto(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		in   []*Diagnostic
		want tfproto.Diagnostics
	}{
		"nil":  {nil, nil},
		"zero": {[]*Diagnostic{{}}, tfproto.Diagnostics{{}}},
		"full": {[]*Diagnostic{{Severity: Diagnostic_ERROR, Summary: "s", Detail: "d", Attribute: &AttributePath{Steps: []*AttributePath_Step{{Selector: &AttributePath_Step_AttributeName{AttributeName: "x"}}}}}},
			tfproto.Diagnostics{{Severity: tfproto.SeverityError, Summary: "s", Detail: "d", Attribute: tfproto.AttributePath{{Kind: tfproto.StepAttribute, Name: "x"}}}}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, DiagnosticsFromProto(tc.in)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
