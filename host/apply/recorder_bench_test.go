package apply_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/pierhq/pier/adapters/builtin"
	"github.com/pierhq/pier/host/apply"
	"github.com/pierhq/pier/host/engine"
	"github.com/pierhq/pier/host/hclsource"
	"github.com/pierhq/pier/host/plan"
	"github.com/pierhq/pier/internal/testbin"
)

// benchmarkFreshApply applies n independent memos into an empty
// state_file: the cost of recording, intents and outcomes, against
// the provider calls. It reports the events the apply appended per
// resource: each event is one sync, so fewer means group commit batched
// more.
func benchmarkFreshApply(b *testing.B, n int) {
	dir := b.TempDir()
	hcl := fmt.Sprintf(`
provider "local" { builtin = "local" }
resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "state.json" }
}
resource "m" {
  count    = %d
  provider = provider.local
  type     = "memo"
  state    = resource.state
  inputs   = { initialize_with = "value-${count.index}" }
}
`, n)
	if err := os.WriteFile(filepath.Join(dir, "main.pier.hcl"), []byte(hcl), 0o644); err != nil {
		b.Fatal(err)
	}
	state := filepath.Join(dir, "state.json")
	events := 0
	cpu0 := cpuTime()
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		os.Remove(state)
		src, err := hclsource.Load(dir, hclsource.Options{})
		if err != nil {
			b.Fatal(err)
		}
		e := engine.New(engine.Config{Source: src, Dir: dir, PierExecutable: testbin.Pier(b), Builtins: builtin.Capabilities})
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
		data, err := os.ReadFile(state)
		if err != nil {
			b.Fatal(err)
		}
		events += bytes.Count(data, []byte("\n")) - 1 // less the initial event
		b.StartTimer()
	}
	b.ReportMetric(float64(events)/float64(b.N)/float64(n), "events/resource")
	// CPU of pier and its providers (reaped when the engine closes),
	// planning included: on a shared machine it moves less than wall
	// time does.
	b.ReportMetric(float64((cpuTime()-cpu0).Milliseconds())/float64(b.N), "cpu-ms/op")
}

// cpuTime is the user and system time of this process and of its
// children that have exited.
func cpuTime() time.Duration {
	var total time.Duration
	for _, who := range []int{syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN} {
		var ru syscall.Rusage
		if err := syscall.Getrusage(who, &ru); err == nil {
			total += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		}
	}
	return total
}

func BenchmarkFreshApply1000(b *testing.B) { benchmarkFreshApply(b, 1000) }
