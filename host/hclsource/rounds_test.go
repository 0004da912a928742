package hclsource

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pierhq/pier/host/source"
)

// status summarises a snapshot as address → ready, blocked(waits…) or
// structural(waits…).
func status(tb testing.TB, s *source.Snapshot) map[string]string {
	tb.Helper()
	out := map[string]string{}
	for a, v := range view(tb, s) {
		if v.Status == "ready" {
			out[a] = "ready"
		} else {
			out[a] = v.Status + "(" + strings.Join(v.WaitsOn, " ") + ")"
		}
	}
	return out
}

const chainSrc = `provider "p" {
  executable = "/bin/p"
}
resource "a" {
  provider = provider.p
  type     = "t"
}
resource "b" {
  provider = provider.p
  type     = "t"
  inputs   = { x = resource.a.outputs.x }
}
resource "c" {
  provider = provider.p
  type     = "t"
  inputs   = { x = resource.b.outputs.x, y = resource.b.inputs.x }
}
resource "free" {
  provider = provider.p
  type     = "t"
  inputs   = { n = 1 }
}
output "c" {
  value = resource.c.inputs.x
}
`

func TestResolveRounds(t *testing.T) {
	t.Parallel()
	type round struct {
		known       source.Outputs
		want        map[string]string
		wantInputs  map[string]map[string]any
		wantOutputs map[string]any
		// wantEvaluations is how many resource blocks this round evaluates.
		wantEvaluations int
	}
	a1 := map[string]any{"x": "a1"}
	tests := map[string]struct {
		src    string
		rounds []round
	}{
		"chain": {
			src: chainSrc,
			rounds: []round{
				{
					want:            map[string]string{"a": "ready", "b": "blocked(a)", "c": "blocked(a b)", "free": "ready"},
					wantInputs:      map[string]map[string]any{"c": {"x": unknownText, "y": unknownText}},
					wantOutputs:     map[string]any{},
					wantEvaluations: 4,
				},
				{
					known:           source.Outputs{"a": a1},
					want:            map[string]string{"a": "ready", "b": "ready", "c": "blocked(b)", "free": "ready"},
					wantInputs:      map[string]map[string]any{"b": {"x": "a1"}, "c": {"x": unknownText, "y": "a1"}},
					wantOutputs:     map[string]any{},
					wantEvaluations: 2, // b, then c which reads b's inputs
				},
				{
					// The same maps again: nothing to do.
					known:           source.Outputs{"a": a1},
					want:            map[string]string{"a": "ready", "b": "ready", "c": "blocked(b)", "free": "ready"},
					wantOutputs:     map[string]any{},
					wantEvaluations: 0,
				},
				{
					known:           source.Outputs{"a": a1, "b": {"x": "b1"}},
					want:            map[string]string{"a": "ready", "b": "ready", "c": "ready", "free": "ready"},
					wantInputs:      map[string]map[string]any{"c": {"x": "b1", "y": "a1"}},
					wantOutputs:     map[string]any{"c": "b1"},
					wantEvaluations: 1,
				},
				{
					// a's outputs changed (a new map with new content).
					known:           source.Outputs{"a": {"x": "a2"}, "b": {"x": "b1"}},
					want:            map[string]string{"a": "ready", "b": "ready", "c": "ready", "free": "ready"},
					wantInputs:      map[string]map[string]any{"b": {"x": "a2"}, "c": {"x": "b1", "y": "a2"}},
					wantOutputs:     map[string]any{"c": "b1"},
					wantEvaluations: 2,
				},
				{
					// A new map with the same content costs no evaluation.
					known:           source.Outputs{"a": {"x": "a2"}, "b": {"x": "b1"}},
					want:            map[string]string{"a": "ready", "b": "ready", "c": "ready", "free": "ready"},
					wantOutputs:     map[string]any{"c": "b1"},
					wantEvaluations: 0,
				},
				{
					// b's outputs are forgotten: c is blocked again.
					known:           source.Outputs{"a": {"x": "a2"}},
					want:            map[string]string{"a": "ready", "b": "ready", "c": "blocked(b)", "free": "ready"},
					wantOutputs:     map[string]any{},
					wantEvaluations: 1,
				},
			},
		},
		"count on an output is structural": {
			src: `provider "p" {
  executable = "/bin/p"
}
resource "list" {
  provider = provider.p
  type     = "t"
}
resource "item" {
  provider = provider.p
  type     = "t"
  count    = length(resource.list.outputs.items)
  inputs   = { v = resource.list.outputs.items[count.index] }
}
resource "sum" {
  provider = provider.p
  type     = "t"
  inputs   = { n = length(resource.item) }
}
resource "after" {
  provider   = provider.p
  type       = "t"
  depends_on = [resource.item]
}
`,
			rounds: []round{
				{
					want: map[string]string{
						"list": "ready", "item": "structural(list)", "sum": "blocked(list)", "after": "blocked(list)",
					},
					wantEvaluations: 4,
				},
				{
					known: source.Outputs{"list": {"items": []any{"x", "y"}}},
					want: map[string]string{
						"list": "ready", "item[0]": "ready", "item[1]": "ready", "sum": "ready", "after": "ready",
					},
					wantInputs: map[string]map[string]any{
						"item[1]": {"v": "y"}, "sum": {"n": "#2"},
					},
					wantEvaluations: 3,
				},
			},
		},
		"instances read only what they index": {
			src: `provider "p" {
  executable = "/bin/p"
}
resource "m" {
  provider = provider.p
  type     = "t"
  count    = 3
}
resource "x" {
  provider = provider.p
  type     = "t"
  count    = 3
  inputs   = { v = resource.m[count.index].outputs.v }
}
resource "all" {
  provider = provider.p
  type     = "t"
  inputs   = { vs = [for i in resource.m : i.outputs.v] }
}
`,
			rounds: []round{
				{
					want: map[string]string{
						"m[0]": "ready", "m[1]": "ready", "m[2]": "ready",
						"x[0]": "blocked(m[0])", "x[1]": "blocked(m[1])", "x[2]": "blocked(m[2])",
						"all": "blocked(m[0] m[1] m[2])",
					},
					wantEvaluations: 3,
				},
				{
					// m[1] is applied: x[1] and all are evaluated again, not
					// x[0] or x[2].
					known: source.Outputs{"m[1]": {"v": "one"}},
					want: map[string]string{
						"m[0]": "ready", "m[1]": "ready", "m[2]": "ready",
						"x[0]": "blocked(m[0])", "x[1]": "ready", "x[2]": "blocked(m[2])",
						"all": "blocked(m[0] m[2])",
					},
					wantInputs:      map[string]map[string]any{"x[1]": {"v": "one"}},
					wantEvaluations: 2,
				},
				{
					known: source.Outputs{"m[0]": {"v": "zero"}, "m[1]": {"v": "one"}, "m[2]": {"v": "two"}},
					want: map[string]string{
						"m[0]": "ready", "m[1]": "ready", "m[2]": "ready",
						"x[0]": "ready", "x[1]": "ready", "x[2]": "ready", "all": "ready",
					},
					wantInputs:      map[string]map[string]any{"all": {"vs": []any{"zero", "one", "two"}}},
					wantEvaluations: 3,
				},
			},
		},
		"for_each on an output": {
			src: `provider "p" {
  executable = "/bin/p"
}
resource "src" {
  provider = provider.p
  type     = "t"
}
resource "each" {
  provider = provider.p
  type     = "t"
  for_each = resource.src.outputs.byName
  inputs   = { k = each.key, v = each.value }
}
`,
			rounds: []round{
				{want: map[string]string{"src": "ready", "each": "structural(src)"}, wantEvaluations: 2},
				{
					known:           source.Outputs{"src": {"byName": map[string]any{"x": 1.0}}},
					want:            map[string]string{"src": "ready", `each["x"]`: "ready"},
					wantInputs:      map[string]map[string]any{`each["x"]`: {"k": "x", "v": "#1"}},
					wantEvaluations: 1,
				},
			},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			d := mustLoad(t, writeDir(t, map[string]string{"main.pier.hcl": tc.src}), Options{})
			for i, r := range tc.rounds {
				before := d.evaluations
				s := mustResolve(t, d, r.known)
				if diff := cmp.Diff(r.want, status(t, s)); diff != "" {
					t.Errorf("round %d: status (-want +got):\n%s", i, diff)
				}
				v := view(t, s)
				for addr, want := range r.wantInputs {
					if diff := cmp.Diff(want, v[addr].Inputs); diff != "" {
						t.Errorf("round %d: inputs of %s (-want +got):\n%s", i, addr, diff)
					}
				}
				if r.wantOutputs != nil {
					if diff := cmp.Diff(r.wantOutputs, outputsView(s)); diff != "" {
						t.Errorf("round %d: outputs (-want +got):\n%s", i, diff)
					}
				}
				if got := d.evaluations - before; got != r.wantEvaluations {
					t.Errorf("round %d: evaluated %d resource blocks, want %d", i, got, r.wantEvaluations)
				}
				structural := strings.Contains(fmt.Sprint(r.want), "structural")
				if s.Complete() == structural {
					t.Errorf("round %d: Complete() = %v with structural blocks %v", i, s.Complete(), structural)
				}
			}
		})
	}
}

func TestResolveCanceled(t *testing.T) {
	t.Parallel()
	d := mustLoad(t, writeDir(t, map[string]string{"main.pier.hcl": chainSrc}), Options{})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := d.Resolve(ctx, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("Resolve with a canceled context = %v, want context.Canceled", err)
	}
	// The deployment is still usable.
	s := mustResolve(t, d, nil)
	if len(s.Ready) != 2 {
		t.Errorf("ready = %d, want 2", len(s.Ready))
	}
}
