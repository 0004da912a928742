package statedoc

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pierhq/pier/host/source"
)

// TestPendingPatches checks the patches that record and clear intents:
// the container comes with the first intent and goes with the last, and
// the record of an outcome clears its intent in the same patch.
func TestPendingPatches(t *testing.T) {
	t.Parallel()
	a := source.Address{{Name: "a"}}
	b := source.Address{{Name: "b/c"}}
	intent := PendingOperation{Operation: PendingCreate, Provider: "p", Type: "t", Started: "2026-12-01T12:00:00Z"}
	tests := map[string]struct {
		pending []string // recorded before
		build   func(pb *PatchBuilder) error
		want    []string // op path
	}{
		"first intent adds the container": {
			build: func(pb *PatchBuilder) error { return pb.PutPending(a, intent) },
			want:  []string{"add /pierPendingOperations", "add /pierPendingOperations/a"},
		},
		"second intent": {
			pending: []string{"a"},
			build:   func(pb *PatchBuilder) error { return pb.PutPending(b, intent) },
			want:    []string{"add /pierPendingOperations/b~1c"},
		},
		"outcome clears the last intent with the container": {
			pending: []string{"a"},
			build:   func(pb *PatchBuilder) error { return pb.Put(a, Entry{Type: "t"}) },
			want:    []string{"add /resources/a", "remove /pierPendingOperations"},
		},
		"outcome clears one of two": {
			pending: []string{"a", "b/c"},
			build:   func(pb *PatchBuilder) error { return pb.Put(b, Entry{Type: "t"}) },
			want:    []string{"add /resources/b~1c", "remove /pierPendingOperations/b~1c"},
		},
		"intents and outcomes in one batch": {
			build: func(pb *PatchBuilder) error {
				if err := pb.PutPending(a, intent); err != nil {
					return err
				}
				if err := pb.PutPending(b, intent); err != nil {
					return err
				}
				pb.ClearPending(a)
				return pb.Put(b, Entry{Type: "t"})
			},
			want: []string{"add /pierPendingOperations", "add /pierPendingOperations/a", "add /pierPendingOperations/b~1c",
				"remove /pierPendingOperations/a", "add /resources/b~1c", "remove /pierPendingOperations"},
		},
		"clearing nothing": {
			build: func(pb *PatchBuilder) error { pb.ClearPending(a); return nil },
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			doc := map[string]any{"_type": "nixopsState", "resources": map[string]any{}}
			if len(tc.pending) > 0 {
				ops := map[string]any{}
				for _, p := range tc.pending {
					ops[p] = map[string]any{"operation": "create", "provider": "p", "type": "t", "started": "s"}
				}
				doc[pendingKey] = ops
			}
			raw, _ := json.Marshal(doc)
			var decoded map[string]any
			if err := json.Unmarshal(raw, &decoded); err != nil {
				t.Fatal(err)
			}
			v, err := Decode("state", decoded)
			if err != nil {
				t.Fatal(err)
			}
			pb := &PatchBuilder{doc: v.Stored()}
			if err := tc.build(pb); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, op := range pb.ops {
				got = append(got, op.Op+" "+op.Path)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("patch (-want +got):\n%s", diff)
			}
		})
	}
}
