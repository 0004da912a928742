package terraform_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pierhq/pier/schema"
	"github.com/pierhq/pier/schema/logkey"
)

// TestCallsCarryRequestID: every Terraform plugin call the bridge makes
// for a v0 request is logged with that request's request_id, the number
// providersdk gives the request and pier logs for it, so that a Terraform
// provider's calls can be matched with pier's log. Calls made before any
// request (the schema, at start) carry none.
func TestCallsCarryRequestID(t *testing.T) {
	t.Parallel()
	b := startBridge(t, providerBin(t, "terraform-provider-time"), bridgeOpts{})
	in := schema.Properties{"triggers": map[string]any{"k": "1"}}
	created := ok(t, b.create("time_static", in)).CreateResourceResponse.OutputProperties
	ok(t, b.read("time_static", in, created))
	ok(t, b.destroy("time_static", in, created))
	if code := b.exitCode(); code != 0 {
		t.Fatalf("bridge exited %d; stderr:\n%s", code, b.stderr)
	}

	var requests []float64
	calls := map[float64][]string{} // request_id -> the calls made for it
	current := 0.0                  // the request being served, from the SDK's line
	for line := range strings.Lines(b.stderr.String()) {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) != nil {
			continue // the Terraform provider's own plain lines
		}
		id, hasID := rec[logkey.RequestID].(float64)
		switch rec["msg"] {
		case "request":
			requests = append(requests, id)
			current = id
		case "call":
			call, _ := rec[logkey.Call].(string)
			if !hasID {
				if current != 0 {
					t.Errorf("call %q made while serving request %v has no %s", call, current, logkey.RequestID)
				}
				continue
			}
			if id != current {
				t.Errorf("call %q logged with %s=%v while serving request %v", call, logkey.RequestID, id, current)
			}
			calls[id] = append(calls[id], call)
		}
	}
	if diff := cmp.Diff([]float64{1, 2, 3}, requests); diff != "" {
		t.Errorf("request ids providersdk logged (-want +got):\n%s", diff)
	}
	for _, id := range requests {
		if len(calls[id]) == 0 {
			t.Errorf("request %v: no call logged with its %s; stderr:\n%s", id, logkey.RequestID, b.stderr)
		}
	}
}
