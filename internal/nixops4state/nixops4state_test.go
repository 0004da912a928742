package nixops4state

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const initEvent = `{"index":0,"meta":{"time":"2025-01-01T00:00:00Z"},"patch":[{"op":"add","path":"","value":{"_type":"nixopsState","resources":{},"deployments":{}}}]}`

func TestReadFile(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		file    string
		want    *State
		wantErr string
	}{
		"nixops4's own writer: pretty, every index 0": {
			file: initEvent + "\n" + `{
  "index": 0,
  "meta": {"time": "2025-01-01T00:00:01Z", "event": "create"},
  "patch": [{"op": "add", "path": "/resources/a", "value": {"type": "memo", "input_properties": {"initialize_with": 1}, "output_properties": {"value": 1}}}]
}`,
			want: &State{Deployment{
				Resources:   map[string]Resource{"a": {Type: "memo", InputProperties: map[string]any{"initialize_with": 1.0}, OutputProperties: map[string]any{"value": 1.0}}},
				Deployments: map[string]Deployment{},
			}},
		},
		"nested deployment, unknown fields ignored": {
			file: initEvent + `{"index":1,"meta":{"time":"t"},"patch":[{"op":"add","path":"/deployments/web","value":{"resources":{"b":{"type":"file","input_properties":{},"output_properties":{},"provider":"local","dependencies":["a"]}}}}]}`,
			want: &State{Deployment{
				Resources: map[string]Resource{},
				Deployments: map[string]Deployment{"web": {
					Resources:   map[string]Resource{"b": {Type: "file", InputProperties: map[string]any{}, OutputProperties: map[string]any{}}},
					Deployments: map[string]Deployment{},
				}},
			}},
		},
		"the manual's camelCase spelling is refused": {
			file:    initEvent + `{"index":1,"meta":{"time":"t"},"patch":[{"op":"add","path":"/resources/a","value":{"type":"memo","inputProperties":{},"outputProperties":{}}}]}`,
			wantErr: "resources.a: missing field `input_properties`",
		},
		"an entry without outputs is refused": {
			file:    initEvent + `{"index":1,"meta":{"time":"t"},"patch":[{"op":"add","path":"/resources/a","value":{"type":"memo","input_properties":{}}}]}`,
			wantErr: "missing field `output_properties`",
		},
		"null outputs are refused": {
			file:    initEvent + `{"index":1,"meta":{"time":"t"},"patch":[{"op":"add","path":"/resources/a","value":{"type":"memo","input_properties":{},"output_properties":null}}]}`,
			wantErr: "field `output_properties` is null",
		},
		"first index not 0":  {file: `{"index":1,"meta":{"time":"t"},"patch":[]}`, wantErr: "expected initial state event with index 0"},
		"empty file":         {file: "", wantErr: "no initial state event"},
		"meta without time":  {file: `{"index":0,"meta":{},"patch":[]}`, wantErr: "meta.time"},
		"wrong _type":        {file: `{"index":0,"meta":{"time":"t"},"patch":[{"op":"add","path":"","value":{"_type":"other"}}]}`, wantErr: "unexpected _type"},
		"negative index":     {file: initEvent + `{"index":-1,"meta":{"time":"t"},"patch":[]}`, wantErr: "not a u64"},
		"patch does not fit": {file: initEvent + `{"index":1,"meta":{"time":"t"},"patch":[{"op":"replace","path":"/resources/x","value":{}}]}`, wantErr: "apply patch"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := ReadFile([]byte(tc.file))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("ReadFile: err = %v, want it to contain %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("ReadFile (-want +got):\n%s", d)
			}
		})
	}
}

// TestWrite checks the writer emulation against the patches NixOps4's
// own tests expect of update_resource_in_deployment_state and json_patch's
// diff (rust/nixops4/src/state.rs at 53d855472af18d85457f327fa9aeb268543ff74e).
func TestWrite(t *testing.T) {
	t.Parallel()
	r := Resource{Type: "test", InputProperties: map[string]any{}, OutputProperties: map[string]any{}}
	tests := map[string]struct {
		file    string
		path    []string
		want    string
		wantErr string
	}{
		"new root resource": {
			file: initEvent, path: []string{"a"},
			want: `[{"op":"add","path":"/resources/a","value":{"input_properties":{},"output_properties":{},"type":"test"}}]`,
		},
		"new nested deployment: one add with both members": {
			file: initEvent, path: []string{"d", "a"},
			want: `[{"op":"add","path":"/deployments/d","value":{"deployments":{},"resources":{"a":{"input_properties":{},"output_properties":{},"type":"test"}}}}]`,
		},
		"a level without resources in the file: NixOps4 assumes it": {
			file: initEvent + `{"index":1,"meta":{"time":"t"},"patch":[{"op":"add","path":"/deployments/d","value":{}}]}`, path: []string{"d", "a"},
			want: `[{"op":"add","path":"/deployments/d/resources/a","value":{"input_properties":{},"output_properties":{},"type":"test"}}]`,
		},
		"a changed property is replaced": {
			file: initEvent + `{"index":1,"meta":{"time":"t"},"patch":[{"op":"add","path":"/resources/a","value":{"type":"test","input_properties":{"x":1},"output_properties":{},"provider":"p"}}]}`, path: []string{"a"},
			want: `[{"op":"remove","path":"/resources/a/input_properties/x"}]`,
		},
		"unchanged: no event": {
			file: initEvent + `{"index":1,"meta":{"time":"t"},"patch":[{"op":"add","path":"/resources/a","value":{"type":"test","input_properties":{},"output_properties":{}}}]}`, path: []string{"a"},
		},
		"unreadable file": {file: `{}`, path: []string{"a"}, wantErr: "missing index"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ev, err := Write([]byte(tc.file), tc.path, "create", r)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Write: err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == "" {
				if ev != nil {
					t.Fatalf("Write: an event for no change: %s", ev)
				}
				return
			}
			var got struct {
				Patch json.RawMessage `json:"patch"`
			}
			if err := json.Unmarshal(ev, &got); err != nil {
				t.Fatal(err)
			}
			var compact bytes.Buffer
			if err := json.Compact(&compact, got.Patch); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, compact.String()); d != "" {
				t.Errorf("patch (-want +got):\n%s", d)
			}
		})
	}
}
