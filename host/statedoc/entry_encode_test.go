package statedoc

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// entryJSON is an entry as pier wrote it by json.Marshal before
// Entry.appendJSON: the reference TestEntryMarshalJSON holds it to.
type entryJSON struct {
	Type             string                     `json:"type"`
	InputProperties  map[string]any             `json:"input_properties"`
	OutputProperties map[string]any             `json:"output_properties"`
	Provider         string                     `json:"provider,omitempty"`
	Dependencies     []string                   `json:"dependencies,omitempty"`
	SensitiveInputs  []string                   `json:"sensitiveInputs,omitempty"`
	Deposed          map[string]json.RawMessage `json:"deposed,omitempty"`
	ImportID         string                     `json:"importId,omitempty"`
}

// marshalByReflection is json.Marshal of e's entryJSON, its deposed
// entries encoded the same way.
func marshalByReflection(t testing.TB, e Entry) []byte {
	t.Helper()
	j := entryJSON{
		Type: e.Type, InputProperties: e.InputProperties, OutputProperties: e.OutputProperties, Provider: e.Provider,
		Dependencies: e.Dependencies, SensitiveInputs: e.SensitiveInputs, ImportID: e.ImportID,
	}
	if j.InputProperties == nil {
		j.InputProperties = map[string]any{}
	}
	if j.OutputProperties == nil {
		j.OutputProperties = map[string]any{}
	}
	for k, d := range e.Deposed {
		if j.Deposed == nil {
			j.Deposed = map[string]json.RawMessage{}
		}
		j.Deposed[k] = marshalByReflection(t, d)
	}
	data, err := json.Marshal(j)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestEntryMarshalJSON(t *testing.T) {
	t.Parallel()
	full := Entry{
		Type:             "time_static",
		InputProperties:  map[string]any{"triggers": map[string]any{"index": "7"}, "n": json.Number("9007199254740993")},
		OutputProperties: map[string]any{"id": "2026-12-01T11:12:36Z", "html": "<&>", "l": []any{true, nil, json.Number("1.5")}},
		Provider:         "time",
		Dependencies:     []string{"state", `t["a"]`},
		SensitiveInputs:  []string{"password"},
		ImportID:         "id\n\"x\"",
	}
	tests := map[string]Entry{
		"zero":               {},
		"nil properties":     {Type: "memo"},
		"empty properties":   {Type: "memo", InputProperties: map[string]any{}, OutputProperties: map[string]any{}},
		"empty lists":        {Type: "memo", Dependencies: []string{}, SensitiveInputs: []string{}, Deposed: map[string]Entry{}},
		"full":               full,
		"escapes":            {Type: "t\x01é", Provider: "a\xffb", InputProperties: map[string]any{"\u2028": "<"}},
		"deposed":            {Type: "t", Deposed: map[string]Entry{"b0000002": full, "a0000001": {Type: "t", OutputProperties: map[string]any{"id": "old"}}}},
		"deposed in deposed": {Type: "t", Deposed: map[string]Entry{"k": {Type: "t", Deposed: map[string]Entry{"j": full}}}},
	}
	for name, e := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := e.MarshalJSON()
			if err != nil {
				t.Fatalf("MarshalJSON: %v", err)
			}
			if diff := cmp.Diff(string(marshalByReflection(t, e)), string(got)); diff != "" {
				t.Errorf("MarshalJSON (-json.Marshal +got):\n%s", diff)
			}
			// Through json.Marshal, as a caller encodes an Entry.
			via, err := json.Marshal(e)
			if err != nil || string(via) != string(got) {
				t.Errorf("json.Marshal(entry) = %s, %v; want %s", via, err, got)
			}
		})
	}
	if _, err := (Entry{InputProperties: map[string]any{"n": json.Number("1.2.3")}}).MarshalJSON(); err == nil {
		t.Error("MarshalJSON of an invalid number: no error")
	}
}

// BenchmarkEntryEncode encodes the entry a fresh apply records for one
// bridged time_static, by json.Marshal of its entryJSON (as pier did)
// and by MarshalJSON.
func BenchmarkEntryEncode(b *testing.B) {
	e := Entry{
		Type:            "time_static",
		InputProperties: map[string]any{"triggers": map[string]any{"index": "7"}},
		OutputProperties: map[string]any{
			"day": json.Number("1"), "hour": json.Number("11"), "id": "2026-12-01T11:12:36Z", "minute": json.Number("12"),
			"month": json.Number("12"), "rfc3339": "2026-12-01T11:12:36Z", "second": json.Number("36"),
			"triggers": map[string]any{"index": "7"}, "unix": json.Number("1796123556"), "year": json.Number("2026"),
		},
		Provider:     "time",
		Dependencies: []string{"state"},
	}
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			marshalByReflection(b, e)
		}
	})
	b.Run("append", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := e.appendJSON(make([]byte, 0, 256)); err != nil {
				b.Fatal(err)
			}
		}
	})
}
