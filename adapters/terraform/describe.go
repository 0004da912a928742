package terraform

import (
	"context"
	"maps"
	"slices"
	"sort"

	"github.com/pierhq/pier/adapters/terraform/internal/tfproto"
	"github.com/pierhq/pier/internal/tfschemadoc"
	"github.com/zclconf/go-cty/cty"
)

// SchemaInfo describes a Terraform provider's schema for people and tools
// (`pier tf schema`); it is the --json document itself.
type SchemaInfo = tfschemadoc.Document

// TypeInfo describes one resource type, data source or the provider
// configuration.
type TypeInfo = tfschemadoc.Type

// AttributeInfo describes one attribute or nested block. Whether changing
// it forces replacement the bridge learns from each plan: a value at a
// requires_replace path that the plan changes forces a replacement (see
// requiresReplace).
type AttributeInfo = tfschemadoc.Attribute

// DescribeSchema starts the provider, reads its schema and stops it. The
// provider is not configured.
func DescribeSchema(ctx context.Context, opts Options) (*SchemaInfo, error) {
	b, err := New(ctx, opts)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	s, err := b.providerSchema(ctx)
	if err != nil {
		return nil, err
	}
	return describe(opts.Plugin, s), nil
}

func describe(plugin string, s *tfproto.ProviderSchema) *SchemaInfo {
	info := &SchemaInfo{
		MessageType:     tfschemadoc.MessageType,
		Plugin:          plugin,
		ProtocolVersion: s.ProtocolVersion,
		Provider:        describeType("provider", "", s.Provider),
		ResourceTypes:   []TypeInfo{},
		DataSources:     []TypeInfo{},
	}
	for _, name := range slices.Sorted(maps.Keys(s.ResourceTypes)) {
		info.ResourceTypes = append(info.ResourceTypes, describeType(name, "", s.ResourceTypes[name]))
	}
	for _, name := range slices.Sorted(maps.Keys(s.DataSources)) {
		info.DataSources = append(info.DataSources, describeType(DataSourcePrefix+name, name, s.DataSources[name]))
	}
	return info
}

func describeType(name, tfName string, s *tfproto.Schema) TypeInfo {
	t := TypeInfo{Name: name, TerraformName: tfName, Attributes: []AttributeInfo{}}
	if s == nil {
		return t
	}
	t.SchemaVersion = s.Version
	if s.Block != nil {
		t.Description = s.Block.Description
	}
	describeBlock(s.Block, "", &t.Attributes)
	return t
}

func describeBlock(b *tfproto.Block, prefix string, out *[]AttributeInfo) {
	if b == nil {
		return
	}
	attrs := append([]*tfproto.Attribute(nil), b.Attributes...)
	sort.Slice(attrs, func(i, j int) bool { return attrs[i].Name < attrs[j].Name })
	for _, a := range attrs {
		describeAttr(a, prefix, out)
	}
	blocks := append([]*tfproto.NestedBlock(nil), b.BlockTypes...)
	sort.Slice(blocks, func(i, j int) bool { return blocks[i].TypeName < blocks[j].TypeName })
	for _, nb := range blocks {
		p := prefix + nb.TypeName
		*out = append(*out, AttributeInfo{
			Path:        p,
			Type:        typeString(nb.ImpliedType()),
			Block:       true,
			Nesting:     nb.Nesting.String(),
			Required:    nb.MinItems > 0,
			Optional:    nb.MinItems == 0,
			Description: nb.Block.Description,
		})
		describeBlock(nb.Block, elemPrefix(p, nb.Nesting), out)
	}
}

func describeAttr(a *tfproto.Attribute, prefix string, out *[]AttributeInfo) {
	p := prefix + a.Name
	info := AttributeInfo{
		Path:        p,
		Type:        typeString(a.ImpliedType()),
		Required:    a.Required,
		Optional:    a.Optional,
		Computed:    a.Computed,
		Sensitive:   a.Sensitive,
		WriteOnly:   a.WriteOnly,
		Deprecated:  a.Deprecated,
		Description: a.Description,
	}
	if a.NestedType != nil {
		info.Nesting = a.NestedType.Nesting.String()
	}
	*out = append(*out, info)
	if a.NestedType == nil {
		return
	}
	nested := append([]*tfproto.Attribute(nil), a.NestedType.Attributes...)
	sort.Slice(nested, func(i, j int) bool { return nested[i].Name < nested[j].Name })
	for _, na := range nested {
		describeAttr(na, elemPrefix(p, a.NestedType.Nesting), out)
	}
}

func elemPrefix(p string, n tfproto.Nesting) string {
	if n == tfproto.NestingSingle || n == tfproto.NestingGroup {
		return p + "."
	}
	return p + ".*."
}

// typeString writes a type the way Terraform configurations spell it.
func typeString(ty cty.Type) string {
	switch {
	case ty == cty.DynamicPseudoType:
		return "dynamic"
	case ty.IsPrimitiveType():
		return ty.FriendlyName()
	case ty.IsListType():
		return "list(" + typeString(ty.ElementType()) + ")"
	case ty.IsSetType():
		return "set(" + typeString(ty.ElementType()) + ")"
	case ty.IsMapType():
		return "map(" + typeString(ty.ElementType()) + ")"
	case ty.IsObjectType():
		atys := ty.AttributeTypes()
		names := slices.Sorted(maps.Keys(atys))
		s := "object({"
		for i, n := range names {
			if i > 0 {
				s += ", "
			}
			s += n + "=" + typeString(atys[n])
		}
		return s + "})"
	case ty.IsTupleType():
		s := "tuple(["
		for i, et := range ty.TupleElementTypes() {
			if i > 0 {
				s += ", "
			}
			s += typeString(et)
		}
		return s + "])"
	}
	return ty.FriendlyName()
}
