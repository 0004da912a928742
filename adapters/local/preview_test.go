package local_test

import (
	"os"
	"path/filepath"
	"testing"
)

func preview(typ, inputs string, stateful bool) string {
	return `{"previewResourceRequest":{"type":"` + typ + `","inputProperties":` + inputs + `,"isStateful":` + map[bool]string{true: "true", false: "false"}[stateful] + `}}`
}

func previewUpdate(typ, oldInputs, inputs string) string {
	return `{"previewResourceRequest":{"type":"` + typ + `","resource":{"type":"` + typ + `","inputProperties":` + oldInputs + `},"inputProperties":` + inputs + `}}`
}

const previewOK = `{"previewResourceResponse":{"replace":false}}`

// TestPreview: a preview refuses, as diagnostics naming the input, what
// the create or update would refuse, and does nothing.
func TestPreview(t *testing.T) {
	t.Parallel()
	tests := map[string]step{
		"file ok":            {req: preview("file", `{"name":"a","contents":"hi"}`, false), want: previewOK},
		"file update":        {req: previewUpdate("file", `{"name":"a","contents":"hi"}`, `{"name":"a","contents":"ho"}`), want: previewOK},
		"unknown key":        {req: preview("file", `{"name":"a","contnets":"hi"}`, true), want: `{"previewResourceResponse":{"replace":false,"diagnostics":[{"severity":"error","summary":"Invalid input","detail":"unknown field (known: contents, mode, name)","attribute":["contnets"]}]}}`},
		"wrong type":         {req: preview("file", `{"name":"a","contents":7}`, true), want: `{"previewResourceResponse":{"replace":false,"diagnostics":[{"severity":"error","summary":"Invalid input","detail":"cannot use a JSON number as string","attribute":["contents"]}]}}`},
		"missing key":        {req: preview("file", `{"name":"a"}`, true), want: `{"previewResourceResponse":{"replace":false,"diagnostics":[{"severity":"error","summary":"Invalid input","detail":"required field is missing","attribute":["contents"]}]}}`},
		"file mode":          {req: preview("file", `{"name":"a","contents":"hi","mode":"0640"}`, false), want: previewOK},
		"file bad mode":      {req: preview("file", `{"name":"a","contents":"hi","mode":"rw-r--r--"}`, false), want: `{"previewResourceResponse":{"replace":false,"diagnostics":[{"severity":"error","summary":"Invalid input","detail":"mode \"rw-r--r--\" is not three or four octal digits such as \"0644\"","attribute":["mode"]}]}}`},
		"memo stateful":      {req: preview("memo", `{"initialize_with":1}`, true), want: previewOK},
		"memo without state": {req: preview("memo", `{"initialize_with":1}`, false), want: `{"previewResourceResponse":{"replace":false,"diagnostics":[{"severity":"error","summary":"Missing state","detail":"memo only makes sense with a state handler: it keeps the value it was first created with, and without state (isStateful is false) nothing would remember it; give the resource a state handler"}]}}`},
		"exec once without state": {req: preview("exec", `{"executable":"true","args":[],"stdin":null,"once":true}`, false), wantErr: nil,
			want: `{"previewResourceResponse":{"replace":false,"diagnostics":[{"severity":"error","summary":"Missing state","detail":"once=true needs a state handler: the first run's stdout is recorded and reused instead of running again, and without state (isStateful is false) there is nothing to reuse"}]}}`},
		"exec":         {req: preview("exec", `{"executable":"touch","args":["ran"],"stdin":null}`, false), want: previewOK},
		"unknown type": {req: preview("fiel", `{}`, true), want: `{"previewResourceResponse":{"replace":false,"diagnostics":[{"severity":"error","summary":"Unknown resource type","detail":"unknown resource type \"fiel\" (supported: exec, file, memo, state_file)"}]}}`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			run(t, dir, []step{tc})
			// Nothing was written or run.
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				t.Errorf("a preview left %s behind", filepath.Join(dir, e.Name()))
			}
		})
	}
}
