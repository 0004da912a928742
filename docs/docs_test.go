package docs

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/pierhq/pier/host/conformance"
	"github.com/pierhq/pier/schema"
)

// allOperations lets examples of every optional operation validate: the
// guide documents them all.
var allOperations = []schema.Operation{schema.OperationDestroy, schema.OperationRead, schema.OperationImport, schema.OperationPreview}

// example is one fenced JSON block of a document.
type example struct {
	line int    // line of the opening fence, for messages
	tag  string // "request" or "response"
	body string
}

// jsonExamples returns the fenced ```json blocks of a Markdown file. Every
// such block must be tagged "request" or "response" (```json request), so
// that none escapes validation.
func jsonExamples(t *testing.T, path string) []example {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var (
		out  []example
		cur  *example
		body strings.Builder
	)
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && strings.HasPrefix(line, "```json"):
			fields := strings.Fields(strings.TrimPrefix(line, "```"))
			tag := ""
			if len(fields) > 1 {
				tag = fields[1]
			}
			if fields[0] != "json" || (tag != "request" && tag != "response") {
				t.Errorf("%s:%d: a ```json block must be tagged request or response, got %q", path, n, line)
			}
			cur = &example{line: n, tag: tag}
			body.Reset()
		case cur != nil && line == "```":
			cur.body = body.String()
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			body.WriteString(line)
			body.WriteByte('\n')
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if cur != nil {
		t.Fatalf("%s:%d: unterminated ```json block", path, cur.line)
	}
	return out
}

// checkExample validates one example against the schema.
func checkExample(ex example) error {
	// Frames are single lines: an example must be one too, so that it can
	// be pasted into a provider's stdin as it is.
	line := strings.TrimSuffix(ex.body, "\n")
	if strings.Contains(line, "\n") {
		return fmt.Errorf("example spans several lines; a frame is one line")
	}
	switch ex.tag {
	case "request":
		return schema.ValidateRequest([]byte(line), allOperations)
	case "response":
		return schema.ValidateResponse([]byte(line), allOperations)
	}
	return fmt.Errorf("untagged example")
}

func TestProvidersGuideExamplesMatchSchema(t *testing.T) {
	t.Parallel()
	const path = "providers.md"
	for _, ex := range jsonExamples(t, path) {
		t.Run(fmt.Sprintf("line%d", ex.line), func(t *testing.T) {
			t.Parallel()
			if err := checkExample(ex); err != nil {
				t.Errorf("%s:%d: %v", path, ex.line, err)
			}
		})
	}
}

// TestCheckExampleRejects makes sure the guide's test can fail: each of
// these would be a wrong example in the guide.
func TestCheckExampleRejects(t *testing.T) {
	t.Parallel()
	tests := map[string]example{
		"extra field in response": {tag: "response", body: `{"createResourceResponse":{"outputProperties":{},"extra":1}}` + "\n"},
		"missing isStateful":      {tag: "request", body: `{"createResourceRequest":{"type":"kv","inputProperties":{}}}` + "\n"},
		"two keys":                {tag: "response", body: `{"errorResponse":{"message":"x"},"createResourceResponse":{"outputProperties":{}}}` + "\n"},
		"request tagged response": {tag: "response", body: `{"createResourceRequest":{"type":"kv","inputProperties":{},"isStateful":true}}` + "\n"},
		"pretty-printed":          {tag: "response", body: "{\"errorResponse\":\n{\"message\":\"x\"}}\n"},
	}
	for name, ex := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if err := checkExample(ex); err == nil {
				t.Errorf("checkExample accepted %q", ex.body)
			}
		})
	}
}

// TestProvidersGuideCoversEveryKind checks that each message kind of the
// protocol appears in a validated example.
func TestProvidersGuideCoversEveryKind(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, ex := range jsonExamples(t, "providers.md") {
		for _, kind := range kinds {
			if strings.HasPrefix(ex.body, `{"`+kind+`"`) {
				seen[kind] = true
			}
		}
	}
	for _, kind := range kinds {
		if !seen[kind] {
			t.Errorf("providers.md has no example of %s", kind)
		}
	}
}

var kinds = []string{
	"createResourceRequest", "createResourceResponse",
	"updateResourceRequest", "updateResourceResponse",
	"destroyResourceRequest", "destroyResourceResponse",
	"readResourceRequest", "readResourceResponse",
	"importResourceRequest", "importResourceResponse",
	"previewResourceRequest", "previewResourceResponse",
	"stateResourceReadRequest", "stateResourceReadResponse",
	"stateResourceEvent", "stateResourceEventResponse",
	"errorResponse",
}

// TestProvidersGuideCheckNames keeps the guide's sample output of pier
// provider check in step with the checks the checker really runs.
func TestProvidersGuideCheckNames(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("providers.md")
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	for _, n := range conformance.Names() {
		known[n] = true
	}
	seen := 0
	for i, line := range strings.Split(string(data), "\n") {
		name, ok := strings.CutPrefix(line, "✓ ")
		if !ok {
			continue
		}
		seen++
		if !known[name] {
			t.Errorf("providers.md:%d: %q is not a check of pier provider check (known: %v)", i+1, name, conformance.Names())
		}
	}
	if seen == 0 {
		t.Error("providers.md shows no sample output of pier provider check")
	}
	// Every check is explained in the guide's table of checks.
	for _, n := range conformance.Names() {
		if !strings.Contains(string(data), "`"+n+"`") {
			t.Errorf("providers.md does not explain the check %q", n)
		}
	}
}
