package hclsource

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pierhq/pier/host/source"
)

// fakeOutputs gives every resource the outputs the fixtures read, with
// values that depend on gen so that rounds can change them.
func fakeOutputs(addr string, gen int) map[string]any {
	return map[string]any{
		"value": fmt.Sprintf("%s-%d", addr, gen), "id": fmt.Sprint(gen), "url": "u", "x": "x", "v": gen,
		"stdout": "out", "name": "n", "path": "p",
		"items": []any{"a", fmt.Sprint(gen)}, "byName": map[string]any{"k": gen},
	}
}

// TestIncrementalMatchesFresh resolves each fixture through rounds in which
// outputs appear, change and disappear, and checks every incremental
// answer against a fresh deployment resolving the same outputs once.
func TestIncrementalMatchesFresh(t *testing.T) {
	t.Parallel()
	dirs := map[string]string{
		"basic":    filepath.Join("testdata", "basic"),
		"expand":   filepath.Join("testdata", "expand"),
		"nested":   filepath.Join("testdata", "nested"),
		"equiv":    filepath.Join("testdata", "equiv", "hcl"),
		"graph":    filepath.Join("testdata", "graph"),
		"outputs":  filepath.Join("testdata", "outputs"),
		"multi":    filepath.Join("testdata", "multifile"),
		"chain":    "",
		"counted":  "",
		"for_each": "",
	}
	srcs := map[string]string{
		"chain": chainSrc,
		"counted": `provider "p" {
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
resource "pair" {
  provider = provider.p
  type     = "t"
  count    = length(resource.item)
  inputs   = { v = resource.item[count.index].outputs.value, w = resource.item[count.index].inputs.v }
}
`,
		"for_each": `provider "p" {
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
  inputs   = { k = each.key, v = each.value, o = resource.src.outputs.value }
}
resource "last" {
  provider = provider.p
  type     = "t"
  inputs   = { e = [for k, e in resource.each : "${k}=${e.outputs.value}"] }
}
`,
	}
	for name, dir := range dirs {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if dir == "" {
				dir = writeDir(t, map[string]string{"main.pier.hcl": srcs[name]})
			}
			d := mustLoad(t, dir, Options{})
			known := source.Outputs{}
			check := func(round string) {
				t.Helper()
				got := mustResolve(t, d, known)
				want := mustResolve(t, mustLoad(t, dir, Options{}), known)
				if diff := cmp.Diff(view(t, want), view(t, got)); diff != "" {
					t.Errorf("%s: incremental vs fresh resources (-fresh +incremental):\n%s", round, diff)
				}
				if diff := cmp.Diff(outputsView(want), outputsView(got)); diff != "" {
					t.Errorf("%s: incremental vs fresh outputs (-fresh +incremental):\n%s", round, diff)
				}
			}
			check("nothing known")
			// Apply whatever is ready, round after round, until nothing
			// new becomes ready.
			for i := 0; i < 10; i++ {
				s := mustResolve(t, d, known)
				added := false
				for _, r := range s.Ready {
					if _, ok := known[r.Address.String()]; !ok {
						known[r.Address.String()] = fakeOutputs(r.Address.String(), 1)
						added = true
					}
				}
				check(fmt.Sprintf("apply round %d", i))
				if !added {
					break
				}
			}
			// Every output changes.
			for addr := range known {
				known[addr] = fakeOutputs(addr, 2)
			}
			check("outputs changed")
			// Half the outputs are forgotten.
			n := 0
			for addr := range known {
				if n%2 == 0 {
					delete(known, addr)
				}
				n++
			}
			check("outputs forgotten")
			for addr := range known {
				known[addr] = fakeOutputs(addr, 3)
			}
			check("outputs changed again")
		})
	}
}
