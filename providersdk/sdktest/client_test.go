package sdktest_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pierhq/pier/providersdk"
	"github.com/pierhq/pier/providersdk/sdktest"
	"github.com/pierhq/pier/schema"
)

// counter answers every create with the number of creates so far, and
// fails if two calls ever overlap.
type counter struct {
	mu         sync.Mutex
	busy       bool
	n          int
	overlapped bool
}

func (c *counter) Create(context.Context, *schema.CreateResourceRequest) (*schema.CreateResourceResponse, error) {
	c.mu.Lock()
	if c.busy {
		c.overlapped = true
	}
	c.busy = true
	c.n++
	n := c.n
	c.mu.Unlock()
	defer func() { c.mu.Lock(); c.busy = false; c.mu.Unlock() }()
	return &schema.CreateResourceResponse{OutputProperties: schema.Properties{"n": n}}, nil
}

func (c *counter) Update(context.Context, *schema.UpdateResourceRequest) (*schema.UpdateResourceResponse, error) {
	return nil, errors.New("not supported")
}

func TestConcurrentCallsAreSerialised(t *testing.T) {
	t.Parallel()
	h := &counter{}
	c := sdktest.Start(t, h, providersdk.Options{})
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			resp, err := c.Call(&schema.Request{CreateResourceRequest: &schema.CreateResourceRequest{Type: "t", InputProperties: schema.Properties{}}})
			if err != nil || resp.CreateResourceResponse == nil {
				t.Errorf("Call = %+v, %v", resp, err)
			}
		})
	}
	wg.Wait()
	if h.n != 20 || h.overlapped {
		t.Errorf("creates = %d, overlapped = %v; want 20 serial creates", h.n, h.overlapped)
	}
}

func TestCallErrorResponses(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		req  *schema.Request
		want *schema.Response
	}{
		"error response is a response": {
			req:  &schema.Request{UpdateResourceRequest: &schema.UpdateResourceRequest{Resource: schema.ExtantResource{Type: "t", InputProperties: schema.Properties{}}, InputProperties: schema.Properties{}}},
			want: &schema.Response{ErrorResponse: &schema.ErrorResponse{Message: "update t: not supported"}},
		},
		"empty request": {
			req:  &schema.Request{},
			want: &schema.Response{ErrorResponse: &schema.ErrorResponse{Message: "invalid request: at /: exactly one key, got 0 ()"}},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := sdktest.Start(t, &counter{}, providersdk.Options{})
			got, err := c.Call(tc.req)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("response (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCloseReportsServeError(t *testing.T) {
	t.Parallel()
	c := sdktest.Start(t, &counter{}, providersdk.Options{MaxLineSize: 10})
	if _, err := c.CallLine([]byte(strings.Repeat("x", 11))); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("Close after a clean run = %v, want nil", err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close = %v, want the same nil", err)
	}
}
