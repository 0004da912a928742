// Package tfschemadoc is the document `pier tf schema --json` writes: a
// Terraform provider's schema as pier shows it. The Terraform bridge
// (adapters/terraform) writes it and host/tfschema reads it back from a
// `pier tf schema` subprocess, and neither may import the other, so the
// wire type lives here, below both. It imports nothing from pier.
package tfschemadoc

// MessageType is the document's message_type.
const MessageType = "tf_schema"

// Document describes a Terraform provider's schema for people and tools.
type Document struct {
	// MessageType is [MessageType].
	MessageType     string `json:"message_type"`
	Plugin          string `json:"plugin"`
	ProtocolVersion int    `json:"protocol_version"`
	Provider        Type   `json:"provider"`
	ResourceTypes   []Type `json:"resource_types"`
	DataSources     []Type `json:"data_sources"`
}

// Type describes one resource type, data source or the provider
// configuration. Name is the v0 type to use (data sources carry the
// bridge's "data-source-" prefix).
type Type struct {
	Name          string      `json:"name"`
	TerraformName string      `json:"terraform_name,omitempty"`
	SchemaVersion int64       `json:"schema_version"`
	Description   string      `json:"description,omitempty"`
	Attributes    []Attribute `json:"attributes"`
}

// Attribute describes one attribute or nested block, at a dotted path
// ("rule.*.port" for any element of a nested collection).
//
// Whether changing an attribute forces replacement is not part of a
// Terraform schema: providers decide it while planning, so it is not
// here.
type Attribute struct {
	Path        string `json:"path"`
	Type        string `json:"type"`
	Block       bool   `json:"block,omitempty"`
	Nesting     string `json:"nesting,omitempty"`
	Required    bool   `json:"required,omitempty"`
	Optional    bool   `json:"optional,omitempty"`
	Computed    bool   `json:"computed,omitempty"`
	Sensitive   bool   `json:"sensitive,omitempty"`
	WriteOnly   bool   `json:"write_only,omitempty"`
	Deprecated  bool   `json:"deprecated,omitempty"`
	Description string `json:"description,omitempty"`
}
