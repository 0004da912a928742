package local_test

import (
	"os"
	"path/filepath"
	"testing"
)

func read(typ, inputs, outputs string) string {
	return `{"readResourceRequest":{"resource":{"type":"` + typ + `","inputProperties":` + inputs + `,"outputProperties":` + outputs + `}}}`
}

func importReq(typ, id string) string {
	return `{"importResourceRequest":{"type":"` + typ + `","id":"` + id + `"}}`
}

// TestReadAndImport: what each type's read can see, through the real
// protocol loop, and which types import.
func TestReadAndImport(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		files map[string]string // written before the steps
		steps []step
	}{
		"file unchanged": {
			files: map[string]string{"a.txt": "hi"},
			steps: []step{{req: read("file", `{"name":"a.txt","contents":"hi"}`, `{}`),
				want: `{"readResourceResponse":{"exists":true,"inputProperties":{"contents":"hi","name":"a.txt"}}}`}},
		},
		"file edited: its contents as they are": {
			files: map[string]string{"a.txt": "edited by hand"},
			steps: []step{{req: read("file", `{"name":"a.txt","contents":"hi"}`, `{}`),
				want: `{"readResourceResponse":{"exists":true,"inputProperties":{"contents":"edited by hand","name":"a.txt"}}}`}},
		},
		"file deleted: gone": {
			steps: []step{{req: read("file", `{"name":"a.txt","contents":"hi"}`, `{}`), want: `{"readResourceResponse":{"exists":false}}`}},
		},
		"file that is a directory: an error naming it": {
			files: map[string]string{"d/x": ""},
			steps: []step{{req: read("file", `{"name":"d","contents":"hi"}`, `{}`), wantErr: []string{`read "d"`}}},
		},
		"exec: the recorded run, never run again": {
			steps: []step{{req: read("exec", `{"executable":"false","args":[],"once":true}`, `{"stdout":"recorded"}`),
				want: `{"readResourceResponse":{"exists":true,"outputProperties":{"stdout":"recorded"}}}`}},
		},
		"memo: the recorded value": {
			steps: []step{{req: read("memo", `{"initialize_with":2}`, `{"value":1}`),
				want: `{"readResourceResponse":{"exists":true,"outputProperties":{"value":1}}}`}},
		},
		"read refuses unknown inputs": {
			steps: []step{{req: read("memo", `{"initialise_with":2}`, `{"value":1}`), wantErr: []string{"initialise_with"}}},
		},
		"state_file has no read": {
			steps: []step{{req: read("state_file", `{"name":"s.json"}`, `{}`), wantErr: []string{"state handler"}}},
		},
		"file import by name": {
			files: map[string]string{"sub/a.txt": "there\n"},
			steps: []step{{req: importReq("file", "sub/a.txt"),
				want: `{"importResourceResponse":{"inputProperties":{"contents":"there\n","name":"sub/a.txt"},"outputProperties":{}}}`}},
		},
		"file import of a missing file": {
			steps: []step{{req: importReq("file", "nope.txt"), wantErr: []string{`no file "nope.txt" to import`}}},
		},
		"file import of a file that is not UTF-8": {
			files: map[string]string{"bin": "\xff\xfe"},
			steps: []step{{req: importReq("file", "bin"), wantErr: []string{"not UTF-8"}}},
		},
		"exec and memo do not import": {
			steps: []step{
				{req: importReq("exec", "x"), wantErr: []string{"exec cannot be imported", "run of a program"}},
				{req: importReq("memo", "x"), wantErr: []string{"memo cannot be imported", "only in state"}},
			},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			for n, c := range tc.files {
				p := filepath.Join(dir, n)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			run(t, dir, tc.steps)
		})
	}
}
