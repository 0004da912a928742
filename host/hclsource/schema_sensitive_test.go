package hclsource

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pierhq/pier/host/source"
)

// schemaSensitiveSrc has a Terraform resource a, and b reading a's input
// that the provider's schema marks sensitive.
const schemaSensitiveSrc = `provider "local" {
  builtin = "local"
}
provider "tf" {
  terraform = "/nonexistent/terraform-provider-fixture"
}
resource "state" {
  provider = provider.local
  type     = "state_file"
}
resource "a" {
  provider = provider.tf
  type     = "fixture_file"
  state    = resource.state
  inputs   = { path = "p", sensitive_content = "SEKRET-content" }
}
resource "b" {
  provider = provider.local
  type     = "exec"
  inputs   = { x = resource.a.inputs.sensitive_content, p = resource.a.inputs.path }
}
`

// TestSchemaSensitive: before a Terraform resource has outputs (a create
// or an update), the sensitive paths SetSchemaSensitive gives mark what
// its readers see; once its outputs are known, those outputs' recorded
// paths are what counts, and they reach readers of its inputs too.
func TestSchemaSensitive(t *testing.T) {
	t.Parallel()
	sensitiveOf := func(t *testing.T, s *source.Snapshot) []string {
		t.Helper()
		i := slices.IndexFunc(s.Ready, func(r *source.Resource) bool { return r.Address.String() == "b" })
		if i < 0 {
			t.Fatalf("b is not ready: %+v", view(t, s))
		}
		return s.Ready[i].SensitiveInputs
	}
	t.Run("schema paths for a create", func(t *testing.T) {
		t.Parallel()
		d := mustLoad(t, writeDir(t, map[string]string{"main.pier.hcl": schemaSensitiveSrc}), Options{})
		if got := sensitiveOf(t, mustResolve(t, d, nil)); got != nil {
			t.Fatalf("before the schema is known, b's sensitive inputs = %v, want none", got)
		}
		if d.SetSchemaSensitive("tf", "other_type", []string{"sensitive_content"}) {
			t.Error("SetSchemaSensitive of a type the deployment does not use reports a change")
		}
		if !d.SetSchemaSensitive("tf", "fixture_file", []string{"sensitive_content", "rules.*.key"}) {
			t.Fatal("SetSchemaSensitive reports no change")
		}
		if d.SetSchemaSensitive("tf", "fixture_file", []string{"sensitive_content", "rules.*.key"}) {
			t.Error("setting the same paths again reports a change")
		}
		if diff := cmp.Diff([]string{"x"}, sensitiveOf(t, mustResolve(t, d, nil))); diff != "" {
			t.Errorf("sensitive inputs of b (-want +got):\n%s", diff)
		}
	})
	t.Run("recorded paths once outputs are known", func(t *testing.T) {
		t.Parallel()
		d := mustLoad(t, writeDir(t, map[string]string{"main.pier.hcl": schemaSensitiveSrc}), Options{})
		mustResolve(t, d, nil)
		// Unchanged, as the engine's settle finds it: the recorded
		// outputs arrive in a later round, and b reads only inputs.
		out := tfOutputs()
		out["__tf"].(map[string]any)["sensitive_paths"] = []any{"path"}
		if diff := cmp.Diff([]string{"p"}, sensitiveOf(t, mustResolve(t, d, source.Outputs{"a": out}))); diff != "" {
			t.Errorf("sensitive inputs of b (-want +got):\n%s", diff)
		}
	})
}
