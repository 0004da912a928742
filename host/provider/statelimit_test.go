package provider

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pierhq/pier/internal/testneed"
	"github.com/pierhq/pier/schema"
)

// TestStateReadLimit checks that a state read may answer with a line
// larger than any other response: it carries the whole state, which pier
// lets grow to schema.MaxStateSize. The same line answering a create is a
// runaway provider.
func TestStateReadLimit(t *testing.T) {
	t.Parallel()
	testneed.Tool(t, "sh")
	blob := strings.Repeat("x", 5000)
	// Every request gets the answer of its kind, carrying blob.
	script := `while read -r line; do
  case "$line" in
    *stateResourceReadRequest*) printf '{"stateResourceReadResponse":{"state":{"_type":"nixopsState","blob":"` + blob + `"}}}\n' ;;
    *) printf '{"createResourceResponse":{"outputProperties":{"blob":"` + blob + `"}}}\n' ;;
  esac
done
`
	path := filepath.Join(t.TempDir(), "big.sh")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		maxState int
		wantErr  bool // the state read fails too
	}{
		"state read above the frame limit": {maxState: 100_000},
		"state read above its own limit":   {maxState: 2000, wantErr: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p, err := Start(t.Context(), Config{Name: "big", Executable: "sh", Args: []string{path}, MaxFrame: 1000, MaxStateFrame: tc.maxState, Timeout: time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			resp, err := p.StateRead(t.Context(), "state", &schema.StateResourceReadRequest{Resource: schema.ExtantResource{Type: "s", InputProperties: schema.Properties{}}})
			if tc.wantErr {
				var pe *Error
				if !errors.As(err, &pe) || pe.Kind != KindTooLarge {
					t.Fatalf("StateRead error = %v, want a KindTooLarge *Error", err)
				}
				if !strings.Contains(err.Error(), "2000 byte limit") || !strings.Contains(err.Error(), "schema.MaxStateSize") {
					t.Errorf("error %q does not name the state read's limit", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("StateRead: %v", err)
			}
			if got, _ := resp.State["blob"].(string); got != blob {
				t.Errorf("state blob is %d bytes, want %d", len(got), len(blob))
			}
			_, err = p.Create(t.Context(), "r", &schema.CreateResourceRequest{Type: "t", InputProperties: schema.Properties{}})
			var pe *Error
			if !errors.As(err, &pe) || pe.Kind != KindTooLarge {
				t.Errorf("Create error = %v, want KindTooLarge: only a state read may exceed the frame limit", err)
			}
		})
	}
}

// TestCallSized checks that a pool reports the length of the response
// line, which the engine takes as the size of a state it read.
func TestCallSized(t *testing.T) {
	t.Parallel()
	testneed.Tool(t, "sh")
	line := `{"stateResourceReadResponse":{"state":{"_type":"nixopsState"}}}`
	path := filepath.Join(t.TempDir(), "state.sh")
	if err := os.WriteFile(path, []byte("while read -r l; do printf '%s\\n' '"+line+"'; done\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pl := NewPool(Config{Name: "s", Executable: "sh", Args: []string{path}, Timeout: time.Minute}, 1)
	defer pl.Close()
	_, n, err := pl.CallSized(t.Context(), "state", &schema.Request{StateResourceReadRequest: &schema.StateResourceReadRequest{Resource: schema.ExtantResource{Type: "s", InputProperties: schema.Properties{}}}})
	if err != nil {
		t.Fatal(err)
	}
	if n != len(line) {
		t.Errorf("CallSized size = %d, want %d", n, len(line))
	}
}
