package hclsource

import (
	"fmt"
	"slices"
	"testing"

	"github.com/pierhq/pier/host/source"

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

// TestWatchHandlers reports each listed handler once it is ready, as the
// very resource the snapshot holds, and nothing else: not a handler that
// waits on outputs, not an unlisted state_file, and nothing once the
// watch is stopped.
func TestWatchHandlers(t *testing.T) {
	t.Parallel()
	const head = `
provider "local" { builtin = "local" }
`
	const user = `
resource "m" {
  count    = 3
  provider = provider.local
  type     = "memo"
  state    = resource.%s
  inputs   = { initialize_with = "v${count.index}" }
}
`
	tests := map[string]struct {
		body string
		want []string
	}{
		"one handler": {head + `
resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "s.json" }
}
` + fmt.Sprintf(user, "state"), []string{"state"}},
		"an instance of a counted handler, not its sibling": {head + `
resource "st" {
  count    = 2
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "s${count.index}.json" }
}
` + fmt.Sprintf(user, "st[1]"), []string{"st[1]"}},
		"an unlisted state_file is not reported": {head + `
resource "a" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "a.json" }
}
resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "s.json" }
}
` + fmt.Sprintf(user, "state"), []string{"state"}},
		"a handler waiting on outputs is not ready": {head + `
resource "name" {
  provider = provider.local
  type     = "memo"
  inputs   = { initialize_with = "s.json" }
}
resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = resource.name.outputs.value }
}
` + fmt.Sprintf(user, "state"), nil},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			d := mustLoad(t, writeDir(t, map[string]string{"main.pier.hcl": tc.body}), Options{})
			var got []*source.Resource
			d.WatchHandlers(func(r *source.Resource) { got = append(got, r) })
			snap := mustResolve(t, d, source.Outputs{})
			var addrs []string
			for _, r := range got {
				addrs = append(addrs, r.Address.String())
				if !slices.Contains(snap.Ready, r) {
					t.Errorf("reported %s is not the snapshot's resource", r.Address)
				}
			}
			if diff := cmp.Diff(tc.want, addrs); diff != "" {
				t.Errorf("reported handlers (-want +got):\n%s", diff)
			}
			d.WatchHandlers(nil)
			got = nil
			for _, r := range d.topo {
				d.queueBlock(r)
			}
			mustResolve(t, d, source.Outputs{})
			if len(got) != 0 {
				t.Errorf("after WatchHandlers(nil), reported %d handlers", len(got))
			}
		})
	}
}
