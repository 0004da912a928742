package hclsource

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pierhq/pier/host/source"
)

// genDeployment writes a deployment of n memo resources sharing one
// state_file. In a chain, each memo reads the previous one's output.
func genDeployment(tb testing.TB, n int, chain bool) string {
	tb.Helper()
	var b strings.Builder
	b.WriteString(`provider "local" {
  builtin = "local"
}
resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "state.json" }
}
`)
	for i := range n {
		value := fmt.Sprintf("%q", fmt.Sprint("v", i))
		if chain && i > 0 {
			value = fmt.Sprintf("resource.m%d.outputs.value", i-1)
		}
		fmt.Fprintf(&b, `resource "m%d" {
  provider = provider.local
  type     = "memo"
  state    = resource.state
  inputs   = { value = %s, index = %d }
}
`, i, value, i)
	}
	return writeDir(tb, map[string]string{"main.pier.hcl": b.String()})
}

func benchmarkLoad(b *testing.B, n int, chain bool) {
	dir := genDeployment(b, n, chain)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Load(dir, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLoad10000(b *testing.B) {
	b.Run("flat", func(b *testing.B) { benchmarkLoad(b, 10000, false) })
	b.Run("chain", func(b *testing.B) { benchmarkLoad(b, 10000, true) })
}

// benchmarkResolveFirst is the first Resolve of a freshly loaded
// deployment: every block is evaluated.
func benchmarkResolveFirst(b *testing.B, n int, chain bool) {
	dir := genDeployment(b, n, chain)
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		d, err := Load(dir, Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := d.Resolve(b.Context(), nil); err != nil {
			b.Fatal(err)
		}
	}
}

// benchmarkResolveFlatRound is a later round of the flat deployment: one
// output toggles, nothing reads it, so only the snapshot is listed.
func benchmarkResolveFlatRound(b *testing.B, n int) {
	d := mustLoad(b, genDeployment(b, n, false), Options{})
	known := source.Outputs{"state": {}}
	mustResolve(b, d, known)
	out := map[string]any{"value": "v0"}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if i%2 == 0 {
			known["m0"] = out
		} else {
			delete(known, "m0")
		}
		i++
		if _, err := d.Resolve(b.Context(), known); err != nil {
			b.Fatal(err)
		}
	}
}

// benchmarkResolveRound is one later round of a chain: the last output
// toggles between known and unknown, so each Resolve re-evaluates one block
// and lists the snapshot.
func benchmarkResolveRound(b *testing.B, n int) {
	d := mustLoad(b, genDeployment(b, n, true), Options{})
	known := source.Outputs{"state": {}}
	for i := range n - 1 {
		known[fmt.Sprintf("m%d", i)] = map[string]any{"value": fmt.Sprint("v", i)}
	}
	mustResolve(b, d, known)
	last := fmt.Sprintf("m%d", n-2)
	lastOut := known[last]
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if i%2 == 0 {
			delete(known, last)
		} else {
			known[last] = lastOut
		}
		i++
		s, err := d.Resolve(b.Context(), known)
		if err != nil {
			b.Fatal(err)
		}
		if len(s.Ready)+len(s.Blocked) != n+1 {
			b.Fatalf("snapshot has %d resources, want %d", len(s.Ready)+len(s.Blocked), n+1)
		}
	}
}

// benchmarkResolveAllRounds applies a whole chain the way the engine does:
// one output more per round, n rounds.
func benchmarkResolveAllRounds(b *testing.B, n int) {
	dir := genDeployment(b, n, true)
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		d, err := Load(dir, Options{})
		if err != nil {
			b.Fatal(err)
		}
		known := source.Outputs{"state": {}}
		b.StartTimer()
		for i := range n {
			s, err := d.Resolve(b.Context(), known)
			if err != nil {
				b.Fatal(err)
			}
			if len(s.Ready) != i+2 {
				b.Fatalf("round %d: %d ready, want %d", i, len(s.Ready), i+2)
			}
			known[fmt.Sprintf("m%d", i)] = map[string]any{"value": "x"}
		}
	}
}

// benchmarkResolveCountRound is a round of two counted blocks where
// x[i] reads m[i]: one output of m toggles, and only the one instance of x
// that reads it is evaluated again.
func benchmarkResolveCountRound(b *testing.B, n int) {
	dir := writeDir(b, map[string]string{"main.pier.hcl": fmt.Sprintf(`provider "local" {
  builtin = "local"
}
resource "state" {
  provider = provider.local
  type     = "state_file"
}
resource "m" {
  provider = provider.local
  type     = "memo"
  state    = resource.state
  count    = %d
  inputs   = { value = count.index }
}
resource "x" {
  provider = provider.local
  type     = "memo"
  state    = resource.state
  count    = %d
  inputs   = { value = resource.m[count.index].outputs.value }
}
`, n/2, n/2)})
	d := mustLoad(b, dir, Options{})
	known := source.Outputs{"state": {}}
	for i := range n / 2 {
		known[fmt.Sprintf("m[%d]", i)] = map[string]any{"value": fmt.Sprint(i)}
	}
	mustResolve(b, d, known)
	last := fmt.Sprintf("m[%d]", n/2-1)
	lastOut := known[last]
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if i%2 == 0 {
			delete(known, last)
		} else {
			known[last] = lastOut
		}
		i++
		if _, err := d.Resolve(b.Context(), known); err != nil {
			b.Fatal(err)
		}
	}
}

// noopFirst is what a no-op plan resolves before the Resolve that knows
// the recorded outputs.
type noopFirst int

const (
	noopUnknownFirst  noopFirst = iota // a Resolve that knows none
	noopKnownFirst                     // nothing
	noopHandlersFirst                  // ResolveHandlers
)

func BenchmarkResolve10000(b *testing.B) {
	b.Run("flat/first", func(b *testing.B) { benchmarkResolveFirst(b, 10000, false) })
	b.Run("flat/round", func(b *testing.B) { benchmarkResolveFlatRound(b, 10000) })
	b.Run("count/first", func(b *testing.B) { benchmarkResolveCountFirst(b, 10000) })
	b.Run("count/round", func(b *testing.B) { benchmarkResolveCountRound(b, 10000) })
	b.Run("count/shared", func(b *testing.B) { benchmarkResolveCountShared(b, 10000) })
	b.Run("chain/first", func(b *testing.B) { benchmarkResolveFirst(b, 10000, true) })
	b.Run("chain/round", func(b *testing.B) { benchmarkResolveRound(b, 10000) })
	b.Run("chain/all-rounds", func(b *testing.B) { benchmarkResolveAllRounds(b, 10000) })
	b.Run("scale/noop", func(b *testing.B) { benchmarkResolveNoop(b, 10000, noopUnknownFirst) })
	b.Run("scale/noop-known-first", func(b *testing.B) { benchmarkResolveNoop(b, 10000, noopKnownFirst) })
	b.Run("scale/noop-handlers-first", func(b *testing.B) { benchmarkResolveNoop(b, 10000, noopHandlersFirst) })
}

// benchmarkResolveNoop is what a no-op plan of bench/scale.sh's
// deployment resolves: half the memos independent, a quarter reading one
// of those each, a quarter reading one of that quarter. The first
// Resolve knows no outputs; the second knows every recorded one, as the
// planner's speculation gives them. With noopKnownFirst, the one Resolve
// knows them all from the start: the floor for removing the first pass.
// With noopHandlersFirst, ResolveHandlers comes first, as a plan that
// reads its states first resolves.
func benchmarkResolveNoop(b *testing.B, n int, first noopFirst) {
	q := n / 4
	dir := writeDir(b, map[string]string{"main.pier.hcl": fmt.Sprintf(`provider "local" {
  builtin = "local"
}
variable "v" {
  default = "0"
}
resource "state" {
  provider = provider.local
  type     = "state_file"
}
resource "a" {
  count    = %d
  provider = provider.local
  type     = "memo"
  state    = resource.state
  inputs   = { initialize_with = count.index == 5 ? "changed-${var.v}" : "a-${count.index}" }
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
`, n-2*q, q, q)})
	known := source.Outputs{"state": {}}
	for i := range n - 2*q {
		v := fmt.Sprint("a-", i)
		if i == 5 {
			v = "changed-0"
		}
		known[fmt.Sprintf("a[%d]", i)] = map[string]any{"value": v}
	}
	for i := range q {
		known[fmt.Sprintf("b[%d]", i)] = map[string]any{"value": fmt.Sprint("b-", known[fmt.Sprintf("a[%d]", i)]["value"])}
		known[fmt.Sprintf("c[%d]", i)] = map[string]any{"value": fmt.Sprint("c-b-", known[fmt.Sprintf("a[%d]", i)]["value"])}
	}
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		d := mustLoad(b, dir, Options{})
		b.StartTimer()
		switch first {
		case noopUnknownFirst:
			if _, err := d.Resolve(b.Context(), source.Outputs{"state": {}}); err != nil {
				b.Fatal(err)
			}
		case noopHandlersFirst:
			if _, ok := d.ResolveHandlers(b.Context()); !ok {
				b.Fatal("ResolveHandlers refused the deployment")
			}
		}
		s, err := d.Resolve(b.Context(), known)
		if err != nil {
			b.Fatal(err)
		}
		if len(s.Ready) != n+1 {
			b.Fatalf("%d ready, want %d", len(s.Ready), n+1)
		}
	}
}

// benchmarkResolveCountFirst is the first Resolve of one block of n
// instances, with bench/noop.sh's inputs: the shape of a large no-op,
// where one block's instances are evaluated in batches on every core.
func benchmarkResolveCountFirst(b *testing.B, n int) {
	dir := writeDir(b, map[string]string{"main.pier.hcl": fmt.Sprintf(`provider "local" {
  builtin = "local"
}
variable "v" {
  default = "0"
}
resource "state" {
  provider = provider.local
  type     = "state_file"
}
resource "m" {
  provider = provider.local
  type     = "memo"
  state    = resource.state
  count    = %d
  inputs   = { initialize_with = count.index == 5 ? "changed-${var.v}" : "value-${count.index}" }
}
`, n)})
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		d := mustLoad(b, dir, Options{})
		b.StartTimer()
		if _, err := d.Resolve(b.Context(), source.Outputs{"state": {}}); err != nil {
			b.Fatal(err)
		}
	}
}

// benchmarkResolveCountShared is the first Resolve of one block of n
// instances whose inputs are mostly the same for every instance, as
// tags and settings usually are: what hoist.go evaluates once.
func benchmarkResolveCountShared(b *testing.B, n int) {
	dir := writeDir(b, map[string]string{"main.pier.hcl": fmt.Sprintf(`provider "local" {
  builtin = "local"
}
variable "env" {
  default = "prod"
}
variable "team" {
  default = "infra"
}
resource "state" {
  provider = provider.local
  type     = "state_file"
}
resource "m" {
  provider = provider.local
  type     = "memo"
  state    = resource.state
  count    = %d
  inputs   = {
    name  = "node-${count.index}"
    tags  = { env = var.env, owner = "team-${var.team}", tier = upper(var.env) }
    size  = var.env == "prod" ? "large" : "small"
    ports = [80, 443]
  }
}
`, n)})
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		d := mustLoad(b, dir, Options{})
		b.StartTimer()
		if _, err := d.Resolve(b.Context(), source.Outputs{"state": {}}); err != nil {
			b.Fatal(err)
		}
	}
}
