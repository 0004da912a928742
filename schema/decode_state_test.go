package schema

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const stateEventLine = `{"stateResourceEvent":{"resource":{"type":"state_file","inputProperties":{"name":"state.json"},"outputProperties":{}},"event":"create","nixopsVersion":"pier 0.1.0-dev","patch":[` +
	`{"op":"add","path":"/resources/t[1]","value":{"type":"time_static","input_properties":{"triggers":{"index":1}},"output_properties":{"__tf":{"schema_version":0},"day":2,"hour":17,"id":"2026-12-02T17:56:37Z","minute":56,"month":12,"rfc3339":"2026-12-02T17:56:37Z","second":37,"triggers":{"index":"1"},"unix":1796234197,"year":2026},"provider":"time","dependencies":["state"]}},` +
	`{"op":"remove","path":"/pierPendingOperations/t[1]"}]}}`

// stateRequestCases are state reads, state events and imports, each with
// whether stateRequestFrom builds it (false: a repeated member sends it
// to encoding/json).
var stateRequestCases = map[string]struct {
	line string
	fast bool
}{
	"event":                 {stateEventLine, true},
	"state read":            {`{"stateResourceReadRequest":{"resource":{"type":"s","inputProperties":{"n":1.50}}}}`, true},
	"state read outputs":    {`{"stateResourceReadRequest":{"resource":{"type":"s","inputProperties":{},"outputProperties":{"x":[1,null]}}}}`, true},
	"import":                {`{"importResourceRequest":{"type":"t","id":"x\"y"}}`, true},
	"empty patch":           {`{"stateResourceEvent":{"resource":{"type":"s","inputProperties":{}},"event":"e","nixopsVersion":"v","patch":[]}}`, true},
	"move and copy":         {`{"stateResourceEvent":{"resource":{"type":"s","inputProperties":{}},"event":"mv","nixopsVersion":"v","patch":[{"op":"move","from":"/a","path":"/b"},{"path":"/c","from":"/b","op":"copy"}]}}`, true},
	"scalar values":         {`{"stateResourceEvent":{"resource":{"type":"s","inputProperties":{}},"event":"e","nixopsVersion":"v","patch":[{"op":"add","path":"/a","value":null},{"op":"add","path":"/b","value":-1.5e+3},{"op":"test","path":"/c","value":true},{"value":"s","op":"replace","path":"/d"}]}}`, true},
	"value kept verbatim":   {"{ \"stateResourceEvent\" : {\"resource\":{\"type\":\"s\",\"inputProperties\":{}},\"event\":\"e\",\"nixopsVersion\":\"v\",\"patch\":[ {\"op\":\"add\",\"path\":\"/a\",\"value\" :\t{ \"x\" : [ 1 , \"]}\\\"\" , {} ] ,\"\\u00e9\":0 }\n} ] } }\r\n", true},
	"escaped keys":          {`{"stateResourceEvent":{"resource":{"type":"s","inputProperties":{}},"event":"e","nixopsVersion":"v","p\u0061tch":[{"op":"add","path":"/a","v\u0061lue":[]}]}}`, true},
	"value at the end":      {`{"stateResourceEvent":{"patch":[{"op":"add","path":"/a","value":12}],"resource":{"type":"s","inputProperties":{}},"event":"e","nixopsVersion":"v"}}`, true},
	"strings with brackets": {`{"stateResourceEvent":{"resource":{"type":"s","inputProperties":{"k":"}]"}},"event":"[{","nixopsVersion":"v","patch":[{"op":"add","path":"/a","value":"\\"}]}}`, true},
	"repeated value":        {`{"stateResourceEvent":{"resource":{"type":"s","inputProperties":{}},"event":"e","nixopsVersion":"v","patch":[{"op":"add","path":"/a","value":1,"value":{"b":2}}]}}`, false},
	"repeated op member":    {`{"stateResourceEvent":{"resource":{"type":"s","inputProperties":{}},"event":"e","nixopsVersion":"v","patch":[{"op":"move","from":"/x","path":"/a","op":"remove"}]}}`, false},
	"repeated patch":        {`{"stateResourceEvent":{"resource":{"type":"s","inputProperties":{}},"event":"e","nixopsVersion":"v","patch":[{"op":"move","from":"/x","path":"/a"}],"patch":[{"op":"remove","path":"/b"}]}}`, false},
	"repeated body":         {`{"stateResourceEvent":{"resource":{"type":"s","inputProperties":{}},"event":"e","nixopsVersion":"v","patch":[]},"stateResourceEvent":{"resource":{"type":"t","inputProperties":{}},"event":"f","nixopsVersion":"w","patch":[]}}`, false},
	"repeated inputs":       {`{"stateResourceReadRequest":{"resource":{"type":"s","inputProperties":{"a":1},"inputProperties":{"b":2}}}}`, false},
	"repeated escaped key":  {`{"importResourceRequest":{"type":"t","id":"x","\u0069d":"y"}}`, false},
}

// TestDecodeStateRequest: state reads, state events and imports decode to
// what encoding/json makes of them in the types, patch values byte for
// byte as the line has them, and the lines it cannot be sure of go to
// encoding/json.
func TestDecodeStateRequest(t *testing.T) {
	t.Parallel()
	all := []Operation{OperationImport}
	for name, tc := range stateRequestCases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			line := []byte(tc.line)
			got, err := DecodeRequest(line, all)
			if err != nil {
				t.Fatalf("DecodeRequest: %v", err)
			}
			if diff := cmp.Diff(decodeRequestStd(t, line), got); diff != "" {
				t.Errorf("DecodeRequest (-encoding/json +got):\n%s", diff)
			}
			v, _ := decodeFast(line)
			kind, body, err := validateWrapper("request", requestDefs, v, all)
			if err != nil {
				t.Fatal(err)
			}
			m, _ := body.(map[string]any)
			if _, fast := stateRequestFrom(kind, m, line); fast != tc.fast {
				t.Errorf("stateRequestFrom built it: %v, want %v", fast, tc.fast)
			}
			// The values are copies: the line's buffer is the reader's.
			for i := range line {
				line[i] = 'x'
			}
			if diff := cmp.Diff(decodeRequestStd(t, []byte(tc.line)), got); diff != "" {
				t.Errorf("after the line's buffer was reused (-want +got):\n%s", diff)
			}
		})
	}
}

func decodeRequestStd(t testing.TB, line []byte) *Request {
	t.Helper()
	var want Request
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	if err := dec.Decode(&want); err != nil {
		t.Fatal(err)
	}
	return &want
}

// FuzzDecodeStateRequest holds every request DecodeRequest takes to what
// encoding/json decodes from it.
func FuzzDecodeStateRequest(f *testing.F) {
	for _, tc := range stateRequestCases {
		f.Add([]byte(tc.line))
	}
	all := []Operation{OperationDestroy, OperationRead, OperationImport, OperationPreview}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := DecodeRequest(data, all)
		if err != nil {
			return
		}
		kind := got.Kind()
		if kind != "stateResourceEvent" && kind != "stateResourceReadRequest" && kind != "importResourceRequest" {
			return // the resource requests keep the decoded map's last-member-wins
		}
		if diff := cmp.Diff(decodeRequestStd(t, data), got); diff != "" {
			t.Fatalf("%q (-encoding/json +DecodeRequest):\n%s", data, diff)
		}
	})
}

// BenchmarkDecodeStateRequest measures DecodeRequest on the state event
// of one created time_static, as the command sends it to its state
// handler once per group commit.
func BenchmarkDecodeStateRequest(b *testing.B) {
	line := []byte(stateEventLine)
	b.ReportAllocs()
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		if _, err := DecodeRequest(line, nil); err != nil {
			b.Fatal(err)
		}
	}
}
