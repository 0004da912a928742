package hclsource

import (
	"fmt"
	"testing"
)

// moduleDeployment writes 1000 memos (or instances×perInstance of them):
// flat as one block with count, or as a module block with count whose
// module holds perInstance memos.
func moduleDeployment(tb testing.TB, instances, perInstance int, flat bool) string {
	tb.Helper()
	head := `provider "local" { builtin = "local" }
resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "state.json" }
}
`
	if flat {
		return writeTree(tb, map[string]string{"main.pier.hcl": head + fmt.Sprintf(`resource "m" {
  count    = %d
  provider = provider.local
  type     = "memo"
  state    = resource.state
  inputs   = { initialize_with = "site-${floor(count.index / %d)}-${count.index %% %d}" }
}
`, instances*perInstance, perInstance, perInstance)})
	}
	return writeTree(tb, map[string]string{
		"main.pier.hcl": head + fmt.Sprintf(`module "site" {
  source    = "./mod"
  count     = %d
  name      = "site-${count.index}"
  state     = resource.state
  providers = { local = provider.local }
}
`, instances),
		"mod/main.pier.hcl": fmt.Sprintf(`variable "state" {}
variable "name" { type = string }
resource "m" {
  count    = %d
  provider = provider.local
  type     = "memo"
  state    = var.state
  inputs   = { initialize_with = "${var.name}-${count.index}" }
}
`, perInstance),
	})
}

// benchmarkModulePlan is what a plan asks of the source: a Load and a
// first Resolve.
func benchmarkModulePlan(b *testing.B, instances, perInstance int, flat bool) {
	dir := moduleDeployment(b, instances, perInstance, flat)
	b.ReportAllocs()
	for b.Loop() {
		d, err := Load(dir, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := d.Resolve(b.Context(), nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkModules compares 1000 memos flat with the same memos in 100
// module instances, and module instances at three sizes, whose cost must
// grow linearly.
func BenchmarkModules(b *testing.B) {
	b.Run("flat1000", func(b *testing.B) { benchmarkModulePlan(b, 100, 10, true) })
	b.Run("modules100x10", func(b *testing.B) { benchmarkModulePlan(b, 100, 10, false) })
	for _, n := range []int{250, 500, 1000} {
		b.Run(fmt.Sprintf("instances%d", n), func(b *testing.B) { benchmarkModulePlan(b, n, 1, false) })
	}
}
