package terraform_test

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/pierhq/pier/adapters/terraform"
	"github.com/pierhq/pier/schema"
)

// BenchmarkPreviewCreate measures the bridge's per-request path in this
// process against the real terraform-provider-time: what a fresh apply of
// one time_static asks of a bridge, a create preview and the create that
// takes its plan. ns/op includes the provider's work (one validate, one
// plan, one apply); allocs/op are the bridge's and its gRPC client's.
func BenchmarkPreviewCreate(b *testing.B) {
	ctx := context.Background()
	br, err := terraform.New(ctx, terraform.Options{Plugin: providerBin(b, "terraform-provider-time")})
	if err != nil {
		b.Fatal(err)
	}
	defer br.Close()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		// Inputs as the host sends them: decoded from JSON, numbers as
		// json.Number.
		in := schema.Properties{"triggers": map[string]any{"index": json.Number(strconv.Itoa(i))}}
		p, err := br.Preview(ctx, &schema.PreviewResourceRequest{Type: "time_static", InputProperties: in, IsStateful: true})
		if err != nil || len(p.Diagnostics) > 0 {
			b.Fatalf("preview: %v %v", err, p.Diagnostics)
		}
		if _, err := br.Create(ctx, &schema.CreateResourceRequest{Type: "time_static", InputProperties: in, IsStateful: true}); err != nil {
			b.Fatalf("create: %v", err)
		}
	}
}
