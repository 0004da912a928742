package provider

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pierhq/pier/schema"
)

// TestEncodeRequest: each request encodes to json.Marshal's bytes, and a
// later encoding, into the same pooled buffer or a larger one, leaves an
// earlier result as it was.
func TestEncodeRequest(t *testing.T) {
	t.Parallel()
	small := &schema.Request{CreateResourceRequest: &schema.CreateResourceRequest{
		Type: "time_static", InputProperties: schema.Properties{"triggers": map[string]any{"index": "7"}}, IsStateful: true,
	}}
	large := &schema.Request{StateResourceEvent: &schema.StateResourceEvent{
		Resource: schema.ExtantResource{Type: "state_file", InputProperties: schema.Properties{"name": "state.json"}},
		Event:    "create",
		Patch:    schema.Patch{{Op: "add", Path: "/resources/f", Value: json.RawMessage(`"` + strings.Repeat("x", maxPooledBuffer) + `"`)}},
	}}
	type encoded struct {
		req  *schema.Request
		data []byte
	}
	var done []encoded
	for _, req := range []*schema.Request{small, large, small, small, large} {
		data, err := encodeRequest(req)
		if err != nil {
			t.Fatalf("encodeRequest: %v", err)
		}
		done = append(done, encoded{req, data})
	}
	for i, e := range done {
		want, err := json.Marshal(e.req)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(want), string(e.data)); diff != "" {
			t.Errorf("request %d (-json.Marshal +encodeRequest):\n%s", i, diff)
		}
		if got := string(frame(e.data)); got != string(want)+"\n" {
			t.Errorf("request %d: frame is %q, want the encoding and a newline", i, got)
		}
	}
	if _, err := encodeRequest(&schema.Request{CreateResourceRequest: &schema.CreateResourceRequest{
		Type: "t", InputProperties: schema.Properties{"n": json.Number("1.2.3")},
	}}); err == nil {
		t.Error("encodeRequest of an invalid number: no error")
	}
}

func TestFrame(t *testing.T) {
	withNewline := []byte("{}\nx")
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"no room", []byte("{}"), "{}"},
		{"newline in capacity", withNewline[:2], "{}\n"},
		{"something else after", append(make([]byte, 0, 8), "{}x"...)[:2], "{}"},
	} {
		if got := string(frame(tc.data)); got != tc.want {
			t.Errorf("%s: frame is %q, want %q", tc.name, got, tc.want)
		}
	}
}
