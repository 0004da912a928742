package providersdk_test

import (
	"strings"
	"testing"

	"github.com/pierhq/pier/providersdk"
)

// BenchmarkServeIO measures the whole per-request path: framing, request
// and response validation, decoding and dispatch.
func BenchmarkServeIO(b *testing.B) {
	line := `{"createResourceRequest":{"type":"t","inputProperties":{"value":"` + strings.Repeat("x", 1000) + `"},"isStateful":false}}` + "\n"
	in := strings.Repeat(line, 100)
	b.ReportAllocs()
	for b.Loop() {
		var out strings.Builder
		if err := providersdk.ServeIO(b.Context(), echo{}, strings.NewReader(in), &out, providersdk.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
