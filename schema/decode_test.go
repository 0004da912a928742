package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDecodeResponse checks that the one-parse decode gives what decoding
// the line into the types gives, for every kind of response.
// responseCases are response lines of every kind, for TestDecodeResponse.
var responseCases = map[string]string{
	"create":               `{"createResourceResponse":{"outputProperties":{"id":"a","n":9007199254740993,"f":1.50}}}`,
	"create empty":         `{"createResourceResponse":{"outputProperties":{}}}`,
	"update":               `{"updateResourceResponse":{"outputProperties":{"list":[1,{"x":null}]}}}`,
	"state read":           `{"stateResourceReadResponse":{"state":{"_type":"nixopsState","resources":{"a":{"type":"memo","input_properties":{"v":1e400}}}}}}`,
	"state event":          `{"stateResourceEventResponse":{}}`,
	"destroy":              `{"destroyResourceResponse":{}}`,
	"error":                `{"errorResponse":{"message":"no such type"}}`,
	"read gone":            `{"readResourceResponse":{"exists":false}}`,
	"read gone inputs":     `{"readResourceResponse":{"exists":false,"inputProperties":{}}}`,
	"read":                 `{"readResourceResponse":{"exists":true,"outputProperties":{"id":"b"},"inputProperties":{"k":2}}}`,
	"read numbers":         `{"readResourceResponse":{"exists":true,"outputProperties":{"n":9007199254740993,"f":1.50,"e":-2E+3}}}`,
	"import":               `{"importResourceResponse":{"inputProperties":{},"outputProperties":{"id":"c"}}}`,
	"import nested":        `{"importResourceResponse":{"inputProperties":{"l":[1,"a",null,true,{"x":[]}]},"outputProperties":{"id":"c","n":0.1}}}`,
	"preview":              `{"previewResourceResponse":{"replace":true,"replaceReasons":["triggers"],"unknownOutputs":[["id"]],"diagnostics":[{"severity":"warning","summary":"Deprecated"}]}}`,
	"preview minimal":      `{"previewResourceResponse":{"replace":false}}`,
	"preview empty arrays": `{"previewResourceResponse":{"replace":false,"replaceReasons":[],"unknownOutputs":[[]],"diagnostics":[],"plannedOutputProperties":{}}}`,
	"preview bridged create": `{"previewResourceResponse":{"replace":false,"plannedOutputProperties":{"triggers":{"index":"7"},"rfc3339":null},` +
		`"unknownOutputs":[["id"],["rfc3339"],["unix"],["rule",0,"port"]],"plan":"AQID+/=="}}`,
	"preview diagnostics": `{"previewResourceResponse":{"replace":true,"replaceReasons":["rule.0.port","triggers"],"diagnostics":[` +
		`{"severity":"error","summary":"Invalid port","detail":"must be below 65536","attribute":["rule",12345678901234567890,"port"]},` +
		`{"severity":"warning","summary":"No path","attribute":[]}]}}`,
	"preview escapes":   `{"previewResourceResponse":{"replace":false,"diagnostics":[{"severity":"warning","summary":"\u00e9\n\"q\"","detail":"\ud83d\ude00"}],"plan":"\u0000"}}`,
	"whitespace around": " \t{\"destroyResourceResponse\":{}}\r",
}

func TestDecodeResponse(t *testing.T) {
	t.Parallel()
	all := []Operation{OperationDestroy, OperationRead, OperationImport, OperationPreview}
	tests := responseCases
	// Every kind of response is among the cases: responseFrom builds
	// each by hand, and a kind it did not know would be a panic.
	for kind := range responseDefs {
		if !slices.ContainsFunc(slices.Collect(maps.Values(tests)), func(line string) bool { return strings.Contains(line, `{"`+kind+`":`) }) {
			t.Errorf("no case decodes a %s", kind)
		}
	}
	for name, line := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := DecodeResponse([]byte(line), all)
			if err != nil {
				t.Fatalf("DecodeResponse: %v", err)
			}
			var want Response
			dec := json.NewDecoder(bytes.NewReader([]byte(line)))
			dec.UseNumber()
			if err := dec.Decode(&want); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(&want, got); diff != "" {
				t.Errorf("DecodeResponse (-decoded into types +got):\n%s", diff)
			}
		})
	}
}

// TestDecodeResponseKeepsEarlier: a response decoded earlier is as it was
// after later ones, which may decode into the maps earlier bodies were
// decoded into (see bodyMaps).
func TestDecodeResponseKeepsEarlier(t *testing.T) {
	t.Parallel()
	all := []Operation{OperationDestroy, OperationRead, OperationImport, OperationPreview}
	type decoded struct {
		line string
		resp *Response
	}
	var done []decoded
	for range 3 {
		for _, line := range responseCases {
			resp, err := DecodeResponse([]byte(line), all)
			if err != nil {
				t.Fatalf("DecodeResponse(%s): %v", line, err)
			}
			done = append(done, decoded{line, resp})
		}
	}
	for _, d := range done {
		var want Response
		dec := json.NewDecoder(bytes.NewReader([]byte(d.line)))
		dec.UseNumber()
		if err := dec.Decode(&want); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(&want, d.resp); diff != "" {
			t.Errorf("%s after later decodes (-decoded into types +got):\n%s", d.line, diff)
		}
	}
}

// TestDecodeRequest: every request decodes, in one parse, to what
// encoding/json makes of it in the types, and an invalid one fails as
// ValidateRequest says.
func TestDecodeRequest(t *testing.T) {
	t.Parallel()
	all := []Operation{OperationDestroy, OperationRead, OperationImport, OperationPreview}
	tests := map[string]string{
		"create":            `{"createResourceRequest":{"type":"t","inputProperties":{"n":9007199254740993,"f":1.50,"l":[1,{"x":null}]},"isStateful":true}}`,
		"create stateless":  `{"createResourceRequest":{"type":"t","inputProperties":{},"isStateful":false}}`,
		"create planned":    `{"createResourceRequest":{"type":"t","inputProperties":{},"isStateful":true,"plan":"AQID"}}`,
		"update":            `{"updateResourceRequest":{"resource":{"type":"t","inputProperties":{"a":1},"outputProperties":{"id":"x"}},"inputProperties":{"a":2},"plan":"AQID"}}`,
		"update no outputs": `{"updateResourceRequest":{"resource":{"type":"t","inputProperties":{}},"inputProperties":{}}}`,
		"preview create":    `{"previewResourceRequest":{"type":"t","inputProperties":{"a":"b"},"isStateful":true}}`,
		"preview update":    `{"previewResourceRequest":{"type":"t","resource":{"type":"t","inputProperties":{},"outputProperties":{}},"inputProperties":{}}}`,
		"destroy":           `{"destroyResourceRequest":{"resource":{"type":"t","inputProperties":{},"outputProperties":{"id":"x"}}}}`,
		"read":              `{"readResourceRequest":{"resource":{"type":"t","inputProperties":{"k":[]}}}}`,
		"import":            `{"importResourceRequest":{"type":"t","id":"x"}}`,
		"state read":        `{"stateResourceReadRequest":{"resource":{"type":"s","inputProperties":{}}}}`,
		"state event":       `{"stateResourceEvent":{"resource":{"type":"s","inputProperties":{}},"event":"e","nixopsVersion":"v","patch":[{"op":"add","path":"/a","value":1}]}}`,
	}
	for name, line := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := DecodeRequest([]byte(line), all)
			if err != nil {
				t.Fatalf("DecodeRequest: %v", err)
			}
			var want Request
			dec := json.NewDecoder(bytes.NewReader([]byte(line)))
			dec.UseNumber()
			if err := dec.Decode(&want); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(&want, got); diff != "" {
				t.Errorf("DecodeRequest (-decoded into types +got):\n%s", diff)
			}
		})
	}
	for name, line := range map[string]string{
		"not json":     `garbage`,
		"undeclared":   `{"destroyResourceRequest":{"resource":{"type":"t","inputProperties":{}}}}`,
		"missing type": `{"createResourceRequest":{"inputProperties":{},"isStateful":true}}`,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := DecodeRequest([]byte(line), nil)
			want := ValidateRequest([]byte(line), nil)
			if err == nil || want == nil || err.Error() != want.Error() {
				t.Errorf("DecodeRequest: %v, want the error ValidateRequest gives: %v", err, want)
			}
		})
	}
}

func TestDecodeResponseErrors(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		line    string
		invalid bool // a *ValidationError, not a JSON syntax error
	}{
		"not json":           {line: `garbage`},
		"trailing data":      {line: `{"destroyResourceResponse":{}} {}`},
		"torn":               {line: `{"destroyResourceResponse":{`},
		"not an object":      {line: `[1]`, invalid: true},
		"two keys":           {line: `{"destroyResourceResponse":{},"errorResponse":{"message":"x"}}`, invalid: true},
		"extra field":        {line: `{"createResourceResponse":{"outputProperties":{},"bonus":1}}`, invalid: true},
		"state not object":   {line: `{"stateResourceReadResponse":{"state":5}}`, invalid: true},
		"undeclared destroy": {line: `{"destroyResourceResponse":{}}`, invalid: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			resp, err := DecodeResponse([]byte(tc.line), nil)
			if err == nil {
				t.Fatalf("DecodeResponse = %+v, want an error", resp)
			}
			var ve *ValidationError
			if got := errors.As(err, &ve); got != tc.invalid {
				t.Errorf("error %v: is a *ValidationError = %v, want %v", err, got, tc.invalid)
			}
			if verr := ValidateResponse([]byte(tc.line), nil); verr == nil {
				t.Errorf("ValidateResponse accepts what DecodeResponse refuses")
			}
		})
	}
}

// TestEverySchemaCompiles compiles every message's schema in the
// reference validator, and finds its generated one: each is compiled on
// its first use, so a broken one would otherwise show only when a
// provider first sends that message.
func TestEverySchemaCompiles(t *testing.T) {
	t.Parallel()
	urls := []string{StateSchemaURL}
	for _, defs := range []map[string]messageDef{requestDefs, responseDefs} {
		for _, def := range defs {
			urls = append(urls, def.url)
		}
	}
	for _, url := range urls {
		if _, err := schemaFor(url, url); err != nil {
			t.Errorf("%s: %v", url, err)
		}
		if _, found := validateGenerated(url, nil, nil, &report{}); !found {
			t.Errorf("%s: no generated validator (go generate ./schema)", url)
		}
	}
}
