package statedoc

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pierhq/pier/host/source"
)

// TestScratch: patches built one after another from one Scratch, each
// released before the next, are the patches plain builders make against
// the same changes, whether a value fits the kept buffers or grows them,
// and whatever patch came before (one that failed half-way included).
func TestScratch(t *testing.T) {
	t.Parallel()
	empty := func(t *testing.T) *Stored {
		t.Helper()
		v, err := Decode("state", map[string]any{"_type": "nixopsState", "resources": map[string]any{}})
		if err != nil {
			t.Fatal(err)
		}
		return v.Stored()
	}
	inputs := map[string]any{"triggers": map[string]any{"index": "7"}}
	entry := func(i int) Entry {
		return Entry{Type: "time_static", InputProperties: inputs, OutputProperties: map[string]any{
			"id": strings.Repeat("x", i*i*100), "n": json.Number("4"),
		}, Provider: "time", Dependencies: []string{"state"}}
	}
	intent := PendingOperation{Operation: PendingCreate, Provider: "time", Type: "time_static", Started: "2026-12-04T02:12:35Z", InputProperties: inputs}
	bad := Entry{Type: "time_static", OutputProperties: map[string]any{"n": json.Number("1.2.3")}}
	// batch builds one patch: the intents of addresses from..to, the
	// outcomes of those before, and a failing Put when fail.
	batch := func(pb *PatchBuilder, from, to int, fail bool) {
		for i := from; i < to; i++ {
			addr := source.Address{{Name: "t", Key: i}}
			if err := pb.PutPending(addr, intent); err != nil {
				t.Fatal(err)
			}
			if i > 0 {
				if err := pb.Put(source.Address{{Name: "t", Key: i - 1}}, entry(i)); err != nil {
					t.Fatal(err)
				}
			}
		}
		if fail {
			if err := pb.Put(source.Address{{Name: "bad"}}, bad); err == nil {
				t.Fatal("Put of an entry that does not encode: no error")
			}
		}
	}
	plainDoc, scratchDoc := empty(t), empty(t)
	var s Scratch
	for round, r := range []struct {
		from, to int
		fail     bool
	}{{0, 3, false}, {3, 4, true}, {4, 9, false}, {9, 10, false}, {10, 12, true}} {
		plain := NewPatchBuilder(plainDoc)
		batch(plain, r.from, r.to, r.fail)
		want, err := json.Marshal(plain.Ops())
		if err != nil {
			t.Fatal(err)
		}
		pb := NewPatchBuilderFrom(scratchDoc, &s)
		batch(pb, r.from, r.to, r.fail)
		got, err := json.Marshal(pb.Ops())
		if err != nil {
			t.Fatal(err)
		}
		pb.Release(&s)
		if diff := cmp.Diff(string(want), string(got)); diff != "" {
			t.Errorf("round %d (-plain +from scratch):\n%s", round, diff)
		}
	}
	if cap(s.ops) == 0 || cap(s.vals) == 0 {
		t.Errorf("the scratch kept no buffers: %d operations, %d bytes of values", cap(s.ops), cap(s.vals))
	}
}
