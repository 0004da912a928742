package statefile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestReplayLinesAgrees checks that the parallel replay of a file written
// one event per line reads exactly what the sequential one reads, and
// that it declines every file it cannot read the same way.
func TestReplayLinesAgrees(t *testing.T) {
	t.Parallel()
	// big is a log larger than parallelFrom: many events, some with index
	// 0 as NixOps4 writes them, one removing what another added.
	var big bytes.Buffer
	big.WriteString(`{"index":0,"meta":{"time":"t","event":"init"},"patch":[{"op":"add","path":"","value":{"_type":"nixopsState","resources":{},"deployments":{}}}]}` + "\n")
	for i := 1; big.Len() < 2*parallelFrom; i++ {
		idx := i
		if i%50 == 0 {
			idx = 0
		}
		v, _ := json.Marshal(map[string]any{"type": "memo", "input_properties": map[string]any{"n": json.Number(fmt.Sprint(i)), "s": strings.Repeat("x", i%40)}})
		fmt.Fprintf(&big, `{"index":%d,"meta":{"time":"t","event":"create"},"patch":[{"op":"add","path":"/resources/r%d","value":%s}]}`+"\n", idx, i, v)
		if i%97 == 0 {
			fmt.Fprintf(&big, "  \r\n\n"+`{"index":%d,"meta":{"time":"t","event":"destroy"},"patch":[{"op":"remove","path":"/resources/r%d"}]}`+"\n", i, i-1)
		}
	}
	log := big.String()
	cases := map[string]struct {
		data     string
		parallel bool // replayLines reads it
	}{
		"as pier writes it":    {data: log, parallel: true},
		"no final newline":     {data: strings.TrimSuffix(log, "\n"), parallel: true},
		"torn last event":      {data: log + `{"index":99999,"meta":`},
		"zero-filled tail":     {data: log + "\x00\x00\x00"},
		"two events on a line": {data: strings.Replace(log, "}]}\n{", "}]} {", 1)},
		"pretty-printed event": {data: log + "{\n\"index\": 1,\n\"meta\": {\"time\":\"t\",\"event\":\"e\"},\n\"patch\": []\n}\n"},
		"a patch that fails":   {data: log + `{"index":1,"meta":{"time":"t","event":"e"},"patch":[{"op":"remove","path":"/nothing"}]}` + "\n"},
		"small file":           {data: log[:strings.Index(log, "\n")+1]},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			data := []byte(tc.data)
			fast, _, ok := replayLines(data)
			if ok != tc.parallel {
				t.Fatalf("replayLines ok = %v, want %v", ok, tc.parallel)
			}
			seq, _, seqErr := replaySeq(data)
			got, _, err := replay(data)
			if fmt.Sprint(err) != fmt.Sprint(seqErr) {
				t.Errorf("replay error %v, sequential %v", err, seqErr)
			}
			if diff := cmp.Diff(seq, got, cmpopts.IgnoreUnexported(Replayed{})); diff != "" {
				t.Errorf("replay differs from the sequential replay (-seq +replay):\n%s", diff)
			}
			if ok {
				if diff := cmp.Diff(seq, fast, cmpopts.IgnoreUnexported(Replayed{})); diff != "" {
					t.Errorf("replayLines differs (-seq +lines):\n%s", diff)
				}
			}
		})
	}
}

func BenchmarkReplayLines10k(b *testing.B) {
	var log bytes.Buffer
	log.WriteString(`{"index":0,"meta":{"time":"t","event":"init"},"patch":[{"op":"add","path":"","value":{"_type":"nixopsState","resources":{},"deployments":{}}}]}` + "\n")
	for i := 1; i <= 10000; i++ {
		fmt.Fprintf(&log, `{"index":%d,"meta":{"time":"t","event":"create"},"patch":[{"op":"add","path":"/resources/m[%d]","value":{"type":"memo","provider":"local","input_properties":{"initialize_with":"value-%d"},"output_properties":{"value":"value-%d"}}}]}`+"\n", i, i, i, i)
	}
	data := log.Bytes()
	b.Run("sequential", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := replaySeq(data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("lines", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, _, ok := replayLines(data); !ok {
				b.Fatal("declined")
			}
		}
	})
}
