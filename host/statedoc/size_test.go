package statedoc

import (
	"errors"
	"strings"
	"testing"

	"github.com/pierhq/pier/schema"
)

// TestStateSizeLimit checks that a change that would grow a state past
// what a state read returns is refused before anything is written, naming
// the resource and the sizes, and that the rest of the batch goes on.
func TestStateSizeLimit(t *testing.T) {
	t.Parallel()
	big := map[string]any{"data": strings.Repeat("x", 1000)}
	cases := map[string]struct {
		size, limit int64 // the state as read, and its limit
		refused     bool
	}{
		"fits":                   {size: 100, limit: 5000},
		"pushes the state past":  {size: 4500, limit: 5000, refused: true},
		"state read at the edge": {size: 5000, limit: 5000, refused: true},
		"default limit":          {size: 1 << 20, limit: schema.MaxStateSize},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			v, err := Decode("state", map[string]any{"_type": "nixopsState", "resources": map[string]any{}})
			if err != nil {
				t.Fatal(err)
			}
			v.size = tc.size
			doc := v.Stored()
			doc.limit = tc.limit
			pb := &PatchBuilder{doc: doc}
			err = pb.Put(addr(t, "blob"), Entry{Type: "blob", InputProperties: map[string]any{}, OutputProperties: big})
			var tooLarge *StateTooLargeError
			if got := errors.As(err, &tooLarge); got != tc.refused {
				t.Fatalf("put error = %v, refused = %v, want %v", err, got, tc.refused)
			}
			if !tc.refused {
				if len(pb.ops) != 1 {
					t.Errorf("ops = %v, want one add", pb.ops)
				}
				return
			}
			for _, want := range []string{"blob:", "held by state", "schema.MaxStateSize"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
			if len(pb.ops) != 0 || doc.entries["blob"] {
				t.Errorf("a refused put changed the patch (%v) or the stored view", pb.ops)
			}
			// A small change still fits in the same batch.
			if err := pb.Put(addr(t, "small"), Entry{Type: "memo", InputProperties: map[string]any{}}); err != nil && tc.size < tc.limit-100 {
				t.Errorf("small put after a refused one: %v", err)
			}
		})
	}
}

// TestStateSizeLimitIntent checks that a create whose inputs alone would
// grow the state too far is refused when its intent is recorded: before
// the provider is asked to create anything.
func TestStateSizeLimitIntent(t *testing.T) {
	t.Parallel()
	v, err := Decode("state", map[string]any{"_type": "nixopsState", "resources": map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	v.size = 100
	doc := v.Stored()
	doc.limit = 1000
	pb := &PatchBuilder{doc: doc}
	err = pb.PutPending(addr(t, "blob"), PendingOperation{Operation: PendingCreate, Provider: "p", Type: "blob", InputProperties: map[string]any{"contents": strings.Repeat("x", 2000)}})
	var tooLarge *StateTooLargeError
	if !errors.As(err, &tooLarge) {
		t.Fatalf("putPending error = %v, want *StateTooLargeError", err)
	}
	if len(pb.ops) != 0 {
		t.Errorf("a refused intent left operations %v", pb.ops)
	}
}
