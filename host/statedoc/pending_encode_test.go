package statedoc

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPendingAppendJSON holds PendingOperation.appendJSON to json.Marshal,
// byte for byte.
func TestPendingAppendJSON(t *testing.T) {
	t.Parallel()
	tests := map[string]PendingOperation{
		"zero":          {},
		"create":        {Operation: PendingCreate, Provider: "time", Type: "time_static", Started: "2026-12-02T17:56:37.182505641Z", InputProperties: map[string]any{"triggers": map[string]any{"index": json.Number("1")}}},
		"destroy":       {Operation: PendingDestroy, Provider: "p", Type: "t", Started: "s"},
		"empty inputs":  {Operation: PendingCreate, InputProperties: map[string]any{}, SensitiveInputs: []string{}},
		"sensitive":     {Operation: PendingCreate, InputProperties: map[string]any{"password": "x", "n": json.Number("9007199254740993")}, SensitiveInputs: []string{"password", "b"}},
		"escapes":       {Operation: "c\x01", Provider: "a\xffb", Type: "<&>", Started: "\u2028", InputProperties: map[string]any{"\"k\"": []any{nil, true, "é"}}, SensitiveInputs: []string{"<"}},
		"nested values": {Operation: PendingCreate, InputProperties: map[string]any{"z": map[string]any{"b": []any{}, "a": map[string]any{}}, "a": 1.5}},
	}
	for name, p := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			want, err := json.Marshal(p)
			if err != nil {
				t.Fatal(err)
			}
			got, err := p.appendJSON(nil)
			if err != nil {
				t.Fatalf("appendJSON: %v", err)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("appendJSON (-json.Marshal +got):\n%s", diff)
			}
		})
	}
	if _, err := (PendingOperation{InputProperties: map[string]any{"n": json.Number("1.2.3")}}).appendJSON(nil); err == nil {
		t.Error("appendJSON of an invalid number: no error")
	}
}

// BenchmarkPendingEncode encodes the intent a fresh apply records before
// creating one time_static, by json.Marshal (as pier did) and by
// appendJSON.
func BenchmarkPendingEncode(b *testing.B) {
	p := PendingOperation{
		Operation: PendingCreate, Provider: "time", Type: "time_static", Started: "2026-12-02T17:56:37.182505641Z",
		InputProperties: map[string]any{"triggers": map[string]any{"index": json.Number("1")}},
	}
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(p); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("append", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := p.appendJSON(make([]byte, 0, 256)); err != nil {
				b.Fatal(err)
			}
		}
	})
}
