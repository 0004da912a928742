package provider

import (
	"testing"

	"github.com/pierhq/pier/schema"
)

// BenchmarkProcessCreate measures one request/response round trip through
// a real provider process (the Python test provider), including schema
// validation both ways and the extra-output and stderr checks. The
// provider's own work dominates; the number bounds pier's per-call cost.
func BenchmarkProcessCreate(b *testing.B) {
	exe := testProvider(b, "python/provider.py", "python3")
	p, err := Start(b.Context(), Config{Name: "py", Executable: exe})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	req := &schema.CreateResourceRequest{Type: "greeting", InputProperties: schema.Properties{"name": "bench"}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.Create(b.Context(), "bench", req); err != nil {
			b.Fatal(err)
		}
	}
}
