package tfproto

import (
	"fmt"
	"sort"

	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// ProviderSchema is everything GetProviderSchema (v6) or GetSchema (v5)
// returned, converted.
type ProviderSchema struct {
	Provider      *Schema
	ResourceTypes map[string]*Schema
	DataSources   map[string]*Schema
	// Functions are the provider-defined functions by name (protocol
	// 5.5 / 6.5); the bridge only describes them.
	Functions       map[string]*Function
	Capabilities    ServerCapabilities
	Diagnostics     Diagnostics
	ProtocolVersion int
}

// Function is the signature of a provider-defined function.
type Function struct {
	Parameters         []*FunctionParameter
	VariadicParameter  *FunctionParameter // nil if none
	Return             cty.Type
	Summary            string
	Description        string
	DescriptionKind    StringKind
	DeprecationMessage string
}

// FunctionParameter is one parameter of a [Function].
type FunctionParameter struct {
	Name            string
	Type            cty.Type
	AllowNullValue  bool
	Description     string
	DescriptionKind StringKind
}

// StringKind is how a description is formatted.
type StringKind int

// The string kinds, numbered as on the wire.
const (
	StringPlain StringKind = iota
	StringMarkdown
)

func (k StringKind) String() string {
	if k == StringMarkdown {
		return "markdown"
	}
	return "plain"
}

// Schema is one resource type's, data source's or the provider's schema.
// Version is the resource schema version stored beside state and passed to
// UpgradeResourceState.
type Schema struct {
	Version int64
	Block   *Block
}

// Block is a configuration block: attributes and nested blocks.
type Block struct {
	Attributes      []*Attribute
	BlockTypes      []*NestedBlock
	Description     string
	DescriptionKind StringKind
	Deprecated      bool
}

// Attribute is one attribute. Exactly one of Type and NestedType is set:
// NestedType exists only in protocol 6.
type Attribute struct {
	Name            string
	Type            cty.Type
	NestedType      *Object
	Description     string
	DescriptionKind StringKind
	Required        bool
	Optional        bool
	Computed        bool
	Sensitive       bool
	Deprecated      bool
	WriteOnly       bool
}

// Nesting says how a nested block or nested attribute object repeats.
type Nesting int

// The nesting modes. NestingGroup applies to blocks only: like single, but
// never null.
const (
	NestingInvalid Nesting = iota
	NestingSingle
	NestingList
	NestingSet
	NestingMap
	NestingGroup
)

func (n Nesting) String() string {
	switch n {
	case NestingSingle:
		return "single"
	case NestingList:
		return "list"
	case NestingSet:
		return "set"
	case NestingMap:
		return "map"
	case NestingGroup:
		return "group"
	}
	return "invalid"
}

// NestedBlock is a block type nested in a block.
type NestedBlock struct {
	TypeName string
	Block    *Block
	Nesting  Nesting
	MinItems int64
	MaxItems int64
}

// Object is the nested attributes of a protocol 6 attribute.
type Object struct {
	Attributes []*Attribute
	Nesting    Nesting
}

// ServerCapabilities are optional provider behaviours the bridge adapts to.
type ServerCapabilities struct {
	PlanDestroy               bool
	GetProviderSchemaOptional bool
}

// ParseType decodes an attribute type from its JSON encoding on the wire.
func ParseType(raw []byte) (cty.Type, error) {
	if len(raw) == 0 {
		return cty.NilType, fmt.Errorf("empty type")
	}
	ty, err := ctyjson.UnmarshalType(raw)
	if err != nil {
		return cty.NilType, fmt.Errorf("parse type %s: %w", raw, err)
	}
	return ty, nil
}

// ImpliedType is the cty object type of values conforming to b: every
// attribute and every nested block becomes an attribute of the object. A nil
// block has the empty object type.
func (b *Block) ImpliedType() cty.Type {
	if b == nil {
		return cty.EmptyObject
	}
	atys := make(map[string]cty.Type, len(b.Attributes)+len(b.BlockTypes))
	for _, a := range b.Attributes {
		atys[a.Name] = a.ImpliedType()
	}
	for _, nb := range b.BlockTypes {
		atys[nb.TypeName] = nb.ImpliedType()
	}
	return cty.Object(atys)
}

// ImpliedType is the attribute's value type: its declared type, or the type
// its nested attributes imply.
func (a *Attribute) ImpliedType() cty.Type {
	if a.NestedType != nil {
		return a.NestedType.ImpliedType()
	}
	if a.Type == cty.NilType {
		return cty.DynamicPseudoType
	}
	return a.Type
}

// ImpliedType of nested attributes: an object, wrapped per nesting mode.
func (o *Object) ImpliedType() cty.Type {
	atys := make(map[string]cty.Type, len(o.Attributes))
	for _, a := range o.Attributes {
		atys[a.Name] = a.ImpliedType()
	}
	return wrap(cty.Object(atys), o.Nesting)
}

// ImpliedType of a nested block: its block's object, wrapped per nesting
// mode. A list or map of blocks that contain a dynamic attribute becomes a
// tuple or object, because a cty collection's elements must share one type
// and dynamic values need not.
func (nb *NestedBlock) ImpliedType() cty.Type {
	return wrap(nb.Block.ImpliedType(), nb.Nesting)
}

func wrap(ety cty.Type, n Nesting) cty.Type {
	switch n {
	case NestingList:
		if ety.HasDynamicTypes() {
			return cty.DynamicPseudoType
		}
		return cty.List(ety)
	case NestingSet:
		return cty.Set(ety)
	case NestingMap:
		if ety.HasDynamicTypes() {
			return cty.DynamicPseudoType
		}
		return cty.Map(ety)
	}
	return ety
}

// Attribute returns the attribute named name, or nil.
func (b *Block) Attribute(name string) *Attribute {
	if b == nil {
		return nil
	}
	for _, a := range b.Attributes {
		if a.Name == name {
			return a
		}
	}
	return nil
}

// BlockType returns the nested block type named name, or nil.
func (b *Block) BlockType(name string) *NestedBlock {
	if b == nil {
		return nil
	}
	for _, nb := range b.BlockTypes {
		if nb.TypeName == name {
			return nb
		}
	}
	return nil
}

// SensitivePaths lists the attribute paths of b marked sensitive, in
// sorted order, written as dotted names with "*" for any element of a
// collection (e.g. "login.password", "rules.*.secret").
func (b *Block) SensitivePaths() []string {
	var out []string
	b.sensitive("", &out)
	sort.Strings(out)
	return out
}

func (b *Block) sensitive(prefix string, out *[]string) {
	if b == nil {
		return
	}
	for _, a := range b.Attributes {
		a.sensitive(prefix, out)
	}
	for _, nb := range b.BlockTypes {
		p := join(prefix, nb.TypeName)
		if nb.Nesting != NestingSingle && nb.Nesting != NestingGroup {
			p += ".*"
		}
		nb.Block.sensitive(p, out)
	}
}

func (a *Attribute) sensitive(prefix string, out *[]string) {
	p := join(prefix, a.Name)
	if a.Sensitive {
		*out = append(*out, p)
		return
	}
	if a.NestedType == nil {
		return
	}
	if a.NestedType.Nesting != NestingSingle {
		p += ".*"
	}
	for _, na := range a.NestedType.Attributes {
		na.sensitive(p, out)
	}
}

func join(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}
