package schema

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRequestAppendJSON holds Request.AppendJSON to json.Marshal: the same
// bytes for every kind, with the members omitempty drops and keeps, and
// the same error for a value json.Marshal refuses.
func TestRequestAppendJSON(t *testing.T) {
	t.Parallel()
	props := Properties{"triggers": map[string]any{"index": "7"}, "n": json.Number("9007199254740993"), "html": "<&>", "l": []any{true, nil, 1.5}}
	extant := ExtantResource{Type: "time_static", InputProperties: props, OutputProperties: Properties{"id": "2026-12-01T11:12:36Z"}}
	tests := map[string]struct {
		req   Request
		valid bool // a request ValidateRequest accepts
	}{
		"create":            {req: Request{CreateResourceRequest: &CreateResourceRequest{Type: "time_static", InputProperties: props, IsStateful: true}}, valid: true},
		"create planned":    {req: Request{CreateResourceRequest: &CreateResourceRequest{Type: "t", InputProperties: Properties{}, Plan: "AQID+/=="}}, valid: true},
		"create nil inputs": {req: Request{CreateResourceRequest: &CreateResourceRequest{Type: "t"}}},
		"update":            {req: Request{UpdateResourceRequest: &UpdateResourceRequest{Resource: extant, InputProperties: Properties{"a": "b"}, Plan: "p"}}, valid: true},
		"update empty outputs": {req: Request{UpdateResourceRequest: &UpdateResourceRequest{
			Resource: ExtantResource{Type: "t", InputProperties: Properties{}, OutputProperties: Properties{}}, InputProperties: Properties{},
		}}, valid: true},
		"state event": {req: Request{StateResourceEvent: &StateResourceEvent{
			Resource: ExtantResource{Type: "state_file", InputProperties: Properties{"name": "state.json"}}, Event: "create", NixopsVersion: "pier 0.1 <dev>",
			Patch: Patch{
				{Op: "add", Path: "/resources/t[0]", Value: json.RawMessage(`{"type":"time_static","inputProperties":{"triggers":{"index":"0"}}}`)},
				{Op: "add", Path: "/spaced", Value: json.RawMessage(` { "a" : [ 1 , 2 ] } `)},
				{Op: "add", Path: "/html", Value: json.RawMessage(`"<&>\u2028"`)},
				{Op: "move", Path: "/a~1b", From: "/c~0d"},
				{Op: "remove", Path: "/pierPendingOperations/t[0]"},
			},
		}}, valid: true},
		"state event empty patch": {req: Request{StateResourceEvent: &StateResourceEvent{
			Resource: ExtantResource{Type: "s", InputProperties: Properties{}}, Patch: Patch{},
		}}, valid: true},
		"state event nil patch": {req: Request{StateResourceEvent: &StateResourceEvent{Resource: ExtantResource{Type: "s", InputProperties: Properties{}}}}},
		"state read":            {req: Request{StateResourceReadRequest: &StateResourceReadRequest{Resource: ExtantResource{Type: "s", InputProperties: Properties{"name": "x"}}}}, valid: true},
		"destroy":               {req: Request{DestroyResourceRequest: &DestroyResourceRequest{Resource: extant}}, valid: true},
		"read":                  {req: Request{ReadResourceRequest: &ReadResourceRequest{Resource: extant}}, valid: true},
		"import":                {req: Request{ImportResourceRequest: &ImportResourceRequest{Type: "t", ID: "id \"quoted\"\n"}}, valid: true},
		"preview create":        {req: Request{PreviewResourceRequest: &PreviewResourceRequest{Type: "time_static", InputProperties: props, IsStateful: true}}, valid: true},
		"preview stateless":     {req: Request{PreviewResourceRequest: &PreviewResourceRequest{Type: "t", InputProperties: Properties{}}}, valid: true},
		"preview update":        {req: Request{PreviewResourceRequest: &PreviewResourceRequest{Type: "time_static", Resource: &extant, InputProperties: props}}, valid: true},
		"unicode and escapes": {req: Request{CreateResourceRequest: &CreateResourceRequest{
			Type: "t\x01\t", InputProperties: Properties{"é 日本": "a\xffb", "": []any{}, "m": map[string]any{}}, IsStateful: true,
		}}, valid: true},
		"none": {req: Request{}},
		"two":  {req: Request{ImportResourceRequest: &ImportResourceRequest{Type: "t", ID: "x"}, ReadResourceRequest: &ReadResourceRequest{Resource: extant}}},
		"all kinds": {req: Request{
			CreateResourceRequest: &CreateResourceRequest{Type: "t"}, UpdateResourceRequest: &UpdateResourceRequest{},
			StateResourceEvent: &StateResourceEvent{}, StateResourceReadRequest: &StateResourceReadRequest{},
			DestroyResourceRequest: &DestroyResourceRequest{}, ReadResourceRequest: &ReadResourceRequest{},
			ImportResourceRequest: &ImportResourceRequest{}, PreviewResourceRequest: &PreviewResourceRequest{},
		}},
	}
	all := []Operation{OperationDestroy, OperationRead, OperationImport, OperationPreview}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			want, err := json.Marshal(&tc.req)
			if err != nil {
				t.Fatalf("json.Marshal: %v", err)
			}
			got, err := tc.req.AppendJSON([]byte("prefix "))
			if err != nil {
				t.Fatalf("AppendJSON: %v", err)
			}
			if diff := cmp.Diff("prefix "+string(want), string(got)); diff != "" {
				t.Errorf("AppendJSON (-json.Marshal +got):\n%s", diff)
			}
			if err := ValidateRequest(want, all); (err == nil) != tc.valid {
				t.Errorf("ValidateRequest = %v, want valid %v", err, tc.valid)
			}
		})
	}
}

// TestRequestAppendJSONErrors: what json.Marshal refuses, AppendJSON
// refuses with the same error.
func TestRequestAppendJSONErrors(t *testing.T) {
	t.Parallel()
	s := ExtantResource{Type: "s", InputProperties: Properties{}}
	tests := map[string]Request{
		"invalid patch value": {StateResourceEvent: &StateResourceEvent{Resource: s, Patch: Patch{
			{Op: "add", Path: "/a", Value: json.RawMessage(`{"a":1}`)}, {Op: "add", Path: "/b", Value: json.RawMessage(`{"a":`)},
		}}},
		"invalid number":         {CreateResourceRequest: &CreateResourceRequest{Type: "t", InputProperties: Properties{"n": json.Number("1.2.3")}}},
		"unencodable input":      {PreviewResourceRequest: &PreviewResourceRequest{Type: "t", InputProperties: Properties{"c": make(chan int)}}},
		"invalid resource input": {DestroyResourceRequest: &DestroyResourceRequest{Resource: ExtantResource{Type: "t", InputProperties: Properties{"n": json.Number("x")}}}},
	}
	for name, req := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, want := json.Marshal(&req)
			got, err := req.AppendJSON(make([]byte, 0, 256))
			if want == nil || err == nil || err.Error() != want.Error() {
				t.Errorf("AppendJSON = %q, %v; want json.Marshal's error %v", got, err, want)
			}
		})
	}
}

// BenchmarkRequestEncode encodes the requests a fresh apply of one bridged
// time_static sends: its preview, its create and the state event that
// records it, by encoding/json and by Request.AppendJSON into a buffer of
// the size the host starts with.
func BenchmarkRequestEncode(b *testing.B) {
	inputs := Properties{"triggers": map[string]any{"index": "7"}}
	state := ExtantResource{Type: "state_file", InputProperties: Properties{"name": "state.json"}}
	reqs := map[string]*Request{
		"preview": {PreviewResourceRequest: &PreviewResourceRequest{Type: "time_static", InputProperties: inputs, IsStateful: true}},
		"create":  {CreateResourceRequest: &CreateResourceRequest{Type: "time_static", InputProperties: inputs, IsStateful: true, Plan: "eyJ0eXBlIjoidGltZV9zdGF0aWMifQ=="}},
		"state-event": {StateResourceEvent: &StateResourceEvent{Resource: state, Event: "create", NixopsVersion: "pier", Patch: Patch{
			{Op: "add", Path: "/resources/t[7]", Value: json.RawMessage(`{"type":"time_static","provider":"time","inputProperties":{"triggers":{"index":"7"}},"outputProperties":{"day":1,"hour":11,"id":"2026-12-01T11:12:36Z","minute":12,"month":12,"rfc3339":"2026-12-01T11:12:36Z","second":36,"triggers":{"index":"7"},"unix":1796123556,"year":2026}}`)},
			{Op: "remove", Path: "/pierPendingOperations/t[7]"},
		}}},
	}
	for _, name := range []string{"preview", "create", "state-event"} {
		req := reqs[name]
		b.Run(name+"/encoding-json", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := json.Marshal(req); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/append", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := req.AppendJSON(make([]byte, 0, 256)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
