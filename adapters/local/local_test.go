package local_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pierhq/pier/adapters/local"
	"github.com/pierhq/pier/providersdk"
	"github.com/pierhq/pier/providersdk/sdktest"
)

// step is one request and what its response must be: exactly want, or an
// errorResponse whose message contains every wantErr fragment.
type step struct {
	req     string
	want    string
	wantErr []string
}

func create(typ, inputs string, stateful bool) string {
	return `{"createResourceRequest":{"type":"` + typ + `","inputProperties":` + inputs + `,"isStateful":` + map[bool]string{true: "true", false: "false"}[stateful] + `}}`
}

func update(typ, oldInputs, oldOutputs, inputs string) string {
	return `{"updateResourceRequest":{"resource":{"type":"` + typ + `","inputProperties":` + oldInputs + `,"outputProperties":` + oldOutputs + `},"inputProperties":` + inputs + `}}`
}

func destroy(typ, inputs string) string {
	return `{"destroyResourceRequest":{"resource":{"type":"` + typ + `","inputProperties":` + inputs + `}}}`
}

func stateRead(typ, inputs string) string {
	return `{"stateResourceReadRequest":{"resource":{"type":"` + typ + `","inputProperties":` + inputs + `}}}`
}

func stateEvent(inputs, event, patch string) string {
	return `{"stateResourceEvent":{"resource":{"type":"state_file","inputProperties":` + inputs + `},"event":"` + event + `","nixopsVersion":"0.1.0-test","patch":` + patch + `}}`
}

const (
	created   = `{"createResourceResponse":{"outputProperties":{}}}`
	updated   = `{"updateResourceResponse":{"outputProperties":{}}}`
	destroyed = `{"destroyResourceResponse":{}}`
	emptyDoc  = `{"stateResourceReadResponse":{"state":{"_type":"nixopsState","deployments":{},"resources":{}}}}`
)

// run drives steps through a fresh provider in dir and checks each answer.
func run(t *testing.T, dir string, steps []step) {
	t.Helper()
	p := local.New(local.Options{Dir: dir, Now: func() time.Time { return time.Unix(0, 0) }})
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	c := sdktest.Start(t, p, providersdk.Options{})
	for i, s := range steps {
		got, err := c.CallLine([]byte(s.req))
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		checkResponse(t, i, s, got)
	}
}

func checkResponse(t *testing.T, i int, s step, got []byte) {
	t.Helper()
	if s.wantErr == nil {
		if diff := cmp.Diff(s.want, string(got)); diff != "" {
			t.Errorf("step %d response (-want +got):\n%s", i, diff)
		}
		return
	}
	var r struct {
		ErrorResponse *struct{ Message string } `json:"errorResponse"`
	}
	if err := json.Unmarshal(got, &r); err != nil || r.ErrorResponse == nil {
		t.Errorf("step %d: got %s, want an errorResponse", i, got)
		return
	}
	for _, frag := range s.wantErr {
		if !strings.Contains(r.ErrorResponse.Message, frag) {
			t.Errorf("step %d: error %q does not contain %q", i, r.ErrorResponse.Message, frag)
		}
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

func TestLocal(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		steps []step
		check func(t *testing.T, dir string)
	}{
		"file create, rename and destroy": {
			steps: []step{
				{req: create("file", `{"name":"a.txt","contents":"hi"}`, false), want: created},
				{req: create("file", `{"name":"b.txt","contents":"one"}`, true), want: created},
				{req: update("file", `{"name":"b.txt","contents":"one"}`, `{}`, `{"name":"c.txt","contents":"two"}`), want: updated},
				{req: destroy("file", `{"name":"a.txt","contents":"hi"}`), want: destroyed},
				{req: destroy("file", `{"name":"gone.txt","contents":""}`), want: destroyed},
			},
			check: func(t *testing.T, dir string) {
				got := []string{readFile(t, filepath.Join(dir, "a.txt")), readFile(t, filepath.Join(dir, "b.txt")), readFile(t, filepath.Join(dir, "c.txt"))}
				want := []string{"<open " + filepath.Join(dir, "a.txt") + ": no such file or directory>", "<open " + filepath.Join(dir, "b.txt") + ": no such file or directory>", "two"}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("files (-want +got):\n%s", diff)
				}
			},
		},
		"file input errors": {
			steps: []step{
				{req: create("file", `{"name":"a.txt","contents":"hi","owner":"root"}`, false), wantErr: []string{`create file: input field "owner": unknown field (known: contents, mode, name)`}},
				{req: create("file", `{"name":"a.txt","contents":"hi","mode":"644x"}`, false), wantErr: []string{`create file: input field "mode": mode "644x" is not three or four octal digits such as "0644"`}},
				{req: create("file", `{"name":"a.txt","contents":"hi","mode":"4755"}`, false), wantErr: []string{`create file: input field "mode": mode "4755" sets more than permission bits; use 0000 to 0777`}},
				{req: create("file", `{"name":"a.txt"}`, false), wantErr: []string{`create file: input field "contents": required field is missing`}},
				{req: create("file", `{"name":"","contents":""}`, false), wantErr: []string{`create file: name must not be empty`}},
			},
		},
		"unknown type keeps serving": {
			steps: []step{
				{req: create("directory", `{}`, false), wantErr: []string{`create directory: unknown resource type "directory" (supported: exec, file, memo, state_file)`}},
				{req: destroy("directory", `{}`), wantErr: []string{`destroy directory: unknown resource type "directory"`}},
				{req: `not json`, wantErr: []string{`invalid request`}},
				{req: create("file", `{"name":"a.txt","contents":"still here"}`, false), want: created},
			},
			check: func(t *testing.T, dir string) {
				if got := readFile(t, filepath.Join(dir, "a.txt")); got != "still here" {
					t.Errorf("a.txt = %q", got)
				}
			},
		},
		"exec stdin and args": {
			steps: []step{
				{req: create("exec", `{"executable":"cat","args":[],"stdin":"from stdin\n"}`, false), want: `{"createResourceResponse":{"outputProperties":{"stdout":"from stdin\n"}}}`},
				{req: create("exec", `{"executable":"echo","args":["a b","$HOME"]}`, false), want: `{"createResourceResponse":{"outputProperties":{"stdout":"a b $HOME\n"}}}`},
				{req: create("exec", `{"executable":"cat","args":[]}`, false), want: `{"createResourceResponse":{"outputProperties":{"stdout":""}}}`},
				{req: create("exec", `{"executable":"pwd","args":[]}`, false), want: "set by the check"},
			},
		},
		"exec failures": {
			steps: []step{
				{req: create("exec", `{"executable":"sh","args":["-c","echo first >&2; echo last >&2; exit 3"]}`, false), wantErr: []string{`create exec: run "sh": exit status 3; stderr ends with:` + "\nfirst\nlast"}},
				{req: create("exec", `{"executable":"pier-no-such-program","args":[]}`, false), wantErr: []string{`create exec: run "pier-no-such-program": exec: "pier-no-such-program": executable file not found in $PATH`}},
				{req: create("exec", `{"executable":"printf","args":["\\377"]}`, false), wantErr: []string{`stdout is not valid UTF-8`}},
				{req: create("exec", `{"executable":"true"}`, false), wantErr: []string{`input field "args": required field is missing`}},
				{req: create("exec", `{"executable":"true","args":[],"shell":true}`, false), wantErr: []string{`create exec: input field "shell": unknown field (known: args, executable, once, stdin)`}},
				{req: create("exec", `{"executable":"true","args":[],"once":true}`, false), wantErr: []string{`create exec: once=true needs a state handler`, `isStateful is false`}},
			},
		},
		"exec once runs only on create": {
			steps: []step{
				{req: create("exec", `{"executable":"sh","args":["-c","echo run >> count; wc -l < count"],"once":true}`, true), want: `{"createResourceResponse":{"outputProperties":{"stdout":"1\n"}}}`},
				{req: update("exec", `{"executable":"sh","args":["-c","echo run >> count; wc -l < count"],"once":true}`, `{"stdout":"1\n"}`, `{"executable":"sh","args":["-c","echo changed >> count; wc -l < count"],"once":true}`), want: `{"updateResourceResponse":{"outputProperties":{"stdout":"1\n"}}}`},
				{req: update("exec", `{"executable":"sh","args":[],"once":true}`, `{}`, `{"executable":"sh","args":[],"once":true}`), wantErr: []string{`update exec: once=true but the recorded outputs have no stdout`}},
				{req: update("exec", `{"executable":"sh","args":["-c","echo run >> count; wc -l < count"]}`, `{"stdout":"1\n"}`, `{"executable":"sh","args":["-c","echo run >> count; wc -l < count"]}`), want: `{"updateResourceResponse":{"outputProperties":{"stdout":"2\n"}}}`},
				{req: destroy("exec", `{"executable":"sh","args":["-c","echo run >> count"]}`), want: destroyed},
			},
			check: func(t *testing.T, dir string) {
				if got := readFile(t, filepath.Join(dir, "count")); got != "run\nrun\n" {
					t.Errorf("count = %q, want two runs", got)
				}
			},
		},
		"memo keeps its first value": {
			steps: []step{
				{req: create("memo", `{"initialize_with":{"n":9007199254740993}}`, true), want: `{"createResourceResponse":{"outputProperties":{"value":{"n":9007199254740993}}}}`},
				{req: update("memo", `{"initialize_with":{"n":9007199254740993}}`, `{"value":{"n":9007199254740993}}`, `{"initialize_with":"new"}`), want: `{"updateResourceResponse":{"outputProperties":{"value":{"n":9007199254740993}}}}`},
				{req: create("memo", `{"initialize_with":null}`, true), want: `{"createResourceResponse":{"outputProperties":{"value":null}}}`},
				{req: update("memo", `{"initialize_with":1}`, `{}`, `{"initialize_with":1}`), wantErr: []string{`update memo: the recorded outputs have no value`}},
				{req: destroy("memo", `{"initialize_with":1}`), want: destroyed},
			},
		},
		"memo without state is refused": {
			steps: []step{
				{req: create("memo", `{"initialize_with":1}`, false), wantErr: []string{`create memo: memo only makes sense with a state handler`, `isStateful is false`}},
				{req: create("memo", `{}`, true), wantErr: []string{`create memo: input field "initialize_with": required field is missing`}},
				{req: create("memo", `{"initialize_with":1,"value":2}`, true), wantErr: []string{`create memo: input field "value": unknown field (known: initialize_with)`}},
			},
		},
		"state_file read, event, read": {
			steps: []step{
				{req: create("state_file", `{"name":"state.json"}`, false), want: created},
				{req: stateRead("state_file", `{"name":"state.json"}`), want: emptyDoc},
				{req: stateEvent(`{"name":"state.json"}`, "create", `[{"op":"add","path":"/resources/a~1b","value":{"type":"memo","inputProperties":{"initialize_with":1},"outputProperties":{"value":1}}}]`), want: `{"stateResourceEventResponse":{}}`},
				{req: stateRead("state_file", `{"name":"state.json"}`), want: `{"stateResourceReadResponse":{"state":{"_type":"nixopsState","deployments":{},"resources":{"a/b":{"inputProperties":{"initialize_with":1},"outputProperties":{"value":1},"type":"memo"}}}}}`},
				{req: stateEvent(`{"name":"state.json"}`, "update", `[{"op":"replace","path":"/nope/x","value":1}]`), wantErr: []string{`state event state_file: record update event: `}},
				{req: destroy("state_file", `{"name":"state.json"}`), wantErr: []string{`destroy state_file: the state still records 1 resource(s) (a/b); destroy them before the state_file that stores them`}},
				{req: stateEvent(`{"name":"state.json"}`, "destroy", `[{"op":"remove","path":"/resources/a~1b"}]`), want: `{"stateResourceEventResponse":{}}`},
				{req: destroy("state_file", `{"name":"state.json"}`), want: destroyed},
				{req: stateRead("memo", `{"initialize_with":1}`), wantErr: []string{`state read memo: resource type "memo" stores no state (only state_file does)`}},
				{req: stateRead("state_file", `{"name":"state.json","format":"yaml"}`), wantErr: []string{`state read state_file: input field "format": unknown field (known: name)`}},
			},
			check: func(t *testing.T, dir string) {
				fi, err := os.Stat(filepath.Join(dir, "state.json"))
				if err != nil {
					t.Fatalf("destroy must leave the state file: %v", err)
				}
				if perm := fi.Mode().Perm(); perm != 0o600 {
					t.Errorf("state file mode = %o, want 600", perm)
				}
			},
		},
		"state_file counts nested resources": {
			steps: []step{
				{req: stateEvent(`{"name":"s.json"}`, "create", `[{"op":"add","path":"/deployments/web","value":{"resources":{"db":{"type":"memo","inputProperties":{}}}}}]`), want: `{"stateResourceEventResponse":{}}`},
				{req: destroy("state_file", `{"name":"s.json"}`), wantErr: []string{`1 resource(s) (web.db)`}},
			},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if name == "exec stdin and args" {
				tc.steps[3].want = `{"createResourceResponse":{"outputProperties":{"stdout":` + jsonString(dir+"\n") + `}}}`
			}
			run(t, dir, tc.steps)
			if tc.check != nil {
				tc.check(t, dir)
			}
		})
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestOperations(t *testing.T) {
	t.Parallel()
	got := providersdk.Operations(local.New(local.Options{}))
	if diff := cmp.Diff(local.Operations, got); diff != "" {
		t.Errorf("implemented operations differ from local.Operations (-want +got):\n%s", diff)
	}
}
