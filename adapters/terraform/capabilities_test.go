package terraform_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pierhq/pier/adapters/terraform"
	"github.com/pierhq/pier/providersdk"
)

// TestCapabilitiesMatchServing: what the bridge publishes to the host is
// what it serves, so the host never sends an operation it refuses and
// never leaves one unused.
func TestCapabilitiesMatchServing(t *testing.T) {
	t.Parallel()
	if diff := cmp.Diff(providersdk.Operations(&terraform.Bridge{}), terraform.Capabilities.Operations); diff != "" {
		t.Errorf("published operations (-served +published):\n%s", diff)
	}
	if !terraform.Capabilities.Bridge || len(terraform.Capabilities.ResourceTypes) != 0 {
		t.Errorf("the bridge serves its plugin's types, and a deployment names the plugin: %+v", terraform.Capabilities)
	}
}
