package provider

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pierhq/pier/host/internal/proc/proctest"
	"github.com/pierhq/pier/schema"
	"github.com/pierhq/pier/schema/logkey"
)

var allOps = []schema.Operation{schema.OperationDestroy, schema.OperationRead, schema.OperationImport}

// roundTrip normalises a value through JSON, as the wire does (numbers
// become float64).
func roundTrip(tb testing.TB, v any) any {
	tb.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(data, &out); err != nil {
		tb.Fatal(err)
	}
	return out
}

// TestPythonProvider drives the Python provider through every request
// kind on one process, including its error responses, which must leave
// the process usable.
func TestPythonProvider(t *testing.T) {
	t.Parallel()
	exe := testProvider(t, "python/provider.py", "python3")
	dir := t.TempDir()
	var logs logBuffer
	p, err := Start(t.Context(), Config{
		Name: "py", Executable: exe, Operations: allOps, Dir: dir,
		Logger: slog.New(slog.NewJSONHandler(&logs, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	pid := p.Pid()
	ctx := t.Context()

	// Stateless greeting.
	created, err := p.Create(ctx, "web.greet", &schema.CreateResourceRequest{Type: "greeting", InputProperties: schema.Properties{"name": "pier"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := created.OutputProperties["message"]; got != "hello, pier!" {
		t.Errorf("greeting message = %v", got)
	}

	// Error responses: unknown input, unknown type, stateless memo.
	errCases := map[string]struct {
		req  *schema.CreateResourceRequest
		want string
	}{
		"unknown input": {req: &schema.CreateResourceRequest{Type: "greeting", InputProperties: schema.Properties{"name": "x", "colour": "red"}}, want: "greeting: unknown input colour"},
		"missing input": {req: &schema.CreateResourceRequest{Type: "greeting", InputProperties: schema.Properties{}}, want: "greeting: missing input name"},
		"unknown type":  {req: &schema.CreateResourceRequest{Type: "teapot", InputProperties: schema.Properties{}}, want: "unknown resource type 'teapot'"},
		"stateless memo": {
			req:  &schema.CreateResourceRequest{Type: "memo", InputProperties: schema.Properties{"dir": dir, "key": "k", "value": "v"}},
			want: "memo resources must be stateful",
		},
	}
	for name, tc := range errCases {
		_, err := p.Create(ctx, "web.bad", tc.req)
		var re *ResponseError
		if !errors.As(err, &re) {
			t.Fatalf("%s: Create() = %v, want *ResponseError", name, err)
		}
		want := ResponseError{Provider: "py", Executable: exe, Request: "createResourceRequest", ResourceType: tc.req.Type, Resource: "web.bad", Message: tc.want}
		if diff := cmp.Diff(want, *re); diff != "" {
			t.Errorf("%s: ResponseError (-want +got):\n%s", name, diff)
		}
		if !strings.Contains(err.Error(), `provider "py"`) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: message %q lacks provider or provider message", name, err)
		}
	}

	// Stateful memo: create, update, read, import, destroy.
	inputs := schema.Properties{"dir": dir, "key": "note", "value": "first"}
	memo, err := p.Create(ctx, "web.memo", &schema.CreateResourceRequest{Type: "memo", InputProperties: inputs, IsStateful: true})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "note")
	if diff := cmp.Diff(roundTrip(t, schema.Properties{"path": path, "length": 5}), roundTrip(t, memo.OutputProperties)); diff != "" {
		t.Errorf("memo outputs (-want +got):\n%s", diff)
	}
	newInputs := schema.Properties{"dir": dir, "key": "note", "value": "second!"}
	updated, err := p.Update(ctx, "web.memo", &schema.UpdateResourceRequest{
		Resource:        schema.ExtantResource{Type: "memo", InputProperties: inputs, OutputProperties: memo.OutputProperties},
		InputProperties: newInputs,
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := updated.OutputProperties["length"]; got != json.Number("7") {
		t.Errorf("updated length = %v, want 7", got)
	}
	extant := schema.ExtantResource{Type: "memo", InputProperties: newInputs, OutputProperties: updated.OutputProperties}
	read, err := p.Read(ctx, "web.memo", &schema.ReadResourceRequest{Resource: extant})
	if err != nil {
		t.Fatal(err)
	}
	if !read.Exists || read.OutputProperties["path"] != path {
		t.Errorf("Read() = %+v, want an existing memo at %s", read, path)
	}
	imported, err := p.Import(ctx, "web.memo2", &schema.ImportResourceRequest{Type: "memo", ID: path})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(roundTrip(t, newInputs), roundTrip(t, imported.InputProperties)); diff != "" {
		t.Errorf("imported inputs (-want +got):\n%s", diff)
	}
	if _, err := p.Destroy(ctx, "web.memo", &schema.DestroyResourceRequest{Resource: extant}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("memo file after destroy: %v, want it gone", err)
	}
	gone, err := p.Read(ctx, "web.memo", &schema.ReadResourceRequest{Resource: extant})
	if err != nil {
		t.Fatal(err)
	}
	if gone.Exists {
		t.Errorf("Read() after destroy = %+v, want exists=false", gone)
	}

	// State provider: read the empty state, record an event, read it back.
	stateRes := schema.ExtantResource{Type: "state", InputProperties: schema.Properties{"path": filepath.Join(dir, "state.json")}}
	st, err := p.StateRead(ctx, "state", &schema.StateResourceReadRequest{Resource: stateRes})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]any{"_type": "nixopsState", "resources": map[string]any{}, "deployments": map[string]any{}}, st.State); diff != "" {
		t.Errorf("initial state (-want +got):\n%s", diff)
	}
	patch := schema.Patch{{Op: "add", Path: "/resources/db", Value: json.RawMessage(`{"type":"memo","inputProperties":{}}`)}}
	if _, err := p.StateEvent(ctx, "state", &schema.StateResourceEvent{Resource: stateRes, Event: "create", NixopsVersion: "test", Patch: patch}); err != nil {
		t.Fatal(err)
	}
	st, err = p.StateRead(ctx, "state", &schema.StateResourceReadRequest{Resource: stateRes})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]any{"db": map[string]any{"type": "memo", "inputProperties": map[string]any{}}}, st.State["resources"]); diff != "" {
		t.Errorf("state resources after event (-want +got):\n%s", diff)
	}

	// stderr was forwarded line by line with provider and resource.
	recs := logs.records(t, "python-provider: handling importResourceRequest")
	if len(recs) != 1 || recs[0][logkey.Provider] != "py" || recs[0][logkey.Resource] != "web.memo2" || recs[0]["level"] != "INFO" {
		t.Errorf("stderr records = %v, want one INFO record with provider=py resource=web.memo2", recs)
	}

	if err := p.Close(); err != nil {
		t.Errorf("Close() = %v", err)
	}
	proctest.AssertGroupGone(t, pid)
}

func TestShProvider(t *testing.T) {
	t.Parallel()
	exe := testProvider(t, "sh/provider.sh", "sh", "jq")
	dir := t.TempDir()
	p, err := Start(t.Context(), Config{Name: "sh", Executable: exe, Operations: []schema.Operation{schema.OperationDestroy}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ctx := t.Context()

	echo, err := p.Create(ctx, "e", &schema.CreateResourceRequest{Type: "echo", InputProperties: schema.Properties{"text": "a \"quoted\" line"}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(schema.Properties{"echo": `a "quoted" line`}, echo.OutputProperties); diff != "" {
		t.Errorf("echo outputs (-want +got):\n%s", diff)
	}
	errCases := map[string]struct {
		req  *schema.CreateResourceRequest
		want string
	}{
		"unknown input":  {req: &schema.CreateResourceRequest{Type: "echo", InputProperties: schema.Properties{"text": "x", "loud": true}}, want: "echo: unknown input loud"},
		"missing input":  {req: &schema.CreateResourceRequest{Type: "file", InputProperties: schema.Properties{"path": "x"}, IsStateful: true}, want: "file: missing input content"},
		"unknown type":   {req: &schema.CreateResourceRequest{Type: "teapot", InputProperties: schema.Properties{}}, want: `unknown resource type "teapot"`},
		"stateless file": {req: &schema.CreateResourceRequest{Type: "file", InputProperties: schema.Properties{}}, want: "file resources must be stateful"},
	}
	for name, tc := range errCases {
		_, err := p.Create(ctx, "bad", tc.req)
		var re *ResponseError
		if !errors.As(err, &re) || re.Message != tc.want {
			t.Errorf("%s: Create() = %v, want *ResponseError %q", name, err, tc.want)
		}
	}
	path := filepath.Join(dir, "f")
	inputs := schema.Properties{"path": path, "content": "abc"}
	created, err := p.Create(ctx, "f", &schema.CreateResourceRequest{Type: "file", InputProperties: inputs, IsStateful: true})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(schema.Properties{"path": path, "size": json.Number("3")}, created.OutputProperties); diff != "" {
		t.Errorf("file outputs (-want +got):\n%s", diff)
	}
	newInputs := schema.Properties{"path": path, "content": "abcdef"}
	updated, err := p.Update(ctx, "f", &schema.UpdateResourceRequest{Resource: schema.ExtantResource{Type: "file", InputProperties: inputs}, InputProperties: newInputs})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != "abcdef" || updated.OutputProperties["size"] != json.Number("6") {
		t.Errorf("after update: file %q, outputs %v", got, updated.OutputProperties)
	}
	if _, err := p.Destroy(ctx, "f", &schema.DestroyResourceRequest{Resource: schema.ExtantResource{Type: "file", InputProperties: newInputs}}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("file after destroy: %v, want it gone", err)
	}
}

// optionalOps is implemented by both Process and Pool.
type optionalOps interface {
	Destroy(context.Context, string, *schema.DestroyResourceRequest) (*schema.DestroyResourceResponse, error)
	Read(context.Context, string, *schema.ReadResourceRequest) (*schema.ReadResourceResponse, error)
	Import(context.Context, string, *schema.ImportResourceRequest) (*schema.ImportResourceResponse, error)
}

// TestNotDeclared: optional operations the provider did not declare are
// refused without sending anything, and a pool starts no process for them.
func TestNotDeclared(t *testing.T) {
	t.Parallel()
	exe := testProvider(t, "python/provider.py", "python3")
	extant := schema.ExtantResource{Type: "memo", InputProperties: schema.Properties{}}
	cases := map[string]struct {
		ops  []schema.Operation
		call func(ctx context.Context, c optionalOps) error
		kind string
	}{
		"destroy": {ops: []schema.Operation{schema.OperationRead}, kind: "destroyResourceRequest", call: func(ctx context.Context, c optionalOps) error {
			_, err := c.Destroy(ctx, "web.db", &schema.DestroyResourceRequest{Resource: extant})
			return err
		}},
		"read": {kind: "readResourceRequest", call: func(ctx context.Context, c optionalOps) error {
			_, err := c.Read(ctx, "web.db", &schema.ReadResourceRequest{Resource: extant})
			return err
		}},
		"import": {ops: []schema.Operation{schema.OperationDestroy}, kind: "importResourceRequest", call: func(ctx context.Context, c optionalOps) error {
			_, err := c.Import(ctx, "web.db", &schema.ImportResourceRequest{Type: "memo", ID: "x"})
			return err
		}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			requestLog := filepath.Join(t.TempDir(), "requests")
			cfg := Config{Name: "py", Executable: exe, Operations: tc.ops, Env: map[string]string{"PIER_TEST_REQUEST_LOG": requestLog}}

			pool := NewPool(cfg, 2)
			err := tc.call(t.Context(), pool)
			if !errors.Is(err, ErrNotDeclared) {
				t.Errorf("pool: error = %v, want ErrNotDeclared", err)
			}
			if pool.Started() != 0 {
				t.Errorf("pool started %d processes for an undeclared operation", pool.Started())
			}
			pool.Close()

			p, err := Start(t.Context(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			err = tc.call(t.Context(), p)
			if !errors.Is(err, ErrNotDeclared) || !strings.Contains(err.Error(), tc.kind) || !strings.Contains(err.Error(), "web.db") {
				t.Errorf("process: error = %v, want ErrNotDeclared naming %s and web.db", err, tc.kind)
			}
			// The process is still fine and saw only the request below.
			if _, err := p.Create(t.Context(), "web.greet", &schema.CreateResourceRequest{Type: "greeting", InputProperties: schema.Properties{"name": "x"}}); err != nil {
				t.Fatal(err)
			}
			p.Close()
			sent, err := os.ReadFile(requestLog)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff("createResourceRequest\n", string(sent)); diff != "" {
				t.Errorf("requests the provider received (-want +got):\n%s", diff)
			}
		})
	}
}

// TestInvalidRequestNotSent: a request pier itself built wrong is refused
// before it reaches the provider.
func TestInvalidRequestNotSent(t *testing.T) {
	t.Parallel()
	exe := testProvider(t, "python/provider.py", "python3")
	requestLog := filepath.Join(t.TempDir(), "requests")
	p, err := Start(t.Context(), Config{Name: "py", Executable: exe, Env: map[string]string{"PIER_TEST_REQUEST_LOG": requestLog}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	cases := map[string]struct {
		req  *schema.Request
		want string
	}{
		"nil inputs":  {req: &schema.Request{CreateResourceRequest: &schema.CreateResourceRequest{Type: "greeting"}}, want: "invalid request createResourceRequest"},
		"no message":  {req: &schema.Request{}, want: "must set exactly one message"},
		"two message": {req: &schema.Request{CreateResourceRequest: &schema.CreateResourceRequest{Type: "a", InputProperties: schema.Properties{}}, StateResourceReadRequest: &schema.StateResourceReadRequest{}}, want: "must set exactly one message"},
	}
	for name, tc := range cases {
		_, err := p.Call(t.Context(), "web.x", tc.req)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "web.x") {
			t.Errorf("%s: Call() = %v, want an error containing %q and the resource", name, err, tc.want)
		}
	}
	if _, err := os.Stat(requestLog); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the provider received requests (%v); want none", err)
	}
}

// TestConfigData: configuration reaches the provider on fd 3, not through
// argv or the environment.
func TestConfigData(t *testing.T) {
	t.Parallel()
	exe := testProvider(t, "python/provider.py", "python3")
	cases := map[string]struct {
		data []byte
		want schema.Properties
	}{
		"none":  {data: nil, want: schema.Properties{"configured": false, "keys": []any{}}},
		"given": {data: []byte(`{"token":"s3cret","region":"eu"}`), want: schema.Properties{"configured": true, "keys": []any{"region", "token"}}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var logs logBuffer
			p, err := Start(t.Context(), Config{Name: "py", Executable: exe, ConfigData: tc.data, Logger: slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
			if err != nil {
				t.Fatal(err)
			}
			out, err := p.Create(t.Context(), "cfg", &schema.CreateResourceRequest{Type: "config", InputProperties: schema.Properties{}})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, out.OutputProperties); diff != "" {
				t.Errorf("outputs (-want +got):\n%s", diff)
			}
			p.Close()
			if recs := logs.records(t, ""); strings.Contains(logs.buf.String(), "s3cret") {
				t.Errorf("configuration leaked into %d log records", len(recs))
			}
		})
	}
}
