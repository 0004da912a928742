package schema

import (
	"maps"
	"slices"
)

// Capabilities is what a provider shipped inside pier (a builtin adapter)
// publishes about itself, so that the host needs no knowledge of it: the
// optional operations it implements, which of its types are state
// providers, and which need a state handler. A deployment declares the
// operations of other providers itself.
type Capabilities struct {
	// ResourceTypes are the types the adapter serves; empty for a
	// bridge, whose types are its plugin's.
	ResourceTypes []string `json:"resourceTypes,omitempty"`
	// Bridge says a deployment does not name the adapter (builtin =
	// NAME) but the plugin it bridges: the Terraform bridge runs for
	// terraform = PLUGIN.
	Bridge bool `json:"bridge,omitempty"`
	// Env names the variables of pier's environment the adapter
	// inherits (postgres: the libpq settings). A name holding PASSWORD
	// is never passed: a child's environment is readable in /proc.
	Env []string `json:"env,omitempty"`
	// Operations are the optional operations the adapter implements.
	Operations []Operation `json:"operations,omitempty"`
	// StateTypes are the types whose resources are state providers
	// (stateResourceReadRequest, stateResourceEvent).
	StateTypes []string `json:"stateTypes,omitempty"`
	// StatefulTypes are the types that only make sense with a state
	// handler: their whole point is the recorded output.
	StatefulTypes []string `json:"statefulTypes,omitempty"`
	// StatefulWhen maps a type to a boolean input that, when true, makes
	// a resource of that type need a state handler (exec: once).
	StatefulWhen map[string]string `json:"statefulWhen,omitempty"`
	// SensitiveDefaults maps a type to inputs the host sets, when the
	// deployment leaves them unset, on a resource whose input When holds a
	// sensitive value (local file: mode "0600" when contents is
	// sensitive). The protocol does not carry sensitivity, so the adapter
	// cannot tell; the host can.
	SensitiveDefaults map[string]SensitiveDefault `json:"sensitiveDefaults,omitempty"`
	// NoSensitive maps a type to inputs that must not hold a sensitive
	// value, each with what to use instead (local exec: args and
	// executable become the program's command line, which every user of
	// the machine can read; a secret goes on stdin). The host refuses
	// such a resource at plan, as it refuses a provider's own args.
	NoSensitive map[string]map[string]string `json:"noSensitive,omitempty"`
}

// SensitiveDefault is one type's entry in
// [Capabilities.SensitiveDefaults].
type SensitiveDefault struct {
	// When names the input whose sensitivity sets the defaults.
	When string `json:"when"`
	// Set are the inputs set, with their values.
	Set map[string]any `json:"set"`
}

// Adapters are the adapters a pier binary ships, by the NAME of `pier
// adapter NAME`, each as it describes itself.
type Adapters = map[string]Capabilities

// BuiltinNames are the names a deployment may give as builtin = NAME:
// every adapter but the bridges, sorted.
func BuiltinNames(a Adapters) []string {
	var names []string
	for _, name := range slices.Sorted(maps.Keys(a)) {
		if !a[name].Bridge {
			names = append(names, name)
		}
	}
	return names
}

// Builtin returns the adapter a deployment names with builtin = name.
func Builtin(a Adapters, name string) (Capabilities, bool) {
	c, ok := a[name]
	if !ok || c.Bridge {
		return Capabilities{}, false
	}
	return c, true
}

// IsStateType reports whether typ is one of the adapter's state providers.
func (c Capabilities) IsStateType(typ string) bool { return contains(c.StateTypes, typ) }

// NeedsState reports whether a resource of typ needs a state handler, and
// if it does only because of an input, which one (e.g. "once"). inputTrue
// tells whether a boolean input is set to true.
func (c Capabilities) NeedsState(typ string, inputTrue func(name string) bool) (bool, string) {
	if contains(c.StatefulTypes, typ) {
		return true, ""
	}
	if in, ok := c.StatefulWhen[typ]; ok && inputTrue(in) {
		return true, in
	}
	return false, ""
}

func contains(list []string, s string) bool { return slices.Contains(list, s) }
