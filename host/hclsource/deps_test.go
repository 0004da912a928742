package hclsource

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pierhq/pier/host/source"
)

// TestComputedKeyDependsOnlyOnWhatItReads checks that an instance
// referring to another resource with a computed key (m[count.index])
// depends on the instance it read, not on every instance of m: recorded
// dependencies must not grow with the square of the count.
func TestComputedKeyDependsOnlyOnWhatItReads(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	hcl := `
provider "local" { builtin = "local" }
resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "state.json" }
}
resource "m" {
  count    = 3
  provider = provider.local
  type     = "memo"
  state    = resource.state
  inputs   = { initialize_with = count.index }
}
resource "x" {
  count    = 3
  provider = provider.local
  type     = "memo"
  state    = resource.state
  inputs   = { initialize_with = resource.m[count.index].outputs.value }
}
resource "all" {
  provider = provider.local
  type     = "memo"
  state    = resource.state
  inputs   = { initialize_with = length(resource.m) }
}
`
	if err := os.WriteFile(filepath.Join(dir, "main.pier.hcl"), []byte(hcl), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := Load(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	deps := func(snap *source.Snapshot) map[string][]string {
		out := map[string][]string{}
		add := func(r *source.Resource) {
			var ds []string
			for _, a := range r.DependsOn {
				ds = append(ds, a.String())
			}
			out[r.Address.String()] = ds
		}
		for _, r := range snap.Ready {
			add(r)
		}
		for _, b := range snap.Blocked {
			if b.Resource != nil {
				add(b.Resource)
			}
		}
		return out
	}
	want := map[string][]string{
		"state": nil,
		"m[0]":  {"state"}, "m[1]": {"state"}, "m[2]": {"state"},
		"x[0]": {"m[0]", "state"}, "x[1]": {"m[1]", "state"}, "x[2]": {"m[2]", "state"},
		"all": {"m[0]", "m[1]", "m[2]", "state"},
	}
	// Blocked (outputs unknown) and ready (outputs known) alike.
	first, err := d.Resolve(t.Context(), source.Outputs{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, deps(first)); diff != "" {
		t.Errorf("first round (-want +got):\n%s", diff)
	}
	known := source.Outputs{}
	for _, k := range []string{"m[0]", "m[1]", "m[2]"} {
		known[k] = map[string]any{"value": k}
	}
	second, err := d.Resolve(t.Context(), known)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, deps(second)); diff != "" {
		t.Errorf("second round (-want +got):\n%s", diff)
	}
}
