package local_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pierhq/pier/adapters/local"
	"github.com/pierhq/pier/providersdk"
)

// TestCapabilitiesMatchServing: what the adapter publishes to the host is
// what it serves, so the host never sends an operation it refuses.
func TestCapabilitiesMatchServing(t *testing.T) {
	t.Parallel()
	p := local.New(local.Options{Dir: t.TempDir()})
	defer p.Close()
	if diff := cmp.Diff(providersdk.Operations(p), local.Capabilities.Operations); diff != "" {
		t.Errorf("published operations (-served +published):\n%s", diff)
	}
}
