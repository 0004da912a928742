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
	// The first event that reaches into the resources decodes them: the
	// log keeps a value it was given encoded until then.
	if _, err := p.StateEvent(b.Context(), event); err != nil {
		b.Fatal(err)
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

// BenchmarkStateEventCreate records what the engine records for each
// resource an apply creates, as it sends it (members in its own order,
// not sorted): the pending operation, then the resource in one event that
// also removes the pending operation. Its memory is most of the local
// adapter's during a fresh apply of bridged resources.
func BenchmarkStateEventCreate(b *testing.B) {
	dir := b.TempDir()
	p := local.New(local.Options{Dir: dir})
	b.Cleanup(func() {
		if err := p.Close(); err != nil {
			b.Error(err)
		}
	})
	res := schema.ExtantResource{Type: "state_file", InputProperties: schema.Properties{"name": filepath.Join(dir, "state.json")}}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		addr := fmt.Sprintf("t[%d]", i)
		i++
		pending := &schema.StateResourceEvent{Resource: res, Event: "pending", NixopsVersion: "bench", Patch: schema.Patch{
			{Op: "add", Path: "/pierPendingOperations/" + addr, Value: json.RawMessage(`{"operation":"create","provider":"time","type":"time_static","started":"2026-12-04T03:48:22.619817667Z","input_properties":{"triggers":{"index":` + fmt.Sprint(i) + `}}}`)},
		}}
		if i == 1 {
			pending.Patch = append(schema.Patch{{Op: "add", Path: "/pierPendingOperations", Value: json.RawMessage(`{}`)}}, pending.Patch...)
		}
		if _, err := p.StateEvent(b.Context(), pending); err != nil {
			b.Fatal(err)
		}
		created := &schema.StateResourceEvent{Resource: res, Event: "create", NixopsVersion: "bench", Patch: schema.Patch{
			{Op: "add", Path: "/resources/" + addr, Value: json.RawMessage(`{"type":"time_static","input_properties":{"triggers":{"index":` + fmt.Sprint(i) + `}},"output_properties":{"__tf":{"schema_version":0},"day":4,"hour":3,"id":"2026-12-04T03:48:23Z","minute":48,"month":12,"rfc3339":"2026-12-04T03:48:23Z","second":23,"triggers":{"index":"9"},"unix":1796356103,"year":2026},"provider":"time","dependencies":["state"]}`)},
			{Op: "remove", Path: "/pierPendingOperations/" + addr},
		}}
		if _, err := p.StateEvent(b.Context(), created); err != nil {
			b.Fatal(err)
		}
	}
}
