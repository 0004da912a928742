package plan

import (
	"github.com/pierhq/pier/host/engine"
	"github.com/pierhq/pier/host/execgraph"
	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/host/statedoc"
)

// Change is the plan for one resource.
type Change struct {
	Address source.Address
	Action  execgraph.Action
	// Resource is the desired resource: nil for a destroy. For a pending
	// change its unknown inputs are [source.Unknown].
	Resource *source.Resource
	// Prior is the recorded entry, for update, no-op and destroy.
	Prior *statedoc.Recorded
	// Pending means the inputs are known only after WaitsOn are applied.
	Pending bool
	WaitsOn []string
	// StateHandler marks the resources that hold state: they run before
	// planning, to read it, and are not counted as changes.
	StateHandler bool
	// Structural marks a composite whose members are known only after
	// WaitsOn are applied; it is not a resource and is not counted.
	Structural bool
	// Note explains something the user should know (e.g. "stateless, runs
	// every apply", that the provider cannot destroy, or which attributes
	// force a replacement).
	Note string
	// Deposed is set on the destroy of a deposed object: its key. Prior is
	// then the deposed object.
	Deposed string
	// OfReplace marks the destroy of the object a create-before-destroy
	// replacement deposes: the second half of that replace, not counted
	// on its own.
	OfReplace bool
	// CreateBeforeDestroy marks a replace that creates the new object
	// first and deposes the old one under DeposeKey; the change with
	// Deposed == DeposeKey destroys it.
	CreateBeforeDestroy bool
	DeposeKey           string
	// SensitiveInputs are input paths whose values the plan must not show,
	// in the Terraform bridge's dotted form ("metadata.api_key", "*" for
	// any element): from the provider's schema for a Terraform resource
	// that changes (see tfcheck.go). Recorded sensitive paths of the prior
	// object apply too; see [Change.RedactDiffs].
	SensitiveInputs []string
	// Planned are the outputs the provider plans for a create or update,
	// from its preview (see preview.go): [source.Unknown] where known only
	// after apply, nil when it was not asked or could not tell.
	Planned map[string]any
	// Refreshed is, for an [ActionRefresh], what the read found.
	Refreshed *Drift
	// Import is set when an import block adopts the object first: the
	// whole change for an [ActionImport], and before the update or
	// replace otherwise. Prior is then the object as imported.
	Import *ImportSpec
	// Move is set when a moved block moves the record here first: Prior
	// is then the record at its new address.
	Move *MoveSpec
}

// Addr names the change: the address, and for a deposed object its key.
func (c *Change) Addr() string {
	if c.Deposed != "" {
		return c.Address.String() + engine.DeposedSuffix(c.Deposed)
	}
	return c.Address.String()
}

// Provider is the name of the provider that carries out the change.
func (c *Change) Provider() string {
	if c.Resource != nil {
		return c.Resource.Provider
	}
	if c.Prior != nil {
		return c.Prior.Entry.Provider
	}
	return ""
}

// Stateful reports whether the change is recorded in state.
func (c *Change) Stateful() bool {
	if c.Resource != nil {
		return c.Resource.Stateful()
	}
	return c.Prior != nil
}
