package hclsource

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/hcl/v2"
	"github.com/pierhq/pier/host/source"
)

// TestResolveManyInstances checks blocks with more instances than one
// goroutine evaluates (evalChunk) and than one batch (evalBatch): every
// instance gets its own inputs, reads and waits, and errors come in the
// order of the instances, as a one-by-one evaluation gives them.
func TestResolveManyInstances(t *testing.T) {
	t.Parallel()
	const head = `provider "local" {
  builtin = "local"
}
resource "state" {
  provider = provider.local
  type     = "state_file"
}
locals {
  objs = [{ name = "a" }, { name = "b" }]
  list = ["x", "y"]
}
variable "secret" {
  default   = "s"
  sensitive = true
}
`
	n := evalBatch + 3*evalChunk + 5
	tests := map[string]struct {
		hcl   string
		known source.Outputs
		// want is the view of address i of the block under test.
		want      func(i int) (string, resView)
		sensitive []string
		errs      []string
	}{
		"count with splat, for and a sensitive input": {
			hcl: fmt.Sprintf(`resource "m" {
  provider = provider.local
  type     = "memo"
  state    = resource.state
  count    = %d
  inputs   = { v = "v-${count.index}", names = local.objs[*].name, l = [for x in local.list : "${x}${count.index}"], p = var.secret }
}
`, n),
			want: func(i int) (string, resView) {
				return fmt.Sprintf("m[%d]", i), resView{Status: "ready", Provider: "local", Type: "memo", State: "state", DependsOn: []string{"state"}, Line: 16,
					Inputs: map[string]any{"v": fmt.Sprint("v-", i), "names": []any{"a", "b"}, "l": []any{fmt.Sprint("x", i), fmt.Sprint("y", i)}, "p": "s"}}
			},
			sensitive: []string{"p"},
		},
		"for_each": {
			hcl: fmt.Sprintf(`resource "m" {
  provider = provider.local
  type     = "memo"
  state    = resource.state
  for_each = { for i in concat(range(1000), range(1000, %d)) : "k${i}" => i }
  inputs   = { v = each.value * 2, k = each.key }
}
`, n),
			want: func(i int) (string, resView) {
				return fmt.Sprintf("m[%q]", fmt.Sprint("k", i)), resView{Status: "ready", Provider: "local", Type: "memo", State: "state", DependsOn: []string{"state"}, Line: 16,
					Inputs: map[string]any{"v": fmt.Sprint("#", 2*i), "k": fmt.Sprint("k", i)}}
			},
		},
		"readers of some known outputs": {
			hcl: fmt.Sprintf(`resource "m" {
  provider = provider.local
  type     = "memo"
  state    = resource.state
  count    = %d
  inputs   = {}
}
resource "x" {
  provider = provider.local
  type     = "memo"
  state    = resource.state
  count    = %d
  inputs   = { v = resource.m[count.index].outputs.value }
}
`, n, n),
			known: func() source.Outputs {
				k := source.Outputs{"state": {}}
				for i := 0; i < n; i += 2 {
					k[fmt.Sprintf("m[%d]", i)] = map[string]any{"value": fmt.Sprint("o", i)}
				}
				return k
			}(),
			want: func(i int) (string, resView) {
				m := fmt.Sprintf("m[%d]", i)
				v := resView{Status: "ready", Provider: "local", Type: "memo", State: "state", DependsOn: []string{m, "state"}, Line: 23,
					Inputs: map[string]any{"v": fmt.Sprint("o", i)}}
				if i%2 == 1 {
					v.Status, v.Inputs, v.WaitsOn = "blocked", map[string]any{"v": unknownText}, []string{m}
				}
				return fmt.Sprintf("x[%d]", i), v
			},
		},
		"errors in the order of the instances": {
			hcl: fmt.Sprintf(`resource "m" {
  provider = provider.local
  type     = "memo"
  state    = resource.state
  count    = %d
  inputs   = [{ a = 1 }, "s"][count.index %% %d == 7 ? 1 : 0]
}
`, n, evalChunk+1),
			errs: func() []string {
				var out []string
				for i := 7; i < n; i += evalChunk + 1 {
					out = append(out, fmt.Sprintf("main.pier.hcl:21:14: Invalid inputs: inputs of m[%d] must be an object, not string.", i))
				}
				return out
			}(),
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := writeDir(t, map[string]string{"main.pier.hcl": head + tc.hcl})
			d := mustLoad(t, dir, Options{})
			known := tc.known
			if known == nil {
				known = source.Outputs{"state": {}}
			}
			s, err := d.Resolve(t.Context(), known)
			if tc.errs != nil {
				if err == nil {
					t.Fatal("resolve succeeded, want errors")
				}
				if diff := cmp.Diff(tc.errs, diagLines(t, err, dir)); diff != "" {
					t.Errorf("errors (-want +got):\n%s", diff)
				}
				return
			}
			if err != nil {
				t.Fatalf("resolve: %v", err)
			}
			got := view(t, s)
			for i := range n {
				addr, want := tc.want(i)
				if diff := cmp.Diff(want, got[addr]); diff != "" {
					t.Fatalf("%s (-want +got):\n%s", addr, diff)
				}
			}
			if tc.sensitive != nil {
				for _, r := range s.Ready {
					if strings.HasPrefix(r.Address.String(), "m[") && !cmp.Equal(tc.sensitive, r.SensitiveInputs) {
						t.Fatalf("%s: sensitive inputs %v, want %v", r.Address, r.SensitiveInputs, tc.sensitive)
					}
				}
			}
		})
	}
}

// TestResolveManyInstancesDiagnosticContext: a diagnostic keeps the
// context of the instance that found it, whose count.index is that
// instance's, though the instances of a goroutine share one (evalScratch).
func TestResolveManyInstancesDiagnosticContext(t *testing.T) {
	t.Parallel()
	n := evalBatch + 3*evalChunk + 5
	dir := writeDir(t, map[string]string{"main.pier.hcl": fmt.Sprintf(`provider "local" {
  builtin = "local"
}
resource "state" {
  provider = provider.local
  type     = "state_file"
}
locals {
  list = ["x", "y"]
}
resource "m" {
  provider = provider.local
  type     = "memo"
  state    = resource.state
  count    = %d
  inputs   = { v = local.list[count.index %% %d == 3 ? 5 : 0] }
}
`, n, evalChunk+1)})
	d := mustLoad(t, dir, Options{})
	_, err := d.Resolve(t.Context(), source.Outputs{"state": {}})
	var de *DiagnosticsError
	if !errors.As(err, &de) {
		t.Fatalf("resolve: %v, want diagnostics", err)
	}
	var want, got []int64
	for i := 3; i < n; i += evalChunk + 1 {
		want = append(want, int64(i))
	}
	index := hcl.Traversal{hcl.TraverseRoot{Name: "count"}, hcl.TraverseAttr{Name: "index"}}
	for _, diag := range de.Diagnostics {
		if diag.EvalContext == nil {
			t.Fatalf("%s: no context", diag.Summary)
		}
		v, diags := index.TraverseAbs(diag.EvalContext)
		if diags.HasErrors() {
			t.Fatalf("%s: count.index: %v", diag.Summary, diags)
		}
		i, _ := v.AsBigFloat().Int64()
		got = append(got, i)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("count.index of the diagnostics' contexts (-want +got):\n%s", diff)
	}
}
