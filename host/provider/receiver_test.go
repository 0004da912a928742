package provider

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pierhq/pier/internal/testbin"
	"github.com/pierhq/pier/schema"
)

// TestReceiverValidates: a request is validated once, by its receiver when
// that is one of pier's own adapters, and by the host before sending it
// otherwise; either way a malformed request is refused with an error that
// names the provider and the resource, and a valid one is served.
func TestReceiverValidates(t *testing.T) {
	t.Parallel()
	invalid := &schema.Request{CreateResourceRequest: &schema.CreateResourceRequest{Type: "memo"}} // inputProperties null
	valid := &schema.Request{CreateResourceRequest: &schema.CreateResourceRequest{Type: "memo", InputProperties: schema.Properties{"initialize_with": "v"}, IsStateful: true}}
	cases := map[string]struct {
		cfg func(t *testing.T, requestLog string) Config
		// wantResponse says the refusal is the provider's errorResponse,
		// not the host's own check.
		wantResponse bool
		wantSent     bool
	}{
		"pier adapter validates on receipt": {
			cfg: func(t *testing.T, _ string) Config {
				return Config{Name: "mine", Executable: testbin.Pier(t), Args: []string{"adapter", "local"}, Dir: t.TempDir(), ReceiverValidates: true}
			},
			wantResponse: true,
		},
		"third-party provider: the host validates before sending": {
			cfg: func(t *testing.T, requestLog string) Config {
				return Config{Name: "mine", Executable: testProvider(t, "python/provider.py", "python3"), Env: map[string]string{"PIER_TEST_REQUEST_LOG": requestLog}}
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			requestLog := filepath.Join(t.TempDir(), "requests")
			p, err := Start(t.Context(), tc.cfg(t, requestLog))
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			_, err = p.Call(t.Context(), "web.bad", invalid)
			if err == nil || !strings.Contains(err.Error(), "invalid request createResourceRequest") || !strings.Contains(err.Error(), `"mine"`) || !strings.Contains(err.Error(), "web.bad") {
				t.Fatalf("Call(invalid) = %v, want an invalid request error naming provider \"mine\" and web.bad", err)
			}
			var re *ResponseError
			if got := errors.As(err, &re); got != tc.wantResponse {
				t.Errorf("Call(invalid) = %v (%T): errorResponse %v, want %v", err, err, got, tc.wantResponse)
			}
			if _, err := os.Stat(requestLog); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the third-party provider received the invalid request (%v)", err)
			}
			if !tc.wantResponse {
				return
			}
			// The process stays usable: the refusal was an answer.
			if _, err := p.Call(t.Context(), "web.good", valid); err != nil {
				t.Errorf("Call(valid) after the refusal = %v", err)
			}
		})
	}
}
