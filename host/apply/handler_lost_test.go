package apply

import (
	"testing"

	"github.com/pierhq/pier/host/plan"
	"github.com/pierhq/pier/host/statedoc"
	"github.com/pierhq/pier/schema"
)

// TestAlreadyRecorded: after a lost state handler, an outcome counts as
// recorded by the lost process only when the state read again holds
// exactly it, with nothing pending for the object.
func TestAlreadyRecorded(t *testing.T) {
	t.Parallel()
	entry := func(id string) map[string]any {
		return map[string]any{"type": "obj", "input_properties": map[string]any{"name": "a"}, "output_properties": map[string]any{"id": id}, "provider": "obj"}
	}
	put := func(id string) func(*statedoc.PatchBuilder) error {
		return func(pb *statedoc.PatchBuilder) error {
			return pb.Put(addr(t, "a"), statedoc.Entry{Type: "obj", InputProperties: map[string]any{"name": "a"}, OutputProperties: map[string]any{"id": id}, Provider: "obj"})
		}
	}
	remove := func(pb *statedoc.PatchBuilder) error { pb.Remove(addr(t, "a")); return nil }
	pending := map[string]any{"a": map[string]any{"operation": "create", "provider": "obj", "type": "obj", "started": "2026-12-01T00:00:00Z"}}
	tests := map[string]struct {
		resources map[string]any
		pending   map[string]any
		event     string
		build     func(*statedoc.PatchBuilder) error
		want      bool
	}{
		"the same object":            {resources: map[string]any{"a": entry("a.0")}, event: "create", build: put("a.0"), want: true},
		"another object":             {resources: map[string]any{"a": entry("a.1")}, event: "create", build: put("a.0")},
		"not recorded, still intent": {resources: map[string]any{}, pending: pending, event: "create", build: put("a.0")},
		"recorded, intent again":     {resources: map[string]any{"a": entry("a.0")}, pending: pending, event: "create", build: put("a.0")},
		"destroy recorded":           {resources: map[string]any{}, event: "destroy", build: remove, want: true},
		"destroy not recorded":       {resources: map[string]any{"a": entry("a.0")}, event: "destroy", build: remove},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			doc := map[string]any{"_type": "nixopsState", "resources": tc.resources, "deployments": map[string]any{}}
			if tc.pending != nil {
				doc[schema.PendingOperationsKey] = tc.pending
			}
			view, err := statedoc.Decode("state", doc)
			if err != nil {
				t.Fatal(err)
			}
			u := unrecorded{handler: "state", change: &plan.Change{Address: addr(t, "a")}, event: tc.event, build: tc.build}
			if got := alreadyRecorded(view, u); got != tc.want {
				t.Errorf("alreadyRecorded = %v, want %v", got, tc.want)
			}
		})
	}
}
