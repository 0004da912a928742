package local

import (
	"maps"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCapabilitiesListServedTypes: the types the adapter publishes (which
// the RPC service lists) are the types it serves.
func TestCapabilitiesListServedTypes(t *testing.T) {
	t.Parallel()
	p := New(Options{Dir: t.TempDir()})
	defer p.Close()
	if diff := cmp.Diff(slices.Sorted(maps.Keys(p.types)), Capabilities.ResourceTypes); diff != "" {
		t.Errorf("published types (-served +published):\n%s", diff)
	}
}
