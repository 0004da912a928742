// Package source defines what the engine asks of a deployment source: given
// the outputs known so far, which resources are ready to run and which are
// blocked on which outputs.
//
// The HCL loader (host/hclsource) answers statically; the Nix front end
// (host/nixsource) answers in rounds of `nix eval`. The engine does not care
// which one it talks to. This package holds only the vocabulary: it imports
// nothing from pier but schema.
package source

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/pierhq/pier/schema"
)

// Source is a deployment description that the engine resolves in rounds.
//
// The engine calls Resolve from one goroutine at a time, first with no known
// outputs and then each time new outputs are known. A Source must not keep
// the Outputs map after Resolve returns.
type Source interface {
	Resolve(ctx context.Context, known Outputs) (*Snapshot, error)
}

// Outputs maps a resource address (see [Address.String]) to the output
// properties that resource produced in this run or recorded in state.
type Outputs map[string]map[string]any

// Snapshot is one answer of a [Source].
type Snapshot struct {
	// Ready resources have fully known inputs.
	Ready []*Resource
	// Blocked resources wait on outputs not yet known.
	Blocked []*Blocked
	// Providers declared by the deployment, by name. Resources refer to them
	// by [Resource.Provider].
	Providers map[string]*Provider
	// Outputs are the deployment's own output values that are known so far.
	Outputs []*Output
	// PendingOutputs name the deployment's outputs whose values are not
	// known yet (they read outputs of resources still to change), so that
	// a plan can show them as known after apply; sources that cannot tell
	// leave it empty.
	PendingOutputs []string
	// Evaluation says what producing this snapshot cost, for sources that
	// evaluate in rounds (Nix); nil for static sources.
	Evaluation *Evaluation
	// Imports and Removed are the deployment's import and removed blocks
	// (see blocks.go); sources without them leave them empty.
	Imports []*Import
	Removed []*Removed
	// Moved are the deployment's moved blocks, in declaration order.
	Moved []*Moved
	// Checks are the results of the deployment's check blocks' asserts
	// in this evaluation (see blocks.go).
	Checks []*CheckResult
}

// Evaluation describes one evaluation round of a source.
type Evaluation struct {
	// Round counts Resolve calls that evaluated, from 1.
	Round    int
	Duration time.Duration
}

// Complete reports whether the snapshot names every resource the
// deployment will ever have: nothing is blocked structurally, so resources
// absent from it can be destroyed.
func (s *Snapshot) Complete() bool {
	for _, b := range s.Blocked {
		if b.Structural {
			return false
		}
	}
	return true
}

// Resource is a resource whose inputs are known (Ready) or partly known (as
// [Blocked.Resource]).
type Resource struct {
	Address Address
	// Provider is the name of the provider declaration in
	// [Snapshot.Providers].
	Provider string
	Type     string
	// Inputs are JSON values (map[string]any, []any, string, float64,
	// json.Number, bool, nil). In a blocked resource, values not yet known
	// are [Unknown].
	Inputs map[string]any
	// State is the address of the state handler resource; nil means the
	// resource is stateless.
	State *Address
	// DependsOn lists the resources this one must follow, from references
	// and explicit depends_on.
	DependsOn []Address
	// Range is where the resource is declared.
	Range Range
	// SensitiveInputs are the dotted paths of input values that came from
	// sensitive values (e.g. a sensitive variable), which pier must never
	// show; "*" stands for every element of a list or set.
	SensitiveInputs []string
	// Lifecycle are the resource's controls over how it changes; nil
	// when it sets none.
	Lifecycle *Lifecycle
	// Refresh makes every plan read the resource's recorded object, as
	// --refresh=ADDR would (HCL's refresh = true).
	Refresh bool
	// NoRefresh is a block's refresh = false: its provider's
	// refresh = true does not read it.
	NoRefresh bool
	// Conditions are the results of the instance's precondition and
	// postcondition blocks in this evaluation, in declaration order;
	// nil when it has none. See [ConditionResult].
	Conditions []*ConditionResult
	// ProviderPlan is what the provider's preview of this resource's
	// create or update returned as its plan ([schema.PreviewResourceResponse]),
	// handed back on that create or update: set by the engine's preview,
	// never by a source. Opaque provider data that may hold secrets: it is
	// saved in a plan file (0600) and never shown or logged.
	ProviderPlan string `json:"-"`
}

// Lifecycle are a resource's controls over how a plan changes it, as
// Terraform's lifecycle block has them.
type Lifecycle struct {
	// CreateBeforeDestroy makes a replacement create the new object
	// first; the old one is then destroyed as a deposed object.
	CreateBeforeDestroy bool `json:"create_before_destroy,omitempty"`
	// PreventDestroy makes a plan that would destroy or replace the
	// resource fail.
	PreventDestroy bool `json:"prevent_destroy,omitempty"`
	// IgnoreChanges are the dotted paths of inputs ("tags.owner") whose
	// changes are not planned: the recorded values are kept. "*" means
	// every input.
	IgnoreChanges []string `json:"ignore_changes,omitempty"`
	// Range is where prevent_destroy is set, or else where the lifecycle
	// is declared.
	Range Range `json:"-"`
}

// Stateful reports whether the resource has a state handler.
func (r *Resource) Stateful() bool { return r.State != nil }

// Blocked is a member of the deployment that cannot be resolved yet.
type Blocked struct {
	Address Address
	// WaitsOn names the resources whose outputs are needed.
	WaitsOn []Address
	// Structural means the member is a composite whose member set depends on
	// outputs not yet known, so the resources below it are not known either.
	Structural bool
	// Resource is the partly known resource, where the source can tell; nil
	// otherwise. Its unknown inputs are [Unknown].
	Resource *Resource
}

// Provider is a provider declaration. Exactly one of Executable, Builtin or
// Terraform is set.
type Provider struct {
	Name       string
	Executable string
	Args       []string
	Env        map[string]string
	Builtin    string
	Terraform  string
	// Source and Version are set when a Terraform provider was declared by
	// source address (HOST/NAMESPACE/TYPE, canonical) and version (or
	// constraints) instead of a path; Terraform is then the executable found for them
	// in Terraform's plugin directories, inside its package directory.
	Source  string
	Version string
	// Constraints are the version constraints the declaration gave
	// instead of an exact version ("~> 0.14"), which chose Version; ""
	// when it gave the version itself.
	Constraints string
	// Config is the Terraform provider configuration. It never travels in
	// resource inputs or into state.
	Config map[string]any
	// Operations are the optional operations the provider declared
	// ("destroy", …).
	Operations []string
	// Parallelism bounds how many requests run at once against this
	// provider; 0 means the engine's default.
	Parallelism int
	// Refresh makes every plan read the recorded objects of this
	// provider's resources, as Terraform refreshes, except those whose
	// block sets refresh = false.
	Refresh bool
	Range   Range
}

// Output is a deployment output value.
type Output struct {
	Name      string
	Value     any
	Sensitive bool
	Range     Range
}

// unknownValue is the type of [Unknown].
type unknownValue struct{}

// MarshalJSON renders an unknown value for plans.
func (unknownValue) MarshalJSON() ([]byte, error) { return []byte(`"(known after apply)"`), nil }

// Unknown stands for an input value that is known only after apply.
var Unknown any = unknownValue{}

// IsUnknown reports whether v is [Unknown].
func IsUnknown(v any) bool { _, ok := v.(unknownValue); return ok }

// Range is a position in a configuration file. The zero Range means
// "unknown position".
type Range struct {
	Filename string
	Line     int
	Column   int
}

// String renders the range as file:line:col.
func (r Range) String() string {
	if r.Filename == "" {
		return ""
	}
	return fmt.Sprintf("%s:%d:%d", r.Filename, r.Line, r.Column)
}

// Step is one member name in an [Address], with an optional instance key
// from count (an int) or for_each (a string).
type Step struct {
	Name string
	// Key is nil, an int (count.index) or a string (each.key).
	Key any
	// Module marks an instance of a module block: the step is spelt
	// module.NAME[KEY], in addresses and as its composite's name in
	// state, so it cannot be taken for a deployment block of the same
	// name.
	Module bool
}

// Address is a dotted member path, e.g. web.db or web.db["a"]. A member
// name that is not plain (see [PlainName]) is quoted, as Nix quotes an
// attribute name: web."file.txt". A module instance is a step of its
// own, module.site["blog"].page, so "module" followed by a dot always
// starts one.
type Address []Step

// ModulePrefix starts a module step in an address.
const ModulePrefix = "module."

// PlainName reports whether a member name can be written in an address as
// it is: not empty, and without a dot, bracket, quote, backslash, space or
// unprintable character. NixOps4 allows any attribute name as a member
// name; the others are quoted.
func PlainName(name string) bool {
	if name == "" {
		return false
	}
	for _, r := range name {
		if strings.ContainsRune(`.[]"\`, r) || unicode.IsSpace(r) || !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

// ParseAddress parses the form produced by [Address.String].
func ParseAddress(s string) (Address, error) {
	var a Address
	rest := s
	for rest != "" {
		var step Step
		if after, ok := strings.CutPrefix(rest, ModulePrefix); ok && after != "" {
			step.Module = true
			rest = after
		}
		if strings.HasPrefix(rest, `"`) {
			q, err := strconv.QuotedPrefix(rest)
			if err != nil {
				return nil, fmt.Errorf("parse address %q: unclosed or bad quoted name", s)
			}
			step.Name, _ = strconv.Unquote(q)
			rest = rest[len(q):]
		} else {
			name := rest
			if i := strings.IndexAny(rest, ".["); i >= 0 {
				name = rest[:i]
			}
			if name == "" {
				return nil, fmt.Errorf("parse address %q: empty member name", s)
			}
			step.Name = name
			rest = rest[len(name):]
		}
		if strings.HasPrefix(rest, "[") {
			key, n, err := parseKey(rest[1:])
			if err != nil {
				return nil, fmt.Errorf("parse address %q: %w", s, err)
			}
			step.Key = key
			rest = rest[1+n:]
		}
		a = append(a, step)
		if strings.HasPrefix(rest, ".") {
			rest = rest[1:]
			if rest == "" {
				return nil, fmt.Errorf("parse address %q: trailing dot", s)
			}
		} else if rest != "" {
			return nil, fmt.Errorf("parse address %q: unexpected %q", s, rest)
		}
	}
	if len(a) == 0 {
		return nil, fmt.Errorf("parse address: empty")
	}
	return a, nil
}

// parseKey parses an instance key and its closing bracket at the start
// of s, and says how many bytes it took.
func parseKey(s string) (any, int, error) {
	if strings.HasPrefix(s, `"`) {
		q, err := strconv.QuotedPrefix(s)
		if err != nil || !strings.HasPrefix(s[len(q):], "]") {
			return nil, 0, fmt.Errorf("bad key %s", s)
		}
		k, _ := strconv.Unquote(q)
		return k, len(q) + 1, nil
	}
	end := strings.Index(s, "]")
	if end < 0 {
		return nil, 0, fmt.Errorf("unclosed [")
	}
	n, err := strconv.Atoi(s[:end])
	if err != nil {
		return nil, 0, fmt.Errorf("bad index %s", s[:end])
	}
	return n, end + 1, nil
}

// String renders the address as NAME.NAME[0].NAME["key"]."other name".
// Plans spell every resource's address several times, so this avoids
// fmt and spells a plain top-level name without copying it.
func (a Address) String() string {
	if len(a) == 1 && a[0].Key == nil && !a[0].Module && PlainName(a[0].Name) {
		return a[0].Name
	}
	b := make([]byte, 0, 32)
	for i, s := range a {
		if i > 0 {
			b = append(b, '.')
		}
		b = s.appendName(b)
	}
	return string(b)
}

// appendName appends the step as an address spells it.
func (s Step) appendName(b []byte) []byte {
	if s.Module {
		b = append(b, ModulePrefix...)
	}
	if PlainName(s.Name) {
		b = append(b, s.Name...)
	} else {
		b = strconv.AppendQuote(b, s.Name)
	}
	return s.appendKey(b)
}

func (s Step) appendKey(b []byte) []byte {
	switch k := s.Key.(type) {
	case int:
		b = append(b, '[')
		b = strconv.AppendInt(b, int64(k), 10)
		b = append(b, ']')
	case string:
		b = append(b, '[')
		b = strconv.AppendQuote(b, k)
		b = append(b, ']')
	}
	return b
}

// StateKey is the path of the resource's entry in a NixOps4 state document:
// resources.NAME at the top, deployments.C.resources.NAME below composite C.
// A name is kept as it is, unquoted, as NixOps4 keys it; an instance key
// becomes part of the name, e.g. NAME[0]. A module instance is a nested
// deployment named as its step is spelt: deployments.module.site["blog"]
// (one key), so a reader of state alone tells it from a deployment block.
func (a Address) StateKey() []string {
	var path []string
	for _, s := range a[:len(a)-1] {
		path = append(path, schema.DeploymentsKey, s.stateName())
	}
	return append(path, schema.ResourcesKey, a[len(a)-1].stateName())
}

// stateName is the step's member name in a state document.
func (s Step) stateName() string {
	if s.Module {
		return string(s.appendKey([]byte(ModulePrefix + s.Name)))
	}
	if s.Key == nil {
		return s.Name
	}
	return string(s.appendKey([]byte(s.Name)))
}

// HasPrefix reports whether p is a (non-strict) prefix of a.
func (a Address) HasPrefix(p Address) bool {
	if len(p) > len(a) {
		return false
	}
	for i := range p {
		if p[i] != a[i] {
			return false
		}
	}
	return true
}
