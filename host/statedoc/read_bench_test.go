package statedoc

import (
	"fmt"
	"testing"

	"github.com/pierhq/pier/schema"
)

// readLine100k is a stateResourceReadResponse line holding the state of
// 100,000 memos as bench/scale.sh records them.
func readLine(n int) []byte {
	b := []byte(`{"stateResourceReadResponse":{"state":{"_type":"nixopsState","deployments":{},"resources":{`)
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		b = fmt.Appendf(b, `"a[%d]":{"type":"memo","input_properties":{"initialize_with":"a-%d"},"output_properties":{"value":"a-%d"},"provider":"local","dependencies":["state"]}`, i, i, i)
	}
	return append(b, `}}}}`...)
}

// BenchmarkReadState100000 is a state read's cost in the command: the
// response line of 100,000 memos decoded and validated, then read into a
// View, as every plan does.
func BenchmarkReadState100000(b *testing.B) {
	line := readLine(100000)
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		r, err := schema.DecodeResponse(line, nil)
		if err != nil {
			b.Fatal(err)
		}
		v, err := Decode("state", r.StateResourceReadResponse.State)
		if err != nil || len(v.Entries) != 100000 {
			b.Fatal(len(v.Entries), err)
		}
	}
}
