package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pierhq/pier/internal/testbin"
	"github.com/pierhq/pier/schema"
	"github.com/pierhq/pier/schema/logkey"
)

// recordHandler keeps every record it is given, with the attributes added
// by With, as a map from key to value.
type recordHandler struct {
	mu    *sync.Mutex
	recs  *[]map[string]any
	attrs []slog.Attr
	// sdkRequest receives, without blocking, a signal per stderr line in
	// which providersdk logged a request.
	sdkRequest chan struct{}
}

func newRecordHandler() *recordHandler {
	return &recordHandler{mu: new(sync.Mutex), recs: new([]map[string]any), sdkRequest: make(chan struct{}, 16)}
}

func (h *recordHandler) Enabled(context.Context, slog.Level) bool { return true }

func (h *recordHandler) Handle(_ context.Context, r slog.Record) error {
	rec := map[string]any{"msg": r.Message}
	for _, a := range h.attrs {
		rec[a.Key] = a.Value.Any()
	}
	r.Attrs(func(a slog.Attr) bool {
		rec[a.Key] = a.Value.Any()
		return true
	})
	h.mu.Lock()
	*h.recs = append(*h.recs, rec)
	h.mu.Unlock()
	if sdkLine(r.Message)["msg"] == "request" {
		select {
		case h.sdkRequest <- struct{}{}:
		default:
		}
	}
	return nil
}

func (h *recordHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	c := *h
	c.attrs = append(slices.Clip(h.attrs), attrs...)
	return &c
}

func (h *recordHandler) WithGroup(string) slog.Handler { return h }

func (h *recordHandler) records() []map[string]any {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(*h.recs)
}

// sdkLine decodes a forwarded stderr line that providersdk's JSON logger
// wrote, or returns nil for any other message.
func sdkLine(msg string) map[string]any {
	if !strings.HasPrefix(msg, "{") {
		return nil
	}
	var line map[string]any
	if json.Unmarshal([]byte(msg), &line) != nil {
		return nil
	}
	return line
}

// TestRequestIDs: each request pier sends a provider process is logged
// with its request_id, numbered from 1 in that process, as are its
// response and the stderr lines the provider wrote while serving it. The
// provider here is pier's own local adapter, a real subprocess built on
// providersdk, which logs the same number for the request it serves: the
// stderr line and pier's attribute agree, so the two logs can be matched.
func TestRequestIDs(t *testing.T) {
	t.Parallel()
	h := newRecordHandler()
	p, err := Start(t.Context(), Config{
		Name: "local", Executable: testbin.Pier(t), Args: []string{"adapter", "local"}, Dir: t.TempDir(),
		Env: map[string]string{"PIER_LOG": "debug"}, Logger: slog.New(h), ReceiverValidates: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	const calls = 3
	for i := range calls {
		req := &schema.Request{CreateResourceRequest: &schema.CreateResourceRequest{Type: "memo", InputProperties: schema.Properties{"initialize_with": "v"}, IsStateful: true}}
		if _, err := p.Call(t.Context(), fmt.Sprintf("web.m%d", i), req); err != nil {
			t.Fatal(err)
		}
		// The provider's line about this request is forwarded before the
		// next request is sent, so no line can be taken for the next one.
		select {
		case <-h.sdkRequest:
		case <-t.Context().Done():
			t.Fatal(t.Context().Err())
		}
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}

	type call struct {
		Msg      string
		ID       any
		Resource any
	}
	var got, want []call
	for i := range calls {
		id, res := int64(i+1), fmt.Sprintf("web.m%d", i)
		want = append(want, call{"request", id, res}, call{"response", id, res})
	}
	matched := 0
	for _, rec := range h.records() {
		if rec[logkey.Provider] != "local" {
			t.Errorf("record %v lacks provider=local", rec)
		}
		switch msg := rec["msg"].(string); msg {
		case "request", "response":
			got = append(got, call{msg, rec[logkey.RequestID], rec[logkey.Resource]})
		default:
			line := sdkLine(msg)
			if line["msg"] != "request" {
				continue
			}
			// JSON numbers decode as float64; pier's attribute is an int64.
			sdkID, ok := line[logkey.RequestID].(float64)
			if !ok {
				t.Errorf("providersdk's request line %s has no %s", msg, logkey.RequestID)
				continue
			}
			if id, ok := rec[logkey.RequestID]; ok {
				if id != int64(sdkID) {
					t.Errorf("stderr line %s logged with %s=%v, want the provider's own %v", msg, logkey.RequestID, id, sdkID)
				}
				matched++
			}
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("request and response records (-want +got):\n%s", diff)
	}
	// A line the forwarder reads only after its request's answer (on a
	// very loaded machine) is logged without a request_id, never with
	// another's; most are read while their request is in flight.
	if matched == 0 {
		t.Errorf("no forwarded providersdk request line carried pier's %s; records:\n%v", logkey.RequestID, h.records())
	}
}
