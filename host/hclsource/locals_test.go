package hclsource

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pierhq/pier/host/source"
)

const localsHeader = `
provider "local" { builtin = "local" }
resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "state.json" }
}
`

func TestLocals(t *testing.T) {
	t.Parallel()
	dir := writeDir(t, map[string]string{"main.pier.hcl": localsHeader + `
variable "env" { default = "prod" }
locals {
  prefix = "app-${var.env}"
  names  = ["a", "b"]
  db_url = "db://${resource.db.outputs.value}"
}
locals {
  full = "${local.prefix}-web"
}
resource "db" {
  provider = provider.local
  type     = "memo"
  state    = resource.state
  inputs   = { initialize_with = local.prefix }
}
resource "web" {
  provider = provider.local
  type     = "memo"
  state    = resource.state
  count    = length(local.names)
  inputs   = { initialize_with = "${local.full}-${local.names[count.index]} ${local.db_url}" }
}
deployment "inner" {
  resource "db" {
    provider = provider.local
    type     = "memo"
    state    = resource.state
    inputs   = { initialize_with = local.db_url }
  }
}
output "url" { value = local.db_url }
`})
	d := mustLoad(t, dir, Options{})

	s := mustResolve(t, d, nil)
	v := view(t, s)
	if got := v["db"].Inputs["initialize_with"]; got != "app-prod" {
		t.Errorf("db inputs = %v, want app-prod", got)
	}
	// web reads db's outputs through local.db_url: it waits on db, and
	// so does inner.db, though it has a db of its own in scope: a local's
	// references resolve from the top level.
	for _, addr := range []string{"web[0]", "web[1]", "inner.db"} {
		if v[addr].Status != "blocked" || !slices.Equal(v[addr].WaitsOn, []string{"db"}) {
			t.Errorf("%s: %s waiting on %v, want blocked on db", addr, v[addr].Status, v[addr].WaitsOn)
		}
		if !slices.Contains(v[addr].DependsOn, "db") {
			t.Errorf("%s depends on %v, want db among them", addr, v[addr].DependsOn)
		}
	}
	if len(s.Outputs) != 0 {
		t.Errorf("outputs before db applied: %v", outputsView(s))
	}

	s = mustResolve(t, d, source.Outputs{"db": {"value": "x"}})
	v = view(t, s)
	want := map[string]any{"initialize_with": "app-prod-web-b db://x"}
	if diff := cmp.Diff(want, v["web[1]"].Inputs); diff != "" {
		t.Errorf("web[1] inputs (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]any{"url": "db://x"}, outputsView(s)); diff != "" {
		t.Errorf("outputs (-want +got):\n%s", diff)
	}
}

func TestLocalsErrors(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		hcl  string
		want string
	}{
		"undeclared": {`
locals { a = 1 }
output "o" { value = local.b }`, `main.pier.hcl:10:27: Undeclared local: no local "b" is declared in a locals block.`},
		"misspelt": {`
locals { prefix = 1 }
output "o" { value = local.prefx }`, `did you mean "prefix"?`},
		"duplicate": {`
locals { a = 1 }
locals { a = 2 }`, `Duplicate local: local "a" is already declared at`},
		"cycle": {`
locals {
  a = local.b
  b = local.a
}`, `Cycle in locals: local "a" refers to itself`},
		"cycle through a resource": {`
locals { v = resource.m.outputs.value }
resource "m" {
  provider = provider.local
  type     = "memo"
  state    = resource.state
  inputs   = { initialize_with = local.v }
}`, `cycle`},
		"count.index in a local": {`
locals { i = count.index }`, `count.index is available only in the inputs of a resource with count`},
		"bare local": {`
output "o" { value = local }`, `local must be followed by a local value's name`},
		"locals inside a deployment": {`
deployment "d" {
  locals { a = 1 }
}`, `Unsupported block type`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := writeDir(t, map[string]string{"main.pier.hcl": localsHeader + tc.hcl})
			_, err := Load(dir, Options{})
			if err == nil {
				t.Fatal("loaded without error")
			}
			lines := strings.Join(diagLines(t, err, dir), "\n")
			if !strings.Contains(strings.ToLower(lines), strings.ToLower(tc.want)) {
				t.Errorf("errors:\n%s\nwant one containing %q", lines, tc.want)
			}
		})
	}
}

// TestLocalEvaluationError reports an error in a local's value when a
// block reads it.
func TestLocalEvaluationError(t *testing.T) {
	t.Parallel()
	dir := writeDir(t, map[string]string{"main.pier.hcl": localsHeader + `
variable "n" { default = "x" }
locals { n = var.n + 1 }
output "o" { value = local.n }
`})
	d := mustLoad(t, dir, Options{})
	_, err := d.Resolve(t.Context(), nil)
	if err == nil {
		t.Fatal("resolved without error")
	}
	lines := strings.Join(diagLines(t, err, dir), "\n")
	if !strings.Contains(lines, "main.pier.hcl:10:14:") || !strings.Contains(lines, "local.n") {
		t.Errorf("errors:\n%s\nwant one at 10:14 naming local.n", lines)
	}
}
