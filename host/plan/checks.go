package plan

import (
	"fmt"

	"github.com/pierhq/pier/host/source"
)

// CheckWarnings are the warnings of the check blocks' asserts that failed
// in snap, as Terraform's check blocks: they warn, at plan and after
// apply, and never fail either. An assert not known yet says nothing.
func CheckWarnings(snap *source.Snapshot) []string {
	if snap == nil {
		return nil
	}
	var out []string
	for _, c := range snap.Checks {
		if c.Known && c.Failed {
			out = append(out, fmt.Sprintf("Check block assertion failed: %s (assert at %s): %s", c.Check, c.Range, c.Message))
		}
	}
	return out
}
