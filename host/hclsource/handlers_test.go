package hclsource

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestStateHandlers lists, before anything resolves, each resource named
// as a state handler once, with its provider: in the root, in a
// deployment block, and an instance of a counted resource.
func TestStateHandlers(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		body string
		want []string // address provider
	}{
		"none": {`
provider "local" { builtin = "local" }
resource "m" {
  provider = provider.local
  type     = "memo"
  inputs   = { initialize_with = "x" }
}
`, nil},
		"one handler, two users": {`
provider "local" { builtin = "local" }
provider "pg" { builtin = "postgres" }
resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "s.json" }
}
resource "a" {
  provider = provider.local
  type     = "memo"
  state    = resource.state
  inputs   = { initialize_with = "x" }
}
resource "b" {
  count    = 2
  provider = provider.local
  type     = "memo"
  state    = resource.state
  inputs   = { initialize_with = "x" }
}
`, []string{"state local"}},
		"an instance, and one in a deployment block": {`
provider "local" { builtin = "local" }
provider "pg" { builtin = "postgres" }
resource "db" {
  count    = 2
  provider = provider.pg
  type     = "pg_state"
  inputs   = { table = "t${count.index}" }
}
resource "a" {
  provider = provider.local
  type     = "memo"
  state    = resource.db[1]
  inputs   = { initialize_with = "x" }
}
deployment "web" {
  resource "state" {
    provider = provider.local
    type     = "state_file"
    inputs   = { name = "web.json" }
  }
  resource "app" {
    provider = provider.local
    type     = "memo"
    state    = resource.state
    inputs   = { initialize_with = "x" }
  }
}
`, []string{"db[1] pg", "web.state local"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			d := mustLoad(t, writeDir(t, map[string]string{"main.pier.hcl": tc.body}), Options{})
			var got []string
			for _, h := range d.StateHandlers() {
				got = append(got, h.Address+" "+h.Provider.Name)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("StateHandlers (-want +got):\n%s", diff)
			}
		})
	}
}
