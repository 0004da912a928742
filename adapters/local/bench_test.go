package local_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/pierhq/pier/adapters/local"
	"github.com/pierhq/pier/schema"
)

// benchmarkStateEvent records one small event into a state that already
// holds n resources. Its cost must not grow with n: an event costs what its
// patch costs (plus the fsync), never a pass over the whole state.
func benchmarkStateEvent(b *testing.B, n int) {
	dir := b.TempDir()
	p := local.New(local.Options{Dir: dir})
	b.Cleanup(func() {
		if err := p.Close(); err != nil {
			b.Error(err)
		}
	})
	res := schema.ExtantResource{Type: "state_file", InputProperties: schema.Properties{"name": filepath.Join(dir, "state.json")}}

	all := make(map[string]any, n)
	for i := range n {
		all[fmt.Sprintf("r%d", i)] = map[string]any{"type": "memo", "inputProperties": map[string]any{"initialize_with": i}, "outputProperties": map[string]any{"value": i}}
	}
	value, err := json.Marshal(all)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := p.StateEvent(b.Context(), &schema.StateResourceEvent{
		Resource: res, Event: "create", NixopsVersion: "bench",
		Patch: schema.Patch{{Op: "replace", Path: "/resources", Value: value}},
	}); err != nil {
		b.Fatal(err)
	}
	event := &schema.StateResourceEvent{
		Resource: res, Event: "update", NixopsVersion: "bench",
		Patch: schema.Patch{{Op: "replace", Path: "/resources/r0/outputProperties/value", Value: json.RawMessage(`42`)}},
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.StateEvent(b.Context(), event); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStateEvent1000(b *testing.B)   { benchmarkStateEvent(b, 1000) }
func BenchmarkStateEvent100000(b *testing.B) { benchmarkStateEvent(b, 100000) }
