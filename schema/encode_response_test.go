package schema

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestResponseAppendJSON holds Response.AppendJSON to json.Marshal: the
// same bytes for every kind, with the members omitempty drops and keeps.
func TestResponseAppendJSON(t *testing.T) {
	t.Parallel()
	props := Properties{"triggers": map[string]any{"index": "7"}, "n": json.Number("9007199254740993"), "html": "<&>", "l": []any{true, nil, 1.5}, "i": 3}
	tests := map[string]Response{
		"create":           {CreateResourceResponse: &CreateResourceResponse{OutputProperties: props}},
		"create nil":       {CreateResourceResponse: &CreateResourceResponse{}},
		"create empty":     {CreateResourceResponse: &CreateResourceResponse{OutputProperties: Properties{}}},
		"update":           {UpdateResourceResponse: &UpdateResourceResponse{OutputProperties: Properties{"a": "b\u2028"}}},
		"update nil":       {UpdateResourceResponse: &UpdateResourceResponse{}},
		"state event":      {StateResourceEventResponse: &StateResourceEventResponse{}},
		"state read":       {StateResourceReadResponse: &StateResourceReadResponse{State: map[string]any{"_type": "nixopsState", "resources": map[string]any{}}}},
		"state read nil":   {StateResourceReadResponse: &StateResourceReadResponse{}},
		"state read raw":   {StateResourceReadResponse: &StateResourceReadResponse{State: map[string]any{"r": json.RawMessage(` { "a" : [1, "<"] } `)}}},
		"destroy":          {DestroyResourceResponse: &DestroyResourceResponse{}},
		"read exists":      {ReadResourceResponse: &ReadResourceResponse{Exists: true, OutputProperties: props, InputProperties: Properties{"x": false}}},
		"read gone":        {ReadResourceResponse: &ReadResourceResponse{}},
		"read empty":       {ReadResourceResponse: &ReadResourceResponse{Exists: true, OutputProperties: Properties{}, InputProperties: Properties{}}},
		"import":           {ImportResourceResponse: &ImportResourceResponse{InputProperties: Properties{"id": "x"}, OutputProperties: props}},
		"import nil":       {ImportResourceResponse: &ImportResourceResponse{}},
		"preview":          {PreviewResourceResponse: &PreviewResourceResponse{PlannedOutputProperties: props, Plan: "AQID+/=="}},
		"preview zero":     {PreviewResourceResponse: &PreviewResourceResponse{}},
		"preview empty":    {PreviewResourceResponse: &PreviewResourceResponse{ReplaceReasons: []string{}, PlannedOutputProperties: Properties{}, UnknownOutputs: []AttributePath{}, Diagnostics: []Diagnostic{}}},
		"preview replace":  {PreviewResourceResponse: &PreviewResourceResponse{Replace: true, ReplaceReasons: []string{"triggers", "a\"<b>"}}},
		"preview unknown":  {PreviewResourceResponse: &PreviewResourceResponse{UnknownOutputs: []AttributePath{{"id"}, {"rule", 0, "port"}, {"n", json.Number("2"), 1.0}, nil, {}}}},
		"preview diags":    {PreviewResourceResponse: &PreviewResourceResponse{Diagnostics: []Diagnostic{{Severity: SeverityWarning, Summary: "s <b>", Detail: "d\n", Attribute: AttributePath{"a", 1}}, {Severity: SeverityError, Summary: ""}, {Severity: "x", Summary: "y", Attribute: AttributePath{}}}}},
		"error":            {ErrorResponse: &ErrorResponse{Message: "create t: \x01 failed \xff <&>"}},
		"error empty":      {ErrorResponse: &ErrorResponse{}},
		"none":             {},
		"two":              {DestroyResourceResponse: &DestroyResourceResponse{}, ErrorResponse: &ErrorResponse{Message: "m"}},
		"unicode and keys": {CreateResourceResponse: &CreateResourceResponse{OutputProperties: Properties{"é 日本": "a\xffb", "": []any{}, "m": map[string]any{}, "B": nil, "a": int64(-1)}}},
		"typed values":     {CreateResourceResponse: &CreateResourceResponse{OutputProperties: Properties{"s": []string{"a"}, "m": map[string]string{"k": "<v>"}, "f": float32(0.1), "u": uint8(7)}}},
		"all kinds": {
			CreateResourceResponse: &CreateResourceResponse{}, UpdateResourceResponse: &UpdateResourceResponse{},
			StateResourceEventResponse: &StateResourceEventResponse{}, StateResourceReadResponse: &StateResourceReadResponse{},
			DestroyResourceResponse: &DestroyResourceResponse{}, ReadResourceResponse: &ReadResourceResponse{},
			ImportResourceResponse: &ImportResourceResponse{}, PreviewResourceResponse: &PreviewResourceResponse{},
			ErrorResponse: &ErrorResponse{},
		},
	}
	for name, resp := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			checkResponseAppendJSON(t, &resp)
		})
	}
}

// checkResponseAppendJSON fails t unless r.AppendJSON, after a prefix,
// gives json.Marshal(r)'s bytes, or its error.
func checkResponseAppendJSON(t *testing.T, r *Response) {
	t.Helper()
	want, wantErr := json.Marshal(r)
	got, err := r.AppendJSON([]byte("prefix "))
	if wantErr != nil || err != nil {
		if wantErr == nil || err == nil || err.Error() != wantErr.Error() {
			t.Fatalf("AppendJSON = %q, %v; json.Marshal = %q, %v", got, err, want, wantErr)
		}
		return
	}
	if diff := cmp.Diff("prefix "+string(want), string(got)); diff != "" {
		t.Errorf("AppendJSON (-json.Marshal +got):\n%s", diff)
	}
}

// TestResponseAppendJSONErrors: what json.Marshal refuses, AppendJSON
// refuses with the same error.
func TestResponseAppendJSONErrors(t *testing.T) {
	t.Parallel()
	tests := map[string]Response{
		"invalid number":     {CreateResourceResponse: &CreateResourceResponse{OutputProperties: Properties{"n": json.Number("1.2.3")}}},
		"unencodable output": {PreviewResourceResponse: &PreviewResourceResponse{PlannedOutputProperties: Properties{"c": make(chan int)}}},
		"NaN path step":      {PreviewResourceResponse: &PreviewResourceResponse{UnknownOutputs: []AttributePath{{math.NaN()}}}},
		"invalid raw state":  {StateResourceReadResponse: &StateResourceReadResponse{State: map[string]any{"r": json.RawMessage(`{"a":`)}}},
		"after a good kind":  {CreateResourceResponse: &CreateResourceResponse{}, ReadResourceResponse: &ReadResourceResponse{InputProperties: Properties{"f": math.Inf(1)}}},
	}
	for name, resp := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, want := json.Marshal(&resp)
			got, err := resp.AppendJSON(nil)
			if want == nil || err == nil || err.Error() != want.Error() {
				t.Errorf("AppendJSON = %q, %v; want json.Marshal's error %v", got, err, want)
			}
		})
	}
}

// responseCorpus are response texts whose decoding AppendJSON must encode
// as json.Marshal does.
var responseCorpus = []string{
	`{"createResourceResponse":{"outputProperties":{"id":"2026-12-01T11:12:36Z","unix":1796123556,"triggers":{"index":"7"}}}}`,
	`{"previewResourceResponse":{"replace":true,"replaceReasons":["a"],"plannedOutputProperties":{"x":null},"unknownOutputs":[["a",0],[]],"diagnostics":[{"severity":"warning","summary":"s","detail":"d","attribute":["a",1.5]}],"plan":"p"}}`,
	`{"readResourceResponse":{"exists":true,"outputProperties":{},"inputProperties":{"a":[1,2]}}}`,
	`{"stateResourceReadResponse":{"state":{"_type":"nixopsState","resources":{"r":{"type":"t"}}}}}`,
	`{"importResourceResponse":{"inputProperties":null,"outputProperties":{"<":">"}},"errorResponse":{"message":"\u2028"}}`,
	`{"stateResourceEventResponse":{},"destroyResourceResponse":{},"updateResourceResponse":{"outputProperties":{"e":"\ud800"}}}`,
	`{"previewResourceResponse":{"unknownOutputs":[null,["x",{"o":1}]],"diagnostics":[{"attribute":null},{}]}}`,
}

// FuzzResponseAppendJSON holds Response.AppendJSON to json.Marshal on
// every response decoded from the fuzzed text, numbers as json.Number as
// providersdk decodes them.
func FuzzResponseAppendJSON(f *testing.F) {
	for _, text := range responseCorpus {
		f.Add([]byte(text))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var r Response
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		if dec.Decode(&r) != nil {
			return
		}
		checkResponseAppendJSON(t, &r)
	})
}

// BenchmarkResponseEncode encodes the responses a bridge sends on a fresh
// apply of one time_static: its preview and its create, by encoding/json
// and by Response.AppendJSON into a reused buffer.
func BenchmarkResponseEncode(b *testing.B) {
	outputs := Properties{
		"day": json.Number("1"), "hour": json.Number("11"), "id": "2026-12-01T11:12:36Z", "minute": json.Number("12"), "month": json.Number("12"),
		"rfc3339": "2026-12-01T11:12:36Z", "second": json.Number("36"), "triggers": map[string]any{"index": "7"}, "unix": json.Number("1796123556"), "year": json.Number("2026"),
	}
	resps := map[string]*Response{
		"preview": {PreviewResourceResponse: &PreviewResourceResponse{PlannedOutputProperties: Properties{"triggers": map[string]any{"index": "7"}}, UnknownOutputs: []AttributePath{{"id"}, {"rfc3339"}, {"unix"}}, Plan: "eyJ0eXBlIjoidGltZV9zdGF0aWMifQ=="}},
		"create":  {CreateResourceResponse: &CreateResourceResponse{OutputProperties: outputs}},
	}
	for _, name := range []string{"preview", "create"} {
		r := resps[name]
		b.Run(name+"/encoding-json", func(b *testing.B) {
			b.ReportAllocs()
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			for b.Loop() {
				buf.Reset()
				if err := enc.Encode(r); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/append", func(b *testing.B) {
			b.ReportAllocs()
			var buf []byte
			for b.Loop() {
				var err error
				if buf, err = r.AppendJSON(buf[:0]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
