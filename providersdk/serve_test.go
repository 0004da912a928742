package providersdk_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pierhq/pier/providersdk"
	"github.com/pierhq/pier/providersdk/sdktest"
	"github.com/pierhq/pier/schema"
)

// echo is a handler whose behaviour the request's inputs choose: it echoes
// inputs as outputs, or fails, panics or misbehaves on request.
type echo struct{}

type echoInputs struct {
	Value any    `json:"value"`
	Mode  string `json:"mode,omitempty"`
}

func (echo) run(props schema.Properties) (schema.Properties, error) {
	var in echoInputs
	if err := providersdk.DecodeInputs(props, &in); err != nil {
		return nil, err
	}
	switch in.Mode {
	case "fail":
		return nil, errors.New("asked to fail")
	case "panic":
		panic("asked to panic")
	case "nil":
		return nil, nil
	case "unknown":
		return nil, fmt.Errorf("backend: %w: connection reset", providersdk.ErrOutcomeUnknown)
	}
	return providersdk.EncodeOutputs(struct {
		Value any `json:"value"`
	}{in.Value})
}

func (e echo) Create(_ context.Context, req *schema.CreateResourceRequest) (*schema.CreateResourceResponse, error) {
	out, err := e.run(req.InputProperties)
	if err != nil {
		return nil, err
	}
	if out == nil {
		return nil, nil
	}
	return &schema.CreateResourceResponse{OutputProperties: out}, nil
}

func (e echo) Update(_ context.Context, req *schema.UpdateResourceRequest) (*schema.UpdateResourceResponse, error) {
	out, err := e.run(req.InputProperties)
	if err != nil {
		return nil, err
	}
	return &schema.UpdateResourceResponse{OutputProperties: out}, nil
}

// echoState is echo plus state operations; StateRead returns a nil state
// document, which the schema forbids, so that response validation shows.
type echoState struct{ echo }

func (echoState) StateRead(context.Context, *schema.StateResourceReadRequest) (*schema.StateResourceReadResponse, error) {
	return &schema.StateResourceReadResponse{}, nil
}

func (echoState) StateEvent(context.Context, *schema.StateResourceEvent) (*schema.StateResourceEventResponse, error) {
	return &schema.StateResourceEventResponse{}, nil
}

// echoAll implements every optional operation.
type echoAll struct{ echo }

func (echoAll) Destroy(context.Context, *schema.DestroyResourceRequest) (*schema.DestroyResourceResponse, error) {
	return &schema.DestroyResourceResponse{}, nil
}

func (echoAll) Read(context.Context, *schema.ReadResourceRequest) (*schema.ReadResourceResponse, error) {
	return &schema.ReadResourceResponse{Exists: false}, nil
}

func (echoAll) Import(_ context.Context, req *schema.ImportResourceRequest) (*schema.ImportResourceResponse, error) {
	return &schema.ImportResourceResponse{InputProperties: schema.Properties{"value": req.ID}}, nil
}

// Preview says that a changed value replaces, as a provider whose value
// is immutable would, and plans the new value as the output. A create
// plans its value, and refuses a value that is not a number.
func (echoAll) Preview(_ context.Context, req *schema.PreviewResourceRequest) (*schema.PreviewResourceResponse, error) {
	if req.Resource == nil {
		if _, ok := req.InputProperties["value"].(json.Number); !ok {
			return &schema.PreviewResourceResponse{Diagnostics: []schema.Diagnostic{{
				Severity: schema.SeverityError, Summary: "Invalid value", Detail: "value must be a number", Attribute: schema.AttributePath{"value"},
			}}}, nil
		}
		return &schema.PreviewResourceResponse{PlannedOutputProperties: schema.Properties{"value": req.InputProperties["value"]}}, nil
	}
	if fmt.Sprint(req.Resource.InputProperties["value"]) == fmt.Sprint(req.InputProperties["value"]) {
		return &schema.PreviewResourceResponse{}, nil
	}
	return &schema.PreviewResourceResponse{
		Replace:                 true,
		ReplaceReasons:          []string{"value"},
		PlannedOutputProperties: schema.Properties{"value": req.InputProperties["value"]},
	}, nil
}

func TestServeResponses(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		handler providersdk.Handler
		line    string
		want    string // the response line
	}{
		"create echoes": {
			handler: echo{},
			line:    `{"createResourceRequest":{"type":"t","inputProperties":{"value":"hi"},"isStateful":false}}`,
			want:    `{"createResourceResponse":{"outputProperties":{"value":"hi"}}}`,
		},
		"large integers stay exact": {
			handler: echo{},
			line:    `{"createResourceRequest":{"type":"t","inputProperties":{"value":[9007199254740993,1.5e300]},"isStateful":false}}`,
			want:    `{"createResourceResponse":{"outputProperties":{"value":[9007199254740993,1.5e300]}}}`,
		},
		"update echoes": {
			handler: echo{},
			line:    `{"updateResourceRequest":{"resource":{"type":"t","inputProperties":{"value":1}},"inputProperties":{"value":2}}}`,
			want:    `{"updateResourceResponse":{"outputProperties":{"value":2}}}`,
		},
		"handler error names operation and type": {
			handler: echo{},
			line:    `{"createResourceRequest":{"type":"t","inputProperties":{"value":1,"mode":"fail"},"isStateful":true}}`,
			want:    `{"errorResponse":{"message":"create t: asked to fail"}}`,
		},
		"handler panic": {
			handler: echo{},
			line:    `{"createResourceRequest":{"type":"t","inputProperties":{"value":1,"mode":"panic"},"isStateful":true}}`,
			want:    `{"errorResponse":{"message":"create t: panic: asked to panic (this is a bug in the provider)"}}`,
		},
		"nil response": {
			handler: echo{},
			line:    `{"createResourceRequest":{"type":"t","inputProperties":{"value":1,"mode":"nil"},"isStateful":true}}`,
			want:    `{"errorResponse":{"message":"create t: handler returned no response and no error (this is a bug in the provider)"}}`,
		},
		"unknown input field": {
			handler: echo{},
			line:    `{"createResourceRequest":{"type":"t","inputProperties":{"value":1,"colour":"red"},"isStateful":true}}`,
			want:    `{"errorResponse":{"message":"create t: input field \"colour\": unknown field (known: mode, value)"}}`,
		},
		"not json": {
			handler: echo{},
			line:    `{"createResourceRequest":`,
			want:    `{"errorResponse":{"message":"invalid request: at /: a JSON object with exactly one of createResourceRequest, stateResourceEvent, stateResourceReadRequest, updateResourceRequest"}}`,
		},
		"schema violation": {
			handler: echo{},
			line:    `{"createResourceRequest":{"type":"t","inputProperties":{}}}`,
			want:    `{"errorResponse":{"message":"invalid request createResourceRequest: at /createResourceRequest: missing properties: 'isStateful'"}}`,
		},
		"undeclared optional operation": {
			handler: echo{},
			line:    `{"destroyResourceRequest":{"resource":{"type":"t","inputProperties":{}}}}`,
			want:    `{"errorResponse":{"message":"invalid request destroyResourceRequest: at /destroyResourceRequest: destroyResourceRequest belongs to the optional operation \"destroy\", which the provider did not declare"}}`,
		},
		"state operation on a stateless provider": {
			handler: echo{},
			line:    `{"stateResourceReadRequest":{"resource":{"type":"t","inputProperties":{}}}}`,
			want:    `{"errorResponse":{"message":"state read t: this provider stores no state: it implements neither stateResourceReadRequest nor stateResourceEvent"}}`,
		},
		"state event": {
			handler: echoState{},
			line:    `{"stateResourceEvent":{"resource":{"type":"t","inputProperties":{}},"event":"create","nixopsVersion":"1","patch":[{"op":"add","path":"/a","value":1}]}}`,
			want:    `{"stateResourceEventResponse":{}}`,
		},
		"invalid handler response": {
			handler: echoState{},
			line:    `{"stateResourceReadRequest":{"resource":{"type":"t","inputProperties":{}}}}`,
			want:    `{"errorResponse":{"message":"state read t: the provider produced an invalid response stateResourceReadResponse: at /stateResourceReadResponse/state: expected object, but got null (this is a bug in the provider)"}}`,
		},
		"destroy": {
			handler: echoAll{},
			line:    `{"destroyResourceRequest":{"resource":{"type":"t","inputProperties":{}}}}`,
			want:    `{"destroyResourceResponse":{}}`,
		},
		"read": {
			handler: echoAll{},
			line:    `{"readResourceRequest":{"resource":{"type":"t","inputProperties":{}}}}`,
			want:    `{"readResourceResponse":{"exists":false}}`,
		},
		"preview replaces": {
			handler: echoAll{},
			line:    `{"previewResourceRequest":{"type":"t","resource":{"type":"t","inputProperties":{"value":1},"outputProperties":{"value":1}},"inputProperties":{"value":2}}}`,
			want:    `{"previewResourceResponse":{"replace":true,"replaceReasons":["value"],"plannedOutputProperties":{"value":2}}}`,
		},
		"preview in place": {
			handler: echoAll{},
			line:    `{"previewResourceRequest":{"type":"t","resource":{"type":"t","inputProperties":{"value":1}},"inputProperties":{"value":1}}}`,
			want:    `{"previewResourceResponse":{"replace":false}}`,
		},
		"preview create": {
			handler: echoAll{},
			line:    `{"previewResourceRequest":{"type":"t","inputProperties":{"value":9007199254740993},"isStateful":true}}`,
			want:    `{"previewResourceResponse":{"replace":false,"plannedOutputProperties":{"value":9007199254740993}}}`,
		},
		"preview create refused": {
			handler: echoAll{},
			line:    `{"previewResourceRequest":{"type":"t","inputProperties":{"value":"x"}}}`,
			want:    `{"previewResourceResponse":{"replace":false,"diagnostics":[{"severity":"error","summary":"Invalid value","detail":"value must be a number","attribute":["value"]}]}}`,
		},
		"undeclared preview": {
			handler: echo{},
			line:    `{"previewResourceRequest":{"type":"t","resource":{"type":"t","inputProperties":{"value":1}},"inputProperties":{"value":2}}}`,
			want:    `{"errorResponse":{"message":"invalid request previewResourceRequest: at /previewResourceRequest: previewResourceRequest belongs to the optional operation \"preview\", which the provider did not declare"}}`,
		},
		"import fills empty outputs": {
			handler: echoAll{},
			line:    `{"importResourceRequest":{"type":"t","id":"x1"}}`,
			want:    `{"importResourceResponse":{"inputProperties":{"value":"x1"},"outputProperties":{}}}`,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := sdktest.Start(t, tc.handler, providersdk.Options{})
			got, err := c.CallLine([]byte(tc.line))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Errorf("response (-want +got):\n%s", diff)
			}
		})
	}
}

// TestServeHostValidates checks that with Options.HostValidates the server
// leaves the response check to the host: the handler's invalid response
// goes out as it is, for the host to reject.
func TestServeHostValidates(t *testing.T) {
	t.Parallel()
	in := `{"stateResourceReadRequest":{"resource":{"type":"t","inputProperties":{}}}}` + "\n"
	var out strings.Builder
	if err := providersdk.ServeIO(t.Context(), echoState{}, strings.NewReader(in), &out, providersdk.Options{HostValidates: true}); err != nil {
		t.Fatalf("ServeIO: %v", err)
	}
	want := `{"stateResourceReadResponse":{"state":null}}` + "\n"
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("response (-want +got):\n%s", diff)
	}
}

// TestServeKeepsServing checks that bad lines of every sort are answered
// and that the loop then serves the next request.
func TestServeKeepsServing(t *testing.T) {
	t.Parallel()
	in := strings.Join([]string{
		`garbage`,
		``,
		`   `,
		`{"createResourceRequest":{"type":"t","inputProperties":{"value":"` + strings.Repeat("x", 200) + `"},"isStateful":false}}`,
		`{"createResourceRequest":{"type":"t","inputProperties":{"value":1,"mode":"panic"},"isStateful":false}}`,
		`{"createResourceRequest":{"type":"t","inputProperties":{"value":"ok"},"isStateful":false}}`,
	}, "\n") // no final newline: the last line still counts
	var out strings.Builder
	err := providersdk.ServeIO(t.Context(), echo{}, strings.NewReader(in), &out, providersdk.Options{MaxLineSize: 150})
	if err != nil {
		t.Fatalf("ServeIO: %v", err)
	}
	var kinds []string
	for line := range strings.Lines(out.String()) {
		var r schema.Response
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("response %q: %v", line, err)
		}
		kind := r.Kind()
		if r.ErrorResponse != nil {
			kind += ": " + r.ErrorResponse.Message
		}
		kinds = append(kinds, kind)
	}
	want := []string{
		"errorResponse: invalid request: at /: a JSON object with exactly one of createResourceRequest, stateResourceEvent, stateResourceReadRequest, updateResourceRequest",
		"errorResponse: frame too large: line exceeds the 150 byte limit (288 bytes read)",
		"errorResponse: create t: panic: asked to panic (this is a bug in the provider)",
		"createResourceResponse",
	}
	if diff := cmp.Diff(want, kinds); diff != "" {
		t.Errorf("responses (-want +got):\n%s", diff)
	}
}

// TestServeOutcomeUnknown: a handler that cannot tell whether its
// operation happened gets no answer written, not an errorResponse (which
// would tell the host that nothing was done), and ServeIO stops with the
// error and the exit status that say so; what came before is answered.
func TestServeOutcomeUnknown(t *testing.T) {
	t.Parallel()
	in := `{"createResourceRequest":{"type":"t","inputProperties":{"value":1},"isStateful":false}}
{"createResourceRequest":{"type":"t","inputProperties":{"value":2,"mode":"unknown"},"isStateful":false}}
{"createResourceRequest":{"type":"t","inputProperties":{"value":3},"isStateful":false}}
`
	var out strings.Builder
	err := providersdk.ServeIO(t.Context(), echo{}, strings.NewReader(in), &out, providersdk.Options{})
	var unknown *providersdk.OutcomeUnknownError
	if !errors.As(err, &unknown) || !errors.Is(err, providersdk.ErrOutcomeUnknown) {
		t.Fatalf("ServeIO = %v, want an *OutcomeUnknownError", err)
	}
	if unknown.Seq != 2 || unknown.Op != "create" || unknown.Type != "t" || unknown.ExitCode() != schema.OutcomeUnknownExitStatus {
		t.Errorf("OutcomeUnknownError = %+v (exit code %d)", unknown, unknown.ExitCode())
	}
	if want := "request 2, create t: backend: outcome unknown: connection reset: exiting without an answer"; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q lacks %q", err, want)
	}
	if want := `{"createResourceResponse":{"outputProperties":{"value":1}}}` + "\n"; out.String() != want {
		t.Errorf("output %q, want only the first answer %q", out.String(), want)
	}
}

func TestServeStopsOnCancel(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	inR, inW := io.Pipe()
	defer inW.Close()
	errc := make(chan error, 1)
	go func() { errc <- providersdk.ServeIO(ctx, echo{}, inR, io.Discard, providersdk.Options{}) }()
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("ServeIO after cancel = %v, want context.Canceled", err)
	}
}

func TestServeWriteError(t *testing.T) {
	t.Parallel()
	in := `{"createResourceRequest":{"type":"t","inputProperties":{"value":1},"isStateful":false}}` + "\n"
	err := providersdk.ServeIO(t.Context(), echo{}, strings.NewReader(in), failWriter{}, providersdk.Options{})
	if err == nil || !strings.Contains(err.Error(), "write response 1: stdout gone") {
		t.Errorf("ServeIO = %v, want a write error", err)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("stdout gone") }

func TestOperations(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		handler providersdk.Handler
		want    []schema.Operation
	}{
		"none":  {handler: echo{}, want: nil},
		"state": {handler: echoState{}, want: nil},
		"all":   {handler: echoAll{}, want: []schema.Operation{schema.OperationDestroy, schema.OperationRead, schema.OperationImport, schema.OperationPreview}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, providersdk.Operations(tc.handler)); diff != "" {
				t.Errorf("Operations (-want +got):\n%s", diff)
			}
		})
	}
}

func TestClientCall(t *testing.T) {
	t.Parallel()
	c := sdktest.Start(t, echo{}, providersdk.Options{})
	resp, err := c.Call(&schema.Request{CreateResourceRequest: &schema.CreateResourceRequest{
		Type: "t", InputProperties: schema.Properties{"value": json.Number("12345678901234567890")},
	}})
	if err != nil {
		t.Fatal(err)
	}
	want := &schema.Response{CreateResourceResponse: &schema.CreateResourceResponse{
		OutputProperties: schema.Properties{"value": json.Number("12345678901234567890")},
	}}
	if diff := cmp.Diff(want, resp); diff != "" {
		t.Errorf("response (-want +got):\n%s", diff)
	}
	if err := c.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if _, err := c.Call(&schema.Request{CreateResourceRequest: &schema.CreateResourceRequest{Type: "t"}}); err == nil {
		t.Error("Call after Close succeeded")
	}
}
