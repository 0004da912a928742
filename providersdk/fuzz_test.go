package providersdk_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/pierhq/pier/providersdk"
	"github.com/pierhq/pier/schema"
)

// FuzzServeIO feeds arbitrary bytes to the serving loop. Whatever arrives,
// ServeIO must not fail or panic, and must answer every non-blank line
// with exactly one response line that the schema accepts.
func FuzzServeIO(f *testing.F) {
	f.Add([]byte(`{"createResourceRequest":{"type":"t","inputProperties":{"value":1},"isStateful":false}}`))
	f.Add([]byte(`{"updateResourceRequest":{"resource":{"type":"t","inputProperties":{}},"inputProperties":{"value":null,"mode":"panic"}}}`))
	f.Add([]byte(`{"stateResourceReadRequest":{"resource":{"type":"t","inputProperties":{}}}}` + "\n\n\r\n" + `{"destroyResourceRequest":{}}`))
	f.Add([]byte("\x00\xff{\n[1,2]\nnull\n\"s\"\n{}\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		var out bytes.Buffer
		if err := providersdk.ServeIO(t.Context(), echoState{}, bytes.NewReader(in), &out, providersdk.Options{MaxLineSize: 512}); err != nil {
			t.Fatalf("ServeIO: %v", err)
		}
		want := 0
		for line := range strings.Lines(string(in)) {
			if strings.TrimSpace(line) != "" {
				want++
			}
		}
		got := 0
		for line := range strings.Lines(out.String()) {
			got++
			if err := schema.ValidateResponse([]byte(strings.TrimSuffix(line, "\n")), nil); err != nil {
				t.Errorf("response %q: %v", line, err)
			}
		}
		if got != want {
			t.Errorf("%d responses for %d request lines", got, want)
		}
	})
}
