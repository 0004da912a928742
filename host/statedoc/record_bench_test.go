package statedoc

import (
	"encoding/json"
	"testing"

	"github.com/pierhq/pier/host/source"
)

// BenchmarkRecordCreate measures what recording one create of a bridged
// time_static builds: its intent, then its outcome (which clears the
// intent), each in a patch of its own as the recorder's group commit
// builds them, into a state that grows by one entry an op.
func BenchmarkRecordCreate(b *testing.B) {
	v, err := Decode("state", map[string]any{"_type": "nixopsState", "resources": map[string]any{}})
	if err != nil {
		b.Fatal(err)
	}
	doc := v.Stored()
	inputs := map[string]any{"triggers": map[string]any{"index": "7"}}
	outputs := map[string]any{
		"day": json.Number("4"), "hour": json.Number("2"), "id": "2026-12-04T02:12:36Z", "minute": json.Number("12"),
		"month": json.Number("12"), "rfc3339": "2026-12-04T02:12:36Z", "second": json.Number("36"),
		"triggers": map[string]any{"index": "7"}, "unix": json.Number("1796350356"), "year": json.Number("2026"),
	}
	intent := PendingOperation{Operation: PendingCreate, Provider: "time", Type: "time_static", Started: "2026-12-04T02:12:35Z", InputProperties: inputs}
	entry := Entry{Type: "time_static", InputProperties: inputs, OutputProperties: outputs, Provider: "time", Dependencies: []string{"state"}}
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		addr := source.Address{{Name: "t", Key: i}}
		i++
		if err := NewPatchBuilder(doc).PutPending(addr, intent); err != nil {
			b.Fatal(err)
		}
		if err := NewPatchBuilder(doc).Put(addr, entry); err != nil {
			b.Fatal(err)
		}
	}
}
