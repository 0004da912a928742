package apply_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/pierhq/pier/adapters/builtin"
	"github.com/pierhq/pier/host/apply"
	"github.com/pierhq/pier/host/engine"
	"github.com/pierhq/pier/host/hclsource"
	"github.com/pierhq/pier/host/plan"
	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/internal/testbin"
)

// countingSource counts the resolves of the real HCL source it wraps.
type countingSource struct {
	source.Source
	calls atomic.Int64
}

func (c *countingSource) Resolve(ctx context.Context, known source.Outputs) (*source.Snapshot, error) {
	c.calls.Add(1)
	return c.Source.Resolve(ctx, known)
}

// wideDeployment writes n memos in three layers: half independent, a
// quarter reading one of those each, a quarter reading one of that
// quarter (as bench/scale.sh has them).
func wideDeployment(tb testing.TB, dir string, n int) {
	tb.Helper()
	q := n / 4
	hcl := fmt.Sprintf(`
provider "local" { builtin = "local" }
resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "state.json" }
}
resource "a" {
  count    = %d
  provider = provider.local
  type     = "memo"
  state    = resource.state
  inputs   = { initialize_with = "a-${count.index}" }
}
resource "b" {
  count    = %d
  provider = provider.local
  type     = "memo"
  state    = resource.state
  inputs   = { initialize_with = "b-${resource.a[count.index].outputs.value}" }
}
resource "c" {
  count    = %d
  provider = provider.local
  type     = "memo"
  state    = resource.state
  inputs   = { initialize_with = "c-${resource.b[count.index].outputs.value}" }
}
`, n-2*q, q, q)
	if err := os.WriteFile(filepath.Join(dir, "main.pier.hcl"), []byte(hcl), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// applyWide plans and applies a fresh wide deployment of n memos and
// returns how many resolves the apply itself asked of the source.
func applyWide(tb testing.TB, dir string, n int) int64 {
	tb.Helper()
	src, err := hclsource.Load(dir, hclsource.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	counting := &countingSource{Source: src}
	e := engine.New(engine.Config{Source: counting, Dir: dir, PierExecutable: testbin.Pier(tb), Builtins: builtin.Capabilities})
	defer e.Close()
	p, err := plan.Make(tb.Context(), e, plan.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	planned := counting.calls.Load()
	res, err := apply.Run(tb.Context(), e, plan.NewRunTimePlanner(e), nil, p)
	if err != nil {
		tb.Fatal(err)
	}
	if err := res.Err(); err != nil {
		tb.Fatal(err)
	}
	if res.Created != n {
		tb.Fatalf("created %d memos, want %d", res.Created, n)
	}
	return counting.calls.Load() - planned
}

// TestResolvesFollowTheDeployment checks that a wide fresh apply asks the
// source for a number of resolves that does not grow with the number of
// outputs: each resolve costs the deployment's size, so one per output
// made an apply cost its size squared. The bound counts a resolve per
// 1/32 of the deployment, and a few dozen while a layer's last nodes run
// and the ready queue is short; resolving after every output, as before,
// takes several hundred here.
func TestResolvesFollowTheDeployment(t *testing.T) {
	t.Parallel()
	const n = 1200
	dir := t.TempDir()
	wideDeployment(t, dir, n)
	got, bound := applyWide(t, dir, n), int64(n/10)
	t.Logf("the apply of %d memos resolved %d times", n, got)
	if got > bound {
		t.Errorf("the apply of %d memos resolved %d times, want at most %d", n, got, bound)
	}
}

// BenchmarkWide applies a fresh wide deployment: its cost per memo must
// not grow with the deployment's size. Compare the sizes' ns/op divided
// by their sizes.
func BenchmarkWide(b *testing.B) {
	for _, n := range []int{1000, 4000} {
		b.Run(fmt.Sprintf("apply/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			var resolves int64
			for b.Loop() {
				dir := b.TempDir()
				wideDeployment(b, dir, n)
				resolves += applyWide(b, dir, n)
			}
			b.ReportMetric(float64(resolves)/float64(b.N), "resolves/op")
		})
	}
}
