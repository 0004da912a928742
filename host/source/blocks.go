package source

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
