package terraform_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
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
// "attached" is a bridge as pier's engine runs it, on a provider a
// holder started; "started" one that starts its own.
func BenchmarkPreviewCreate(b *testing.B) {
	b.Run("attached", func(b *testing.B) { benchmarkPreviewCreate(b, heldBridge(b)) })
	b.Run("started", func(b *testing.B) {
		br, err := terraform.New(b.Context(), terraform.Options{Plugin: providerBin(b, "terraform-provider-time")})
		if err != nil {
			b.Fatal(err)
		}
		defer br.Close()
		benchmarkPreviewCreate(b, br)
	})
}

func benchmarkPreviewCreate(b *testing.B, br *terraform.Bridge) {
	ctx := context.Background()
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

// heldBridge is a bridge attached to terraform-provider-time as [Hold]
// lends it, over the holder protocol on pipes; both end with the
// benchmark.
func heldBridge(b *testing.B) *terraform.Bridge {
	b.Helper()
	plugin := providerBin(b, "terraform-provider-time")
	in, toHold := io.Pipe()
	fromHold, out := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := terraform.Hold(context.Background(), terraform.Options{Plugin: plugin}, in, out)
		out.CloseWithError(io.EOF)
		done <- err
	}()
	lines := bufio.NewReader(fromHold)
	var first struct {
		Attach *terraform.Attachment `json:"attach"`
	}
	line, err := lines.ReadBytes('\n')
	if err != nil || json.Unmarshal(line, &first) != nil || first.Attach == nil {
		b.Fatalf("the holder's first line: %q (%v)", line, err)
	}
	if _, err := io.WriteString(toHold, `{"configure":true}`+"\n"); err != nil {
		b.Fatal(err)
	}
	if line, err := lines.ReadBytes('\n'); err != nil || string(line) != `{"configured":true}`+"\n" {
		b.Fatalf("configure: %q (%v)", line, err)
	}
	br, err := terraform.New(context.Background(), terraform.Options{Plugin: plugin, Attach: first.Attach})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		br.Close()
		toHold.Close()
		if err := <-done; err != nil {
			b.Errorf("Hold: %v", err)
		}
	})
	return br
}
