package plan_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pierhq/pier/adapters/builtin"
	"github.com/pierhq/pier/host/apply"
	"github.com/pierhq/pier/host/engine"
	"github.com/pierhq/pier/host/hclsource"
	"github.com/pierhq/pier/host/plan"
	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/host/statedoc"
	"github.com/pierhq/pier/internal/testbin"
)

const state2 = `
resource "state2" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "state2.json" }
}
`

const firstHeader = `
provider "local" { builtin = "local" }
resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "state.json" }
}
`

// firstApplied is a deployment of memos in three layers, as bench/scale.sh
// has them, and a file that reads a sensitive value.
const firstApplied = firstHeader + `
resource "a" {
  count    = 4
  provider = provider.local
  type     = "memo"
  state    = resource.state
  inputs   = { initialize_with = "a-${count.index}" }
}
resource "b" {
  count    = 2
  provider = provider.local
  type     = "memo"
  state    = resource.state
  inputs   = { initialize_with = "b-${resource.a[count.index].outputs.value}" }
}
resource "c" {
  count    = 2
  provider = provider.local
  type     = "memo"
  state    = resource.state
  inputs   = { initialize_with = "c-${resource.b[count.index].outputs.value}" }
}
resource "s" {
  provider = provider.local
  type     = "memo"
  state    = resource.state
  inputs   = { initialize_with = "${var.secret}-${resource.a[0].outputs.value}" }
}
variable "secret" {
  default   = "hush"
  sensitive = true
}
output "last" {
  value = resource.c[1].outputs.value
}
output "secret" {
  value     = resource.s.outputs.value
  sensitive = true
}
`

// TestReadStatesFirstSamePlan checks that a plan that reads its states
// before the deployment resolves makes the plan, outputs and errors of
// the plan that resolves with no outputs known first: each case applies
// firstApplied, changes the deployment to config, and plans it both
// ways.
func TestReadStatesFirstSamePlan(t *testing.T) {
	// Not parallel: it switches the package's way of planning.
	tests := map[string]struct {
		config string
		// first says the plan is made from states read first.
		first bool
		// opts steer the plans.
		opts plan.Options
		// before runs in the directory before firstApplied is applied,
		// after after it.
		before, after func(t *testing.T, dir string)
	}{
		"replace and target": {config: firstApplied, first: true, opts: plan.Options{Replace: []string{"a[1]"}, Targets: []string{"c[1]"}}},
		"no-op":              {config: firstApplied, first: true},
		"changed input":      {config: strings.Replace(firstApplied, `"a-${count.index}"`, `"a2-${count.index}"`, 1), first: true},
		"unknowns": {config: firstApplied + `
resource "d" {
  provider = provider.local
  type     = "memo"
  state    = resource.state
  inputs   = { initialize_with = "d" }
}
resource "e" {
  provider = provider.local
  type     = "memo"
  state    = resource.state
  inputs   = { initialize_with = "e-${resource.d.outputs.value}-${resource.c[0].outputs.value}" }
}
output "e" {
  value = resource.e.outputs.value
}
`, first: true},
		"removed resource":                 {config: strings.Replace(strings.Replace(firstApplied, "resource \"c\" {\n  count    = 2", "resource \"c\" {\n  count    = 1", 1), "resource.c[1]", "resource.c[0]", 1), first: true},
		"sensitive changed":                {config: strings.Replace(firstApplied, `"${var.secret}-${`, `"${var.secret}2-${`, 1), first: true},
		"error reading an output it lacks": {config: strings.Replace(firstApplied, `resource.b[count.index].outputs.value`, `resource.b[count.index].outputs.nope`, 1)},
		"error in a resource and one reading an output it lacks": {config: strings.Replace(strings.Replace(firstApplied,
			`resource.b[count.index].outputs.value`, `resource.b[count.index].outputs.nope`, 1),
			`"a-${count.index}"`, `"a-${count.index}" + 1`, 1)},
		"error in a resource": {config: strings.Replace(firstApplied, `"c-${resource.b[count.index].outputs.value}"`, `"c-${resource.b[count.index].outputs.value}" * 2`, 1)},
		"error in two resources": {config: strings.Replace(strings.Replace(firstApplied,
			`"c-${resource.b[count.index].outputs.value}"`, `"c-${resource.b[count.index].outputs.value}" * 2`, 1),
			`"a-${count.index}"`, `"a-${count.index}" + 1`, 1)},
		"error with a sensitive value": {config: strings.Replace(firstApplied, `"${var.secret}-${resource.a[0].outputs.value}"`, `"${var.secret}-${resource.a[0].outputs.value}" * 2`, 1)},
		"error in an output":           {config: strings.Replace(firstApplied, `resource.c[1].outputs.value`, `resource.c[1].outputs.value * 2`, 1)},
		"error in the state handler":   {config: strings.Replace(firstApplied, `{ name = "state.json" }`, `{ name = "state.json" * 2 }`, 1)},
		"state handler reading a resource": {config: strings.Replace(firstApplied, `{ name = "state.json" }`, `{ name = "state.json", x = resource.k.outputs.value }`, 1) + state2 + `
resource "k" {
  provider = provider.local
  type     = "memo"
  state    = resource.state2
  inputs   = { initialize_with = "k" }
}
`},
		// With nothing reading an output the first resolve converts no
		// outputs, so it is the cheaper way.
		"nothing reads an output": {config: firstHeader + `
resource "a" {
  count    = 4
  provider = provider.local
  type     = "memo"
  state    = resource.state
  inputs   = { initialize_with = "a-${count.index}" }
}
`},
		// A state type's resource is a handler, named or not.
		"a second state handler no instance names": {first: true, config: firstApplied + state2 + `
resource "n" {
  count    = 0
  provider = provider.local
  type     = "memo"
  state    = resource.state2
  inputs   = { initialize_with = "n" }
}
`},
		"a resource recorded in two states": {config: firstApplied + state2, before: func(t *testing.T, dir string) {
			// a[0] recorded in state2 too: the only resource in two
			// states, as the message names the first it finds.
			write(t, dir, firstHeader+state2+`
resource "a" {
  count    = 1
  provider = provider.local
  type     = "memo"
  state    = resource.state2
  inputs   = { initialize_with = "a-${count.index}" }
}
`)
			applyDir(t, dir)
		}},
		"a pending operation": {config: firstApplied, after: func(t *testing.T, dir string) {
			// An interrupted create of d, as its intent records it.
			e := newEngine(t, dir)
			defer e.Close()
			set, err := e.ReadStates(t.Context(), mustSnapshot(t, e))
			if err != nil {
				t.Fatal(err)
			}
			r := engine.NewRecorder(e, "state", set.Handlers["state"])
			defer r.Close()
			d, err := source.ParseAddress("d")
			if err != nil {
				t.Fatal(err)
			}
			if err := r.Record(t.Context(), "pending", func(pb *statedoc.PatchBuilder) error {
				return pb.PutPending(d, statedoc.PendingOperation{Operation: statedoc.PendingCreate, Provider: "local", Type: "memo", Started: "2026-01-01T00:00:00Z", InputProperties: map[string]any{"initialize_with": "d"}})
			}); err != nil {
				t.Fatal(err)
			}
		}},
		"refresh = true": {config: strings.Replace(firstApplied, `inputs   = { initialize_with = "${var.secret}`, "refresh  = true\n  inputs   = { initialize_with = \"${var.secret}", 1)},
		"an import block": {config: firstApplied + `
import {
  to = resource.a[0]
  id = "x"
}
`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.before != nil {
				tc.before(t, dir)
			}
			write(t, dir, firstApplied)
			applyDir(t, dir)
			if tc.after != nil {
				tc.after(t, dir)
			}
			write(t, dir, tc.config)
			var got [2]string
			for i, on := range []bool{false, true} {
				restore := plan.ReadStatesFirst(on)
				var first bool
				got[i], first = planDir(t, dir, tc.opts)
				restore()
				if on && first != tc.first {
					t.Errorf("planned from states read first: %v, want %v", first, tc.first)
				}
			}
			if diff := cmp.Diff(got[0], got[1]); diff != "" {
				t.Errorf("plan read first differs (-resolved first +read first):\n%s", diff)
			}
		})
	}
}

func mustSnapshot(t *testing.T, e *engine.Engine) *source.Snapshot {
	t.Helper()
	snap, err := e.Snapshot(t.Context(), source.Outputs{})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

func write(t *testing.T, dir, config string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "main.pier.hcl"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
}

func newEngine(t *testing.T, dir string) *engine.Engine {
	t.Helper()
	src, err := hclsource.Load(dir, hclsource.Options{Builtins: builtin.Capabilities})
	if err != nil {
		t.Fatal(err)
	}
	return engine.New(engine.Config{Source: src, Dir: dir, PierExecutable: testbin.Pier(t), Builtins: builtin.Capabilities})
}

func applyDir(t *testing.T, dir string) {
	t.Helper()
	e := newEngine(t, dir)
	defer e.Close()
	p, err := plan.Make(t.Context(), e, plan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := apply.Run(t.Context(), e, plan.NewRunTimePlanner(e), nil, p)
	if err != nil {
		t.Fatal(err)
	}
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
}

// planDir plans dir and renders what the plan says, or its error, and
// whether it was planned from states read first.
func planDir(t *testing.T, dir string, o plan.Options) (string, bool) {
	t.Helper()
	e := newEngine(t, dir)
	defer e.Close()
	p, err := plan.Make(t.Context(), e, o)
	if err != nil {
		return "error: " + err.Error(), false
	}
	g, err := p.RedactedGraph()
	if err != nil {
		t.Fatal(err)
	}
	out, err := json.MarshalIndent(map[string]any{
		"changes":        p.Changes,
		"shown":          p.Shown(),
		"summary":        p.Summary(),
		"known":          p.Known,
		"outputs":        p.Snapshot.Outputs,
		"pending":        p.Snapshot.PendingOutputs,
		"checks":         p.Snapshot.Checks,
		"ready":          p.Snapshot.Ready,
		"blocked":        p.Snapshot.Blocked,
		"warnings":       p.Warnings,
		"graph":          g,
		"output changes": p.OutputChanges(),
		"planned":        p.Planned(),
	}, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(out), plan.ReadFirst(p)
}
