package schema

import (
	"errors"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

func TestValidateAccepts(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		request bool
		msg     string
		ops     []Operation
	}{
		"create request":               {true, `{"createResourceRequest":{"type":"file","inputProperties":{"name":"a","contents":"b"},"isStateful":false}}`, nil},
		"update request with outputs":  {true, `{"updateResourceRequest":{"resource":{"type":"memo","inputProperties":{"initialize_with":"x"},"outputProperties":{"value":"x"}},"inputProperties":{"initialize_with":"y"}}}`, nil},
		"state event with add patch":   {true, `{"stateResourceEvent":{"resource":{"type":"state_file","inputProperties":{"name":"s.json"}},"event":"create","nixopsVersion":"pier 0.1","patch":[{"op":"add","path":"/resources/a","value":{"type":"memo"}}]}}`, nil},
		"state read":                   {true, `{"stateResourceReadRequest":{"resource":{"type":"state_file","inputProperties":{"name":"s.json"},"outputProperties":{}}}}`, nil},
		"error response":               {false, `{"errorResponse":{"message":"no such type"}}`, nil},
		"create response":              {false, `{"createResourceResponse":{"outputProperties":{}}}`, nil},
		"event response":               {false, `{"stateResourceEventResponse":{}}`, nil},
		"state response":               {false, `{"stateResourceReadResponse":{"state":{"_type":"nixopsState"}}}`, nil},
		"declared destroy":             {true, `{"destroyResourceRequest":{"resource":{"type":"file","inputProperties":{}}}}`, []Operation{OperationDestroy}},
		"declared destroy response":    {false, `{"destroyResourceResponse":{}}`, []Operation{OperationDestroy}},
		"move with from":               {true, `{"stateResourceEvent":{"resource":{"type":"s","inputProperties":{}},"event":"e","nixopsVersion":"v","patch":[{"op":"move","from":"/a","path":"/b"}]}}`, nil},
		"escaped pointer":              {true, `{"stateResourceEvent":{"resource":{"type":"s","inputProperties":{}},"event":"e","nixopsVersion":"v","patch":[{"op":"remove","path":"/resources/a~1b~0c"}]}}`, nil},
		"read response gone":           {false, `{"readResourceResponse":{"exists":false}}`, []Operation{OperationRead}},
		"import request":               {true, `{"importResourceRequest":{"type":"time_static","id":"2024-01-01T00:00:00Z"}}`, []Operation{OperationImport}},
		"preview request":              {true, `{"previewResourceRequest":{"type":"time_static","resource":{"type":"time_static","inputProperties":{"triggers":{"r":"v1"}},"outputProperties":{"id":"x"}},"inputProperties":{"triggers":{"r":"v2"}}}}`, []Operation{OperationPreview}},
		"preview create request":       {true, `{"previewResourceRequest":{"type":"time_static","inputProperties":{"triggers":{"r":"v1"}},"isStateful":true}}`, []Operation{OperationPreview}},
		"preview response planned":     {false, `{"previewResourceResponse":{"replace":false,"plannedOutputProperties":{"triggers":{"r":"v1"}},"unknownOutputs":[["id"],["rule",0,"port"]]}}`, []Operation{OperationPreview}},
		"preview response diagnostics": {false, `{"previewResourceResponse":{"replace":false,"diagnostics":[{"severity":"error","summary":"Invalid value","detail":"expected ingress or egress","attribute":["direction"]},{"severity":"warning","summary":"Deprecated"}]}}`, []Operation{OperationPreview}},
		"preview response replace":     {false, `{"previewResourceResponse":{"replace":true,"replaceReasons":["triggers"],"plannedOutputProperties":{"triggers":{"r":"v2"}}}}`, []Operation{OperationPreview}},
		"preview response in place":    {false, `{"previewResourceResponse":{"replace":false}}`, []Operation{OperationPreview}},
		"preview response with plan":   {false, `{"previewResourceResponse":{"replace":false,"plan":"AQID"}}`, []Operation{OperationPreview}},
		"create request with plan":     {true, `{"createResourceRequest":{"type":"time_static","inputProperties":{},"isStateful":true,"plan":"AQID"}}`, []Operation{OperationPreview}},
		"update request with plan":     {true, `{"updateResourceRequest":{"resource":{"type":"t","inputProperties":{}},"inputProperties":{},"plan":"AQID"}}`, []Operation{OperationPreview}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			validate := ValidateResponse
			if tc.request {
				validate = ValidateRequest
			}
			if err := validate([]byte(tc.msg), tc.ops); err != nil {
				t.Fatalf("want valid, got %v", err)
			}
		})
	}
}

func TestValidateRejects(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		request bool
		msg     string
		// want are substrings of the error: the pointer and what was expected.
		want []string
	}{
		"extra top-level key": {true, `{"createResourceRequest":{"type":"f","inputProperties":{},"isStateful":true},"extra":1}`,
			[]string{"exactly one key, got 2 (createResourceRequest, extra)"}},
		"two keys in one wrapper": {false, `{"createResourceResponse":{"outputProperties":{}},"errorResponse":{"message":"x"}}`,
			[]string{"exactly one key, got 2"}},
		"wrong type": {true, `{"createResourceRequest":{"type":"f","inputProperties":{},"isStateful":"yes"}}`,
			[]string{"at /createResourceRequest/isStateful:", "expected boolean, but got string"}},
		"missing isStateful": {true, `{"createResourceRequest":{"type":"f","inputProperties":{}}}`,
			[]string{"at /createResourceRequest:", "isStateful"}},
		"move without from": {true, `{"stateResourceEvent":{"resource":{"type":"s","inputProperties":{}},"event":"e","nixopsVersion":"v","patch":[{"op":"move","path":"/b"}]}}`,
			[]string{"at /stateResourceEvent/patch/0:", "missing properties: 'from'"}},
		"unknown kind": {true, `{"frobnicateRequest":{}}`,
			[]string{"at /frobnicateRequest:", "one of createResourceRequest"}},
		"undeclared destroy": {true, `{"destroyResourceRequest":{"resource":{"type":"file","inputProperties":{}}}}`,
			[]string{`optional operation "destroy", which the provider did not declare`}},
		"undeclared preview": {true, `{"previewResourceRequest":{"type":"file","inputProperties":{}}}`,
			[]string{`optional operation "preview", which the provider did not declare`}},
		"plan without preview": {true, `{"createResourceRequest":{"type":"f","inputProperties":{},"isStateful":true,"plan":"AQID"}}`,
			[]string{"at /createResourceRequest:", "'plan' not allowed"}},
		"not json": {false, `garbage`, []string{"a JSON object with exactly one of"}},
		"extra field in body": {false, `{"createResourceResponse":{"outputProperties":{},"bonus":true}}`,
			[]string{"at /createResourceResponse:", "additionalProperties 'bonus' not allowed"}},
		"bad pointer": {true, `{"stateResourceEvent":{"resource":{"type":"s","inputProperties":{}},"event":"e","nixopsVersion":"v","patch":[{"op":"remove","path":"a~2"}]}}`,
			[]string{"at /stateResourceEvent/patch/0/path:"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			validate := ValidateResponse
			if tc.request {
				validate = ValidateRequest
			}
			err := validate([]byte(tc.msg), nil)
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("want *ValidationError, got %v", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// TestValidateRejectsPreview checks the preview bodies when the provider
// did declare the operation.
func TestValidateRejectsPreview(t *testing.T) {
	t.Parallel()
	ops := []Operation{OperationPreview}
	tests := map[string]struct {
		request bool
		msg     string
		want    string
	}{
		"request without inputProperties": {true, `{"previewResourceRequest":{"type":"f","resource":{"type":"f","inputProperties":{}}}}`, "inputProperties"},
		"request without type":            {true, `{"previewResourceRequest":{"inputProperties":{}}}`, "type"},
		"diagnostic without summary":      {false, `{"previewResourceResponse":{"replace":false,"diagnostics":[{"severity":"error"}]}}`, "summary"},
		"diagnostic bad severity":         {false, `{"previewResourceResponse":{"replace":false,"diagnostics":[{"severity":"fatal","summary":"x"}]}}`, "at /previewResourceResponse/diagnostics/0/severity:"},
		"path step not string or index":   {false, `{"previewResourceResponse":{"replace":false,"unknownOutputs":[[true]]}}`, "at /previewResourceResponse/unknownOutputs/0/0:"},
		"path step negative index":        {false, `{"previewResourceResponse":{"replace":false,"unknownOutputs":[["rule",-1]]}}`, "at /previewResourceResponse/unknownOutputs/0/1:"},
		"path step fractional index":      {false, `{"previewResourceResponse":{"replace":false,"unknownOutputs":[["rule",1.5]]}}`, "at /previewResourceResponse/unknownOutputs/0/1:"},
		"response without replace":        {false, `{"previewResourceResponse":{"replaceReasons":["triggers"]}}`, "replace"},
		"reasons not strings":             {false, `{"previewResourceResponse":{"replace":true,"replaceReasons":[1]}}`, "at /previewResourceResponse/replaceReasons/0:"},
		"replace not boolean":             {false, `{"previewResourceResponse":{"replace":"yes"}}`, "at /previewResourceResponse/replace:"},
		"plan not a string":               {false, `{"previewResourceResponse":{"replace":false,"plan":1}}`, "at /previewResourceResponse/plan:"},
		"create plan not a string":        {true, `{"createResourceRequest":{"type":"t","inputProperties":{},"isStateful":true,"plan":{}}}`, "at /createResourceRequest/plan:"},
		"create extended still v0":        {true, `{"createResourceRequest":{"type":"t","inputProperties":{},"plan":"x"}}`, "isStateful"},
		"update unknown member":           {true, `{"updateResourceRequest":{"resource":{"type":"t","inputProperties":{}},"inputProperties":{},"planned":"x"}}`, "planned"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			validate := ValidateResponse
			if tc.request {
				validate = ValidateRequest
			}
			err := validate([]byte(tc.msg), ops)
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("want *ValidationError, got %v", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q lacks %q", err, tc.want)
			}
		})
	}
}

// TestRemoteRefRefused proves that the loader never fetches: a schema that
// refers to a document pier does not embed fails to compile.
func TestRemoteRefRefused(t *testing.T) {
	t.Parallel()
	c, err := newCompiler()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AddResource("https://pier.dev/test.json", strings.NewReader(`{"$ref":"https://example.com/elsewhere.json#"}`)); err != nil {
		t.Fatal(err)
	}
	_, err = c.Compile("https://pier.dev/test.json")
	if !errors.Is(err, ErrRemoteRef) {
		t.Fatalf("want ErrRemoteRef, got %v", err)
	}
	var _ = jsonschema.Draft4
}

// TestProtocolVersionMatchesSchema guards against the embedded schema and
// the version constant drifting apart.
func TestProtocolVersionMatchesSchema(t *testing.T) {
	t.Parallel()
	data, err := schemaFiles.ReadFile(resourceSchemaFile)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "resource-schema-"+ProtocolVersion+".json") {
		t.Fatalf("embedded schema is not %s", ProtocolVersion)
	}
}

func TestValidateState(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		doc     string
		wantErr bool
	}{
		"nixops4 code spelling": {doc: `{"_type":"nixopsState","resources":{"a":{"type":"memo","input_properties":{},"output_properties":{"value":1},"provider":"local","dependencies":[]}},"deployments":{"web":{"resources":{}}}}`},
		"manual spelling":       {doc: `{"_type":"nixopsState","resources":{"a":{"type":"memo","inputProperties":{},"outputProperties":{"value":1}}},"deployments":{}}`},
		"nested entry":          {doc: `{"_type":"nixopsState","resources":{},"deployments":{"web":{"resources":{"b":{"type":"file","input_properties":{"name":"x"},"output_properties":{}}},"deployments":{}}}}`},
		"no inputs at all":      {doc: `{"_type":"nixopsState","resources":{"a":{"type":"memo","output_properties":{}}}}`, wantErr: true},
		"inputs not an object":  {doc: `{"_type":"nixopsState","resources":{"a":{"type":"memo","input_properties":[]}}}`, wantErr: true},
		"wrong _type":           {doc: `{"_type":"other"}`, wantErr: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			err := ValidateState([]byte(tc.doc))
			if (err != nil) != tc.wantErr {
				t.Fatalf("ValidateState: err = %v, want error %v", err, tc.wantErr)
			}
		})
	}
}

func TestKinds(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		got, want string
	}{
		"create request":   {(&Request{CreateResourceRequest: &CreateResourceRequest{}}).Kind(), "createResourceRequest"},
		"import request":   {(&Request{ImportResourceRequest: &ImportResourceRequest{}}).Kind(), "importResourceRequest"},
		"two requests":     {(&Request{CreateResourceRequest: &CreateResourceRequest{}, UpdateResourceRequest: &UpdateResourceRequest{}}).Kind(), ""},
		"empty request":    {(&Request{}).Kind(), ""},
		"read response":    {(&Response{ReadResourceResponse: &ReadResourceResponse{}}).Kind(), "readResourceResponse"},
		"import response":  {(&Response{ImportResourceResponse: &ImportResourceResponse{}}).Kind(), "importResourceResponse"},
		"preview request":  {(&Request{PreviewResourceRequest: &PreviewResourceRequest{Type: "t"}}).Kind(), "previewResourceRequest"},
		"preview type":     {(&Request{PreviewResourceRequest: &PreviewResourceRequest{Type: "t"}}).ResourceType(), "t"},
		"preview response": {(&Response{PreviewResourceResponse: &PreviewResourceResponse{}}).Kind(), "previewResourceResponse"},
		"preview kind":     {ResponseKind("previewResourceRequest"), "previewResourceResponse"},
		"error response":   {(&Response{ErrorResponse: &ErrorResponse{}}).Kind(), "errorResponse"},
		"response kind":    {ResponseKind("readResourceRequest"), "readResourceResponse"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if tc.got != tc.want {
				t.Errorf("got %q, want %q", tc.got, tc.want)
			}
		})
	}
}
