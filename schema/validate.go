package schema

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"
)

//go:embed schemas/*.json
var schemaFiles embed.FS

// The URLs under which the embedded schemas are registered. The resource
// schema refers to the JSON Patch schema by its schemastore.org address;
// the compiler resolves it to pier's embedded copy and never fetches.
const (
	ResourceSchemaURL   = "https://nixops.dev/manual/development/schema/resource-schema-v0.json"
	JSONPatchSchemaURL  = "https://json.schemastore.org/json-patch.json"
	ExtensionSchemaURL  = "https://pier.dev/schema/pier-extensions-v0.json"
	StateSchemaURL      = "https://pier.dev/schema/state-schema-v0.json"
	resourceSchemaFile  = "schemas/resource-schema-v0.json"
	jsonPatchSchemaFile = "schemas/json-patch.json"
	extensionSchemaFile = "schemas/pier-extensions-v0.json"
	stateSchemaFile     = "schemas/state-schema-v0.json"
)

// messageDef says where the body of one wrapper key is defined, and which
// optional operation, if any, it belongs to.
type messageDef struct {
	url       string
	operation Operation // "" for v0 messages
}

// previewDefs are the v0 requests a provider that declared preview gets
// in an extended form: with the plan its preview returned.
var previewDefs = map[string]string{
	"createResourceRequest": ExtensionSchemaURL + "#/definitions/CreateResourceRequest",
	"updateResourceRequest": ExtensionSchemaURL + "#/definitions/UpdateResourceRequest",
}

var requestDefs = map[string]messageDef{
	"createResourceRequest":    {ResourceSchemaURL + "#/definitions/CreateResourceRequest", ""},
	"updateResourceRequest":    {ResourceSchemaURL + "#/definitions/UpdateResourceRequest", ""},
	"stateResourceEvent":       {ResourceSchemaURL + "#/definitions/StateResourceEvent", ""},
	"stateResourceReadRequest": {ResourceSchemaURL + "#/definitions/StateResourceReadRequest", ""},
	"destroyResourceRequest":   {ExtensionSchemaURL + "#/definitions/DestroyResourceRequest", OperationDestroy},
	"readResourceRequest":      {ExtensionSchemaURL + "#/definitions/ReadResourceRequest", OperationRead},
	"importResourceRequest":    {ExtensionSchemaURL + "#/definitions/ImportResourceRequest", OperationImport},
	"previewResourceRequest":   {ExtensionSchemaURL + "#/definitions/PreviewResourceRequest", OperationPreview},
}

var responseDefs = map[string]messageDef{
	"createResourceResponse":     {ResourceSchemaURL + "#/definitions/CreateResourceResponse", ""},
	"updateResourceResponse":     {ResourceSchemaURL + "#/definitions/UpdateResourceResponse", ""},
	"stateResourceEventResponse": {ResourceSchemaURL + "#/definitions/StateResourceEventResponse", ""},
	"stateResourceReadResponse":  {ResourceSchemaURL + "#/definitions/StateResourceReadResponse", ""},
	"errorResponse":              {ResourceSchemaURL + "#/definitions/ErrorResponse", ""},
	"destroyResourceResponse":    {ExtensionSchemaURL + "#/definitions/DestroyResourceResponse", OperationDestroy},
	"readResourceResponse":       {ExtensionSchemaURL + "#/definitions/ReadResourceResponse", OperationRead},
	"importResourceResponse":     {ExtensionSchemaURL + "#/definitions/ImportResourceResponse", OperationImport},
	"previewResourceResponse":    {ExtensionSchemaURL + "#/definitions/PreviewResourceResponse", OperationPreview},
}

// ValidationError says why a message does not match the protocol schema.
type ValidationError struct {
	// Message is "request" or "response".
	Message string
	// Kind is the wrapper key, when one could be identified.
	Kind string
	// Problems are the individual failures, most specific first.
	Problems []Problem
}

// Problem is one schema failure at one place in a message.
type Problem struct {
	// Pointer is the RFC 6901 JSON Pointer of the offending value within
	// the whole message, e.g. /createResourceRequest/isStateful.
	Pointer string
	// Expected says what the schema wanted there.
	Expected string
}

func (e *ValidationError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "invalid %s", e.Message)
	if e.Kind != "" {
		fmt.Fprintf(&b, " %s", e.Kind)
	}
	for i, p := range e.Problems {
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString("; ")
		}
		ptr := p.Pointer
		if ptr == "" {
			ptr = "/"
		}
		fmt.Fprintf(&b, "at %s: %s", ptr, p.Expected)
	}
	return b.String()
}

// ValidateRequest checks one request line (without its newline) against the
// v0 schema. ops are the optional operations the provider declared; a
// message of an undeclared operation is invalid.
func ValidateRequest(data []byte, ops []Operation) error {
	return validateMessage("request", requestDefs, data, ops)
}

// ValidateResponse checks one response line against the v0 schema; see
// [ValidateRequest].
func ValidateResponse(data []byte, ops []Operation) error {
	return validateMessage("response", responseDefs, data, ops)
}

// ValidateState checks a resolved state document against the v0 state
// schema.
func ValidateState(data []byte) error {
	return validateValue("state", "", "", StateSchemaURL, data)
}

func validateMessage(message string, defs map[string]messageDef, data []byte, ops []Operation) error {
	// One decode serves both the wrapper check and the body's validation:
	// frames such as a state read carry the whole state.
	if kind, body, ok := decodeFastWrapper(data, nil); ok {
		_, _, err := validateKind(message, defs, kind, body, ops)
		return err
	}
	v, err := decodeJSON(data)
	if err != nil {
		v = nil // not an object: the wrapper check says so
	}
	_, _, err = validateWrapper(message, defs, v, ops)
	return err
}

// validateWrapper checks a decoded message: an object with exactly one
// key, a kind the provider's declared operations allow, and a body that
// matches that kind's schema. It returns the kind and the body.
func validateWrapper(message string, defs map[string]messageDef, v any, ops []Operation) (string, any, error) {
	wrapper, isObject := v.(map[string]any)
	if !isObject {
		return "", nil, &ValidationError{Message: message, Problems: []Problem{{Expected: fmt.Sprintf("a JSON object with exactly one of %s", kindList(defs, ops))}}}
	}
	if len(wrapper) != 1 {
		keys := slices.Sorted(maps.Keys(wrapper))
		return "", nil, &ValidationError{Message: message, Problems: []Problem{{
			Expected: fmt.Sprintf("exactly one key, got %d (%s)", len(keys), strings.Join(keys, ", ")),
		}}}
	}
	var kind string
	var body any
	for k, v := range wrapper {
		kind, body = k, v
	}
	return validateKind(message, defs, kind, body, ops)
}

// validateKind is validateWrapper for a wrapper of one key, kind, and its
// value, body, which [decodeFastWrapper] decodes without the wrapper's
// map.
func validateKind(message string, defs map[string]messageDef, kind string, body any, ops []Operation) (string, any, error) {
	def, ok := defs[kind]
	if !ok {
		return "", nil, &ValidationError{Message: message, Problems: []Problem{{
			Pointer:  "/" + EscapePointerToken(kind),
			Expected: fmt.Sprintf("one of %s", kindList(defs, ops)),
		}}}
	}
	if def.operation != "" && !slices.Contains(ops, def.operation) {
		return "", nil, &ValidationError{Message: message, Kind: kind, Problems: []Problem{{
			Pointer:  "/" + kind,
			Expected: fmt.Sprintf("%s belongs to the optional operation %q, which the provider did not declare", kind, def.operation),
		}}}
	}
	url := def.url
	if ext, ok := previewDefs[kind]; ok && slices.Contains(ops, OperationPreview) {
		url = ext
	}
	if err := validateDecoded(message, kind, "/"+kind, url, body); err != nil {
		return "", nil, err
	}
	return kind, body, nil
}

// decodeJSON decodes exactly one JSON value, numbers as json.Number (the
// validator expects them so); trailing data is an error, as for
// json.Unmarshal.
func decodeJSON(data []byte) (any, error) {
	if v, ok := decodeFast(data); ok {
		return v, nil
	}
	return decodeStd(data)
}

// decodeStd is decodeJSON by encoding/json alone: what decodeFast does not
// take, and its reference.
func decodeStd(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("invalid character after top-level value")
	}
	return v, nil
}

func validateValue(message, kind, prefix, url string, data []byte) error {
	v, err := decodeJSON(data)
	if err != nil {
		return &ValidationError{Message: message, Kind: kind, Problems: []Problem{{Pointer: prefix, Expected: "valid JSON: " + err.Error()}}}
	}
	return validateDecoded(message, kind, prefix, url, v)
}

// validateDecoded checks v against the schema at url with its generated
// validator (validate_gen.go). prefix is v's pointer within the message.
func validateDecoded(message, kind, prefix, url string, v any) error {
	var r report
	valid, found := validateGenerated(url, v, nil, &r)
	if !found {
		panic("this is a bug in pier: no generated validator for " + url)
	}
	if valid {
		return nil
	}
	return &ValidationError{Message: message, Kind: kind, Problems: sortProblems(prefix, r.problems)}
}

// sortProblems puts prefix before each pointer, drops repeats, and sorts
// the deepest first, the most specific place being the most useful; at
// one depth, by pointer, so that a message reads the same every time.
func sortProblems(prefix string, ps []Problem) []Problem {
	out := make([]Problem, 0, len(ps))
	seen := map[Problem]bool{}
	for _, p := range ps {
		p.Pointer = prefix + p.Pointer
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		di, dj := strings.Count(out[i].Pointer, "/"), strings.Count(out[j].Pointer, "/")
		if di != dj {
			return di > dj
		}
		return out[i].Pointer < out[j].Pointer
	})
	return out
}

func kindList(defs map[string]messageDef, ops []Operation) string {
	var kinds []string
	for k, d := range defs {
		if d.operation == "" || slices.Contains(ops, d.operation) {
			kinds = append(kinds, k)
		}
	}
	sort.Strings(kinds)
	return strings.Join(kinds, ", ")
}
