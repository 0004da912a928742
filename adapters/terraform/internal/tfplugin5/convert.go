package tfplugin5

import (
	"fmt"

	"github.com/pierhq/pier/adapters/terraform/internal/tfproto"
)

// ProviderSchemaFromProto converts a GetSchema response. Attribute types
// that do not parse are an error naming the type and attribute.
func ProviderSchemaFromProto(r *GetProviderSchema_Response) (*tfproto.ProviderSchema, error) {
	out := &tfproto.ProviderSchema{
		ResourceTypes:   map[string]*tfproto.Schema{},
		DataSources:     map[string]*tfproto.Schema{},
		ProtocolVersion: 5,
	}
	if r == nil {
		return out, nil
	}
	var err error
	if out.Provider, err = SchemaFromProto(r.GetProvider()); err != nil {
		return nil, fmt.Errorf("provider configuration: %w", err)
	}
	for name, s := range r.GetResourceSchemas() {
		if out.ResourceTypes[name], err = SchemaFromProto(s); err != nil {
			return nil, fmt.Errorf("resource type %s: %w", name, err)
		}
	}
	for name, s := range r.GetDataSourceSchemas() {
		if out.DataSources[name], err = SchemaFromProto(s); err != nil {
			return nil, fmt.Errorf("data source %s: %w", name, err)
		}
	}
	if out.Functions, err = FunctionsFromProto(r.GetFunctions()); err != nil {
		return nil, err
	}
	out.Capabilities = CapabilitiesFromProto(r.GetServerCapabilities())
	out.Diagnostics = DiagnosticsFromProto(r.GetDiagnostics())
	return out, nil
}

// CapabilitiesFromProto converts server capabilities; nil means none.
func CapabilitiesFromProto(c *ServerCapabilities) tfproto.ServerCapabilities {
	return tfproto.ServerCapabilities{
		PlanDestroy:               c.GetPlanDestroy(),
		GetProviderSchemaOptional: c.GetGetProviderSchemaOptional(),
	}
}

// SchemaFromProto converts one schema. nil becomes a schema with an empty
// block, which is what a provider without configuration sends.
func SchemaFromProto(s *Schema) (*tfproto.Schema, error) {
	b, err := BlockFromProto(s.GetBlock())
	if err != nil {
		return nil, err
	}
	return &tfproto.Schema{Version: s.GetVersion(), Block: b}, nil
}

// BlockFromProto converts a block; nil becomes an empty block, and nil
// attributes and block types are skipped.
func BlockFromProto(b *Schema_Block) (*tfproto.Block, error) {
	out := &tfproto.Block{Description: b.GetDescription(), DescriptionKind: tfproto.StringKind(b.GetDescriptionKind()), Deprecated: b.GetDeprecated()}
	for _, a := range b.GetAttributes() {
		if a == nil {
			continue
		}
		ty, err := tfproto.ParseType(a.GetType())
		if err != nil {
			return nil, fmt.Errorf("attribute %s: %w", a.GetName(), err)
		}
		out.Attributes = append(out.Attributes, &tfproto.Attribute{
			Name:            a.GetName(),
			Type:            ty,
			Description:     a.GetDescription(),
			DescriptionKind: tfproto.StringKind(a.GetDescriptionKind()),
			Required:        a.GetRequired(),
			Optional:        a.GetOptional(),
			Computed:        a.GetComputed(),
			Sensitive:       a.GetSensitive(),
			Deprecated:      a.GetDeprecated(),
			WriteOnly:       a.GetWriteOnly(),
		})
	}
	for _, nb := range b.GetBlockTypes() {
		if nb == nil {
			continue
		}
		inner, err := BlockFromProto(nb.GetBlock())
		if err != nil {
			return nil, fmt.Errorf("block %s: %w", nb.GetTypeName(), err)
		}
		out.BlockTypes = append(out.BlockTypes, &tfproto.NestedBlock{
			TypeName: nb.GetTypeName(),
			Block:    inner,
			Nesting:  tfproto.Nesting(nb.GetNesting()),
			MinItems: nb.GetMinItems(),
			MaxItems: nb.GetMaxItems(),
		})
	}
	return out, nil
}

// DiagnosticsFromProto converts diagnostics; nil entries are skipped.
func DiagnosticsFromProto(ds []*Diagnostic) tfproto.Diagnostics {
	var out tfproto.Diagnostics
	for _, d := range ds {
		if d == nil {
			continue
		}
		out = append(out, tfproto.Diagnostic{
			Severity:  tfproto.Severity(d.GetSeverity()),
			Summary:   d.GetSummary(),
			Detail:    d.GetDetail(),
			Attribute: AttributePathFromProto(d.GetAttribute()),
		})
	}
	return out
}

// AttributePathFromProto converts a path; nil becomes nil.
func AttributePathFromProto(p *AttributePath) tfproto.AttributePath {
	var out tfproto.AttributePath
	for _, s := range p.GetSteps() {
		switch sel := s.GetSelector().(type) {
		case *AttributePath_Step_AttributeName:
			out = append(out, tfproto.PathStep{Kind: tfproto.StepAttribute, Name: sel.AttributeName})
		case *AttributePath_Step_ElementKeyString:
			out = append(out, tfproto.PathStep{Kind: tfproto.StepKeyString, Key: sel.ElementKeyString})
		case *AttributePath_Step_ElementKeyInt:
			out = append(out, tfproto.PathStep{Kind: tfproto.StepKeyInt, Int: sel.ElementKeyInt})
		default:
			out = append(out, tfproto.PathStep{Kind: tfproto.StepInvalid})
		}
	}
	return out
}

// AttributePathsFromProto converts a list of paths, skipping nil ones.
func AttributePathsFromProto(ps []*AttributePath) []tfproto.AttributePath {
	var out []tfproto.AttributePath
	for _, p := range ps {
		if p == nil {
			continue
		}
		out = append(out, AttributePathFromProto(p))
	}
	return out
}

// FunctionsFromProto converts the provider-defined functions; none is
// nil, and nil entries are skipped. A type that does not parse is an error
// naming the function.
func FunctionsFromProto(fs map[string]*Function) (map[string]*tfproto.Function, error) {
	if len(fs) == 0 {
		return nil, nil
	}
	out := make(map[string]*tfproto.Function, len(fs))
	for name, f := range fs {
		if f == nil {
			continue
		}
		ret, err := tfproto.ParseType(f.GetReturn().GetType())
		if err != nil {
			return nil, fmt.Errorf("function %s: return: %w", name, err)
		}
		fn := &tfproto.Function{
			Return:             ret,
			Summary:            f.GetSummary(),
			Description:        f.GetDescription(),
			DescriptionKind:    tfproto.StringKind(f.GetDescriptionKind()),
			DeprecationMessage: f.GetDeprecationMessage(),
		}
		for _, p := range f.GetParameters() {
			fp, err := functionParameterFromProto(p)
			if err != nil {
				return nil, fmt.Errorf("function %s: %w", name, err)
			}
			fn.Parameters = append(fn.Parameters, fp)
		}
		if vp := f.GetVariadicParameter(); vp != nil {
			if fn.VariadicParameter, err = functionParameterFromProto(vp); err != nil {
				return nil, fmt.Errorf("function %s: variadic %w", name, err)
			}
		}
		out[name] = fn
	}
	return out, nil
}

func functionParameterFromProto(p *Function_Parameter) (*tfproto.FunctionParameter, error) {
	ty, err := tfproto.ParseType(p.GetType())
	if err != nil {
		return nil, fmt.Errorf("parameter %s: %w", p.GetName(), err)
	}
	return &tfproto.FunctionParameter{
		Name:            p.GetName(),
		Type:            ty,
		AllowNullValue:  p.GetAllowNullValue(),
		Description:     p.GetDescription(),
		DescriptionKind: tfproto.StringKind(p.GetDescriptionKind()),
	}, nil
}
