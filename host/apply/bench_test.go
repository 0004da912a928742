package apply_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pierhq/pier/adapters/builtin"
	"github.com/pierhq/pier/host/apply"
	"github.com/pierhq/pier/host/engine"
	"github.com/pierhq/pier/host/hclsource"
	"github.com/pierhq/pier/host/plan"
	"github.com/pierhq/pier/internal/testbin"
)

// BenchmarkChain applies a chain of memos, each reading the one before,
// and re-plans it unchanged: the engine's cost per resolve must follow
// what the resolve changed, not the size of the deployment, or a chain
// costs its length squared.
func BenchmarkChain(b *testing.B) {
	for _, n := range []int{250, 1000} {
		dir := b.TempDir()
		var s strings.Builder
		s.WriteString(`
provider "local" { builtin = "local" }
resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "state.json" }
}
resource "c0" {
  provider = provider.local
  type     = "memo"
  state    = resource.state
  inputs   = { initialize_with = "v" }
}
`)
		for i := 1; i < n; i++ {
			fmt.Fprintf(&s, `
resource "c%d" {
  provider = provider.local
  type     = "memo"
  state    = resource.state
  inputs   = { initialize_with = resource.c%d.outputs.value }
}
`, i, i-1)
		}
		if err := os.WriteFile(filepath.Join(dir, "main.pier.hcl"), []byte(s.String()), 0o644); err != nil {
			b.Fatal(err)
		}
		newEngine := func() *engine.Engine {
			src, err := hclsource.Load(dir, hclsource.Options{})
			if err != nil {
				b.Fatal(err)
			}
			return engine.New(engine.Config{Source: src, Dir: dir, PierExecutable: testbin.Pier(b), Builtins: builtin.Capabilities})
		}
		b.Run(fmt.Sprintf("apply/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				os.Remove(filepath.Join(dir, "state.json"))
				e := newEngine()
				p, err := plan.Make(b.Context(), e, plan.Options{})
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				res, err := apply.Run(b.Context(), e, plan.NewRunTimePlanner(e), nil, p)
				if err != nil || res.Err() != nil {
					b.Fatal(err, res.Err())
				}
				b.StopTimer()
				e.Close()
				b.StartTimer()
			}
		})
		b.Run(fmt.Sprintf("noop-plan/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				e := newEngine()
				p, err := plan.Make(b.Context(), e, plan.Options{})
				if err != nil {
					b.Fatal(err)
				}
				if p.HasChanges() {
					b.Fatal("the chain is not unchanged")
				}
				e.Close()
			}
		})
	}
}
