package terraform

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/pierhq/pier/adapters/terraform/internal/tfproto"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// TerraformFormatVersion is the format_version of the document
// `terraform providers schema -json` prints, which [DescribeTerraformSchema]
// reproduces.
const TerraformFormatVersion = "1.0"

// ProvidersSchemaJSON is the document `terraform providers schema -json`
// prints, for one provider: tools written for Terraform's output read it
// unchanged. Field names and omissions follow Terraform's documentation
// of the format (developer.hashicorp.com/terraform/cli/commands/providers/schema).
type ProvidersSchemaJSON struct {
	FormatVersion string `json:"format_version"`
	// Schemas is keyed by provider source address
	// ("registry.terraform.io/hashicorp/time").
	Schemas map[string]*ProviderJSON `json:"provider_schemas,omitempty"`
}

// ProviderJSON is one provider's schemas.
type ProviderJSON struct {
	Provider          *SchemaJSON              `json:"provider,omitempty"`
	ResourceSchemas   map[string]*SchemaJSON   `json:"resource_schemas,omitempty"`
	DataSourceSchemas map[string]*SchemaJSON   `json:"data_source_schemas,omitempty"`
	Functions         map[string]*FunctionJSON `json:"functions,omitempty"`
}

// SchemaJSON is a schema with its version.
type SchemaJSON struct {
	Version int64      `json:"version"`
	Block   *BlockJSON `json:"block,omitempty"`
}

// BlockJSON is a configuration block.
type BlockJSON struct {
	Attributes      map[string]*AttributeJSON `json:"attributes,omitempty"`
	BlockTypes      map[string]*BlockTypeJSON `json:"block_types,omitempty"`
	Description     string                    `json:"description,omitempty"`
	DescriptionKind string                    `json:"description_kind,omitempty"`
	Deprecated      bool                      `json:"deprecated,omitempty"`
}

// AttributeJSON is one attribute: Type is cty's JSON type encoding
// ("string", ["list","string"]), absent when NestedType is set.
type AttributeJSON struct {
	Type            json.RawMessage `json:"type,omitempty"`
	NestedType      *NestedTypeJSON `json:"nested_type,omitempty"`
	Description     string          `json:"description,omitempty"`
	DescriptionKind string          `json:"description_kind,omitempty"`
	Deprecated      bool            `json:"deprecated,omitempty"`
	Required        bool            `json:"required,omitempty"`
	Optional        bool            `json:"optional,omitempty"`
	Computed        bool            `json:"computed,omitempty"`
	Sensitive       bool            `json:"sensitive,omitempty"`
	WriteOnly       bool            `json:"write_only,omitempty"`
}

// NestedTypeJSON is the nested attributes of a protocol 6 attribute.
type NestedTypeJSON struct {
	Attributes  map[string]*AttributeJSON `json:"attributes,omitempty"`
	NestingMode string                    `json:"nesting_mode,omitempty"`
}

// BlockTypeJSON is a nested block type.
type BlockTypeJSON struct {
	NestingMode string     `json:"nesting_mode,omitempty"`
	Block       *BlockJSON `json:"block,omitempty"`
	MinItems    int64      `json:"min_items,omitempty"`
	MaxItems    int64      `json:"max_items,omitempty"`
}

// FunctionJSON is a provider-defined function's signature.
type FunctionJSON struct {
	Description        string           `json:"description,omitempty"`
	Summary            string           `json:"summary,omitempty"`
	DeprecationMessage string           `json:"deprecation_message,omitempty"`
	ReturnType         json.RawMessage  `json:"return_type"`
	Parameters         []*ParameterJSON `json:"parameters,omitempty"`
	VariadicParameter  *ParameterJSON   `json:"variadic_parameter,omitempty"`
}

// ParameterJSON is one parameter of a function.
type ParameterJSON struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	IsNullable  bool            `json:"is_nullable,omitempty"`
	Type        json.RawMessage `json:"type"`
}

// DescribeTerraformSchema starts the provider, reads its schema (with its
// functions, if it declares any) and stops it, and returns the schema in
// Terraform's format keyed by source, the provider's source address. The
// provider is not configured.
func DescribeTerraformSchema(ctx context.Context, opts Options, source string) (*ProvidersSchemaJSON, error) {
	b, err := New(ctx, opts)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	s, err := b.providerSchema(ctx)
	if err != nil {
		return nil, err
	}
	return &ProvidersSchemaJSON{FormatVersion: TerraformFormatVersion, Schemas: map[string]*ProviderJSON{source: terraformProvider(s)}}, nil
}

func terraformProvider(s *tfproto.ProviderSchema) *ProviderJSON {
	p := &ProviderJSON{
		Provider:          terraformSchema(s.Provider),
		ResourceSchemas:   make(map[string]*SchemaJSON, len(s.ResourceTypes)),
		DataSourceSchemas: make(map[string]*SchemaJSON, len(s.DataSources)),
	}
	for name, rs := range s.ResourceTypes {
		p.ResourceSchemas[name] = terraformSchema(rs)
	}
	for name, ds := range s.DataSources {
		p.DataSourceSchemas[name] = terraformSchema(ds)
	}
	if len(s.Functions) > 0 {
		p.Functions = make(map[string]*FunctionJSON, len(s.Functions))
	}
	for name, f := range s.Functions {
		p.Functions[name] = terraformFunction(f)
	}
	return p
}

func terraformSchema(s *tfproto.Schema) *SchemaJSON {
	if s == nil {
		return &SchemaJSON{Block: &BlockJSON{}}
	}
	return &SchemaJSON{Version: s.Version, Block: terraformBlock(s.Block)}
}

func terraformBlock(b *tfproto.Block) *BlockJSON {
	out := &BlockJSON{}
	if b == nil {
		return out
	}
	out.Description, out.Deprecated = b.Description, b.Deprecated
	out.DescriptionKind = b.DescriptionKind.String()
	if len(b.Attributes) > 0 {
		out.Attributes = terraformAttributes(b.Attributes)
	}
	if len(b.BlockTypes) > 0 {
		out.BlockTypes = make(map[string]*BlockTypeJSON, len(b.BlockTypes))
	}
	for _, nb := range b.BlockTypes {
		out.BlockTypes[nb.TypeName] = &BlockTypeJSON{
			NestingMode: nb.Nesting.String(),
			Block:       terraformBlock(nb.Block),
			MinItems:    nb.MinItems,
			MaxItems:    nb.MaxItems,
		}
	}
	return out
}

func terraformAttributes(as []*tfproto.Attribute) map[string]*AttributeJSON {
	out := make(map[string]*AttributeJSON, len(as))
	for _, a := range as {
		aj := &AttributeJSON{
			Description:     a.Description,
			DescriptionKind: a.DescriptionKind.String(),
			Deprecated:      a.Deprecated,
			Required:        a.Required,
			Optional:        a.Optional,
			Computed:        a.Computed,
			Sensitive:       a.Sensitive,
			WriteOnly:       a.WriteOnly,
		}
		if a.NestedType != nil {
			aj.NestedType = &NestedTypeJSON{Attributes: terraformAttributes(a.NestedType.Attributes), NestingMode: a.NestedType.Nesting.String()}
		} else {
			// The type parsed from the wire, so it marshals back.
			aj.Type = typeJSON(a.Type)
		}
		out[a.Name] = aj
	}
	return out
}

func terraformFunction(f *tfproto.Function) *FunctionJSON {
	out := &FunctionJSON{
		Description:        f.Description,
		Summary:            f.Summary,
		DeprecationMessage: f.DeprecationMessage,
		ReturnType:         typeJSON(f.Return),
	}
	for _, p := range f.Parameters {
		out.Parameters = append(out.Parameters, terraformParameter(p))
	}
	if f.VariadicParameter != nil {
		out.VariadicParameter = terraformParameter(f.VariadicParameter)
	}
	return out
}

func terraformParameter(p *tfproto.FunctionParameter) *ParameterJSON {
	return &ParameterJSON{Name: p.Name, Description: p.Description, IsNullable: p.AllowNullValue, Type: typeJSON(p.Type)}
}

// typeJSON is cty's JSON encoding of ty; it cannot fail for a type that
// came off the wire, which is the only kind the bridge has.
func typeJSON(ty cty.Type) json.RawMessage {
	raw, err := ctyjson.MarshalType(ty)
	if err != nil {
		panic(fmt.Sprintf("marshal type %#v: %v", ty, err))
	}
	return raw
}
