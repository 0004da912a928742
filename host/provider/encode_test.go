package provider

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pierhq/pier/schema"
)

// TestEncodeRequest: each request encodes to json.Marshal's bytes, with
// the frame's newline after them; a later encoding, into a buffer given
// back or a new one, leaves an earlier result that is still held as it
// was; and a buffer given back serves a later request.
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
		buf  *[]byte
	}
	check := func(t *testing.T, i int, e encoded) {
		t.Helper()
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
	var done []encoded
	for i, req := range []*schema.Request{small, large, small, small, large, small} {
		data, buf, err := encodeRequest(req)
		if err != nil {
			t.Fatalf("encodeRequest: %v", err)
		}
		done = append(done, encoded{req, data, buf})
		if i%2 == 1 {
			// Give an earlier one back: the next encoding may reuse
			// its buffer, and must not touch the others.
			r := request{data: done[i-1].data, buf: done[i-1].buf}
			check(t, i-1, done[i-1])
			r.release()
			done[i-1].data = nil
		}
	}
	for i, e := range done {
		if e.data != nil {
			check(t, i, e)
		}
	}
	if _, buf, err := encodeRequest(&schema.Request{CreateResourceRequest: &schema.CreateResourceRequest{
		Type: "t", InputProperties: schema.Properties{"n": json.Number("1.2.3")},
	}}); err == nil || buf != nil {
		t.Errorf("encodeRequest of an invalid number: error %v, buffer %v; want an error and no buffer", err, buf)
	}
}

// TestEncodeRequestReusesBuffer: once requests give their buffers back,
// encoding one allocates nothing. Not parallel: testing.AllocsPerRun
// counts the whole process's.
func TestEncodeRequestReusesBuffer(t *testing.T) { //nolint:paralleltest // AllocsPerRun
	req := &schema.Request{CreateResourceRequest: &schema.CreateResourceRequest{
		Type: "time_static", InputProperties: schema.Properties{"triggers": map[string]any{"index": "7"}}, IsStateful: true,
	}}
	encode := func() {
		data, buf, err := encodeRequest(req)
		if err != nil {
			t.Fatal(err)
		}
		r := request{data: data, buf: buf}
		r.release()
	}
	encode()
	// The race detector's sync.Pool drops some of what is put back:
	// under it the count means nothing, and only the encoding runs.
	if n := testing.AllocsPerRun(100, encode); n > 0 && !raceEnabled {
		t.Errorf("encodeRequest with its buffer given back: %v allocations, want 0", n)
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
