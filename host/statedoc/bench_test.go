package statedoc

import (
	"fmt"
	"testing"
)

// BenchmarkDecode10000 decodes the state of 10,000 memos, as every plan
// does for each state it reads.
func BenchmarkDecode10000(b *testing.B) {
	res := map[string]any{}
	for i := range 10000 {
		res[fmt.Sprintf("m[%d]", i)] = map[string]any{
			"type": "memo", "inputProperties": map[string]any{"initialize_with": fmt.Sprint("value-", i)},
			"outputProperties": map[string]any{"value": fmt.Sprint("value-", i)}, "provider": "local",
		}
	}
	doc := map[string]any{"_type": "nixopsState", "resources": res, "deployments": map[string]any{}}
	b.ReportAllocs()
	for b.Loop() {
		v, err := Decode("state", doc)
		if err != nil || len(v.Entries) != 10000 {
			b.Fatal(len(v.Entries), err)
		}
	}
}
