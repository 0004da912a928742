package nixops4state

import (
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
