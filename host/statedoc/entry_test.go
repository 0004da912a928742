package statedoc

import (
	"encoding/json"
	"strings"
	"testing"

	jsonpatch "github.com/evanphx/json-patch/v5"
	"github.com/google/go-cmp/cmp"

	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/internal/nixops4state"
	"github.com/pierhq/pier/schema"
)

// TestDecodeEntrySpellings reads entries in both spellings of the
// properties: NixOps4's code (input_properties) and its manual
// (inputProperties).
func TestDecodeEntrySpellings(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		entry   string
		want    Entry
		wantErr string
	}{
		"nixops4 code spelling": {
			entry: `{"type":"memo","input_properties":{"initialize_with":1},"output_properties":{"value":1}}`,
			want:  Entry{Type: "memo", InputProperties: map[string]any{"initialize_with": 1.0}, OutputProperties: map[string]any{"value": 1.0}},
		},
		"manual spelling": {
			entry: `{"type":"memo","inputProperties":{"initialize_with":1},"outputProperties":{"value":1},"provider":"local","dependencies":["s"]}`,
			want:  Entry{Type: "memo", InputProperties: map[string]any{"initialize_with": 1.0}, OutputProperties: map[string]any{"value": 1.0}, Provider: "local", Dependencies: []string{"s"}},
		},
		"both: the code spelling wins": {
			entry: `{"type":"memo","input_properties":{"a":1},"inputProperties":{"a":2},"output_properties":{},"outputProperties":{"x":1}}`,
			want:  Entry{Type: "memo", InputProperties: map[string]any{"a": 1.0}, OutputProperties: map[string]any{}},
		},
		"no outputs (older pier)": {
			entry: `{"type":"file","inputProperties":{}}`,
			want:  Entry{Type: "file", InputProperties: map[string]any{}},
		},
		"no inputs":            {entry: `{"type":"memo","output_properties":{}}`, wantErr: "input_properties (or inputProperties) is missing"},
		"inputs not an object": {entry: `{"type":"memo","input_properties":"secret"}`, wantErr: "input_properties is a string, want an object"},
		"outputs an array":     {entry: `{"type":"memo","inputProperties":{},"outputProperties":[1]}`, wantErr: "outputProperties is an array, want an object"},
		"no type":              {entry: `{"input_properties":{}}`, wantErr: "type is missing"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var raw any
			if err := json.Unmarshal([]byte(tc.entry), &raw); err != nil {
				t.Fatal(err)
			}
			got, err := DecodeEntry(raw)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("DecodeEntry: err = %v, want %q", err, tc.wantErr)
				}
				if strings.Contains(err.Error(), "secret") {
					t.Errorf("the error shows the value: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("DecodeEntry (-want +got):\n%s", d)
			}
		})
	}
}

// TestStateWrittenForNixOps4 builds the patches pier records for new and
// changed entries, applies them to documents in each spelling, and reads
// the result as NixOps4's code would (internal/nixops4state) and as pier
// does.
func TestStateWrittenForNixOps4(t *testing.T) {
	t.Parallel()
	camel := `{"_type":"nixopsState","resources":{"old":{"type":"memo","inputProperties":{"initialize_with":"x"},"outputProperties":{"value":"x"}}},"deployments":{}}`
	snake := strings.NewReplacer("inputProperties", "input_properties", "outputProperties", "output_properties").Replace(camel)
	for name, start := range map[string]string{"manual spelling": camel, "nixops4 code spelling": snake} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var doc map[string]any
			if err := json.Unmarshal([]byte(start), &doc); err != nil {
				t.Fatal(err)
			}
			view, err := Decode("state", doc)
			if err != nil {
				t.Fatal(err)
			}
			pb := &PatchBuilder{doc: view.Stored()}
			mustPut := func(addr string, e Entry) {
				t.Helper()
				a, err := source.ParseAddress(addr)
				if err != nil {
					t.Fatal(err)
				}
				if err := pb.Put(a, e); err != nil {
					t.Fatal(err)
				}
			}
			// An update of the old entry, a new stateful entry without
			// outputs, and one nested in a composite.
			mustPut("old", Entry{Type: "memo", InputProperties: map[string]any{"initialize_with": "y"}, OutputProperties: map[string]any{"value": "x"}, Provider: "local"})
			mustPut("quiet", Entry{Type: "file", InputProperties: map[string]any{"name": "a"}, Provider: "local"})
			mustPut("web.db", Entry{Type: "memo", InputProperties: map[string]any{}, OutputProperties: map[string]any{"value": 1}, Dependencies: []string{"old"}})
			ops, err := json.Marshal(pb.ops)
			if err != nil {
				t.Fatal(err)
			}
			patch, err := jsonpatch.DecodePatch(ops)
			if err != nil {
				t.Fatal(err)
			}
			after, err := patch.Apply([]byte(start))
			if err != nil {
				t.Fatal(err)
			}
			if err := schema.ValidateState(after); err != nil {
				t.Errorf("pier's state schema refuses what pier wrote: %v", err)
			}
			if strings.Contains(string(after), "Properties") {
				t.Errorf("an entry pier wrote keeps the manual's spelling: %s", after)
			}

			n4, err := nixops4state.ReadDocument(after)
			if err != nil {
				t.Fatalf("NixOps4 would refuse the state: %v\n%s", err, after)
			}
			want := map[string]nixops4state.Resource{
				"old":   {Type: "memo", InputProperties: map[string]any{"initialize_with": "y"}, OutputProperties: map[string]any{"value": "x"}},
				"quiet": {Type: "file", InputProperties: map[string]any{"name": "a"}, OutputProperties: map[string]any{}},
			}
			if d := cmp.Diff(want, n4.Resources); d != "" {
				t.Errorf("root resources as NixOps4 reads them (-want +got):\n%s", d)
			}
			wantWeb := map[string]nixops4state.Resource{"db": {Type: "memo", InputProperties: map[string]any{}, OutputProperties: map[string]any{"value": 1.0}}}
			if d := cmp.Diff(wantWeb, n4.Deployments["web"].Resources); d != "" {
				t.Errorf("web's resources as NixOps4 reads them (-want +got):\n%s", d)
			}

			var back map[string]any
			if err := json.Unmarshal(after, &back); err != nil {
				t.Fatal(err)
			}
			again, err := Decode("state", back)
			if err != nil {
				t.Fatal(err)
			}
			if got := again.Entries["web.db"].Entry.Dependencies; !cmp.Equal(got, []string{"old"}) {
				t.Errorf("pier's own fields lost in the round trip: dependencies %v", got)
			}
		})
	}
}
