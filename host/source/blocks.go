package source

import "fmt"

// Import is an import block: adopt the object the provider knows by ID
// into the resource at To, as Terraform's import block does. A block with
// for_each gives one Import per element.
type Import struct {
	To    Address
	ID    string
	Range Range
}

// Removed is a removed block: what becomes of the recorded objects at
// From once no resource of the deployment is there, as Terraform's
// removed block. From without an instance key names every instance.
type Removed struct {
	From Address
	// Provider names the provider declaration that destroys the objects,
	// for records that name none (NixOps4 writes no provider) or a
	// provider no longer declared; empty means the recorded one.
	Provider string
	// Destroy false forgets the records and leaves the objects alone.
	Destroy bool
	Range   Range
}

// Matches reports whether the removed block covers the record at a.
func (r *Removed) Matches(a Address) bool {
	if len(a) != len(r.From) {
		return false
	}
	last := len(a) - 1
	for i := range last {
		if a[i] != r.From[i] {
			return false
		}
	}
	return a[last].Name == r.From[last].Name && (r.From[last].Key == nil || a[last].Key == r.From[last].Key)
}

// CheckResult is the outcome of one assert of a check block, as
// Terraform's check blocks: a failed one is a warning, never an error,
// at plan and after apply.
type CheckResult struct {
	// Check is the block's address, check.NAME.
	Check string
	// Known is false while the condition reads a value known only after
	// apply.
	Known bool
	// Failed is set when the condition is known to be false, or could
	// not be evaluated.
	Failed bool
	// Message is the error message of a failed assert, with no
	// sensitive value in it.
	Message string
	// Range is the assert block.
	Range Range
}

// Moved is a moved block, as Terraform's: the records at From belong at
// To now, and are moved there (a "move" event, no provider called)
// rather than destroyed and created again. From and To both end in a
// resource step or both in a module instance step, when the move takes
// everything under it. A resource step without a key takes every
// instance (to the same keys), or, when To has a key, the one instance
// without a key: resource.a to resource.a[0] is a resource gaining count.
type Moved struct {
	From, To Address
	Range    Range
}

// Rewrite returns where a moves the record at addr, and whether it
// applies to addr at all: a record at From, or under From when From is
// a module instance or a resource without a key (all its instances).
func (m *Moved) Rewrite(addr Address) (Address, bool) {
	n := len(m.From)
	if len(addr) < n {
		return nil, false
	}
	for i := range n - 1 {
		if addr[i] != m.From[i] {
			return nil, false
		}
	}
	last, at := m.From[n-1], addr[n-1]
	if last.Name != at.Name || last.Module != at.Module {
		return nil, false
	}
	keyed, toKeyed := last.Key != nil, m.To[len(m.To)-1].Key != nil
	switch {
	case keyed && last.Key != at.Key:
		return nil, false
	case !keyed && toKeyed && at.Key != nil:
		// resource.a to resource.b[0] moves a's one instance (a
		// resource gaining count), not a[1] onto b[0].
		return nil, false
	case !last.Module && len(addr) != n:
		return nil, false
	}
	out := make(Address, 0, len(m.To)+len(addr)-n)
	out = append(out, m.To...)
	if !keyed && !toKeyed {
		// resource.a to resource.b: a[0] goes to b[0].
		out[len(out)-1].Key = at.Key
	}
	return append(out, addr[n:]...), true
}

// ConditionKind says when a resource's condition is checked.
type ConditionKind uint8

//go:generate go tool stringer -type ConditionKind -linecomment

// The kinds of condition, as Terraform's lifecycle blocks have them.
const (
	ConditionInvalid ConditionKind = iota // invalid
	// Precondition is checked before the resource is created or updated.
	Precondition // precondition
	// Postcondition is checked after it is, against its outputs (self).
	Postcondition // postcondition
)

// MarshalText spells the kind by name, in saved plans.
func (k ConditionKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText reads a kind MarshalText wrote.
func (k *ConditionKind) UnmarshalText(b []byte) error {
	for _, c := range []ConditionKind{Precondition, Postcondition} {
		if c.String() == string(b) {
			*k = c
			return nil
		}
	}
	return fmt.Errorf("unknown condition kind %q", b)
}

// ConditionResult is one evaluation of a resource instance's precondition
// or postcondition block. The source evaluates them with the instance; the
// engine decides what a failure stops: a plan, when the result is known
// while planning, or else the resource when it runs.
type ConditionResult struct {
	Kind ConditionKind `json:"kind"`
	// Known is false while the condition reads a value known only after
	// apply (for a postcondition, its resource's own outputs).
	Known bool `json:"known,omitempty"`
	// Failed is set when the condition is known to be false, or could
	// not be evaluated.
	Failed bool `json:"failed,omitempty"`
	// Summary, Message and Detail say what failed, for the user: the
	// summary ("Resource precondition failed"), the error message
	// alone, and the message with where the block is. None holds a
	// sensitive value.
	Summary string `json:"summary,omitempty"`
	Message string `json:"message,omitempty"`
	Detail  string `json:"detail,omitempty"`
	// Range is the condition expression; Block is the block.
	Range Range `json:"range"`
	Block Range `json:"block"`
}
