package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"
)

// MaxStateSize is the largest state document, in bytes of its JSON
// encoding, that pier reads back from a state handler: the bound on one
// stateResourceReadResponse line, and on one request line that pier's own
// state handlers accept (an event can carry as much). pier refuses to
// record a change that would grow a state past it, so that every state pier
// writes is one it can read.
//
// A state read is a whole document, held in memory by the handler and by
// pier, each at about three times its size while it is encoded and
// decoded. 1 GiB keeps that to a few GiB, far beyond real states (the
// largest Terraform states are tens of MiB), while a legitimately large
// output, such as a 40 MiB file's contents, still fits many times over.
// Every other response keeps the 64 MiB frame bound: those carry one
// resource, and a larger one is a runaway provider.
const MaxStateSize = 1 << 30

// DecodeResponse checks one response line against the v0 schema, as
// [ValidateResponse] does, and decodes it, in one parse: a state read
// carries the whole state, and parsing it once to validate and again to
// decode would double the cost of every plan. Numbers decode as
// [json.Number], so they stay exact. ops are the optional operations the
// provider declared.
//
// The error is a [*ValidationError] for JSON that breaks the schema, and
// the decoder's error (such as a [*json.SyntaxError]) for a line that is
// not one JSON value.
func DecodeResponse(data []byte, ops []Operation) (*Response, error) {
	var err error
	into := bodyMaps.Get().(map[string]any)
	kind, body, fast := decodeFastWrapper(data, into)
	if fast {
		kind, body, err = validateKind("response", responseDefs, kind, body, ops)
	} else {
		var v any
		if v, err = decodeJSON(data); err != nil {
			return nil, err
		}
		kind, body, err = validateWrapper("response", responseDefs, v, ops)
	}
	if err != nil {
		return nil, err
	}
	resp := responseFrom(kind, body)
	// into is the body now, or unused (a body that is no object is
	// invalid): responseFrom keeps the body's members, never the body
	// itself, so it can serve the next response.
	if len(into) <= maxBodyMap {
		clear(into)
		bodyMaps.Put(into)
	}
	return resp, nil
}

// bodyMaps keep the maps a response's body (the wrapper's one member: the
// createResourceResponse object, say) is decoded into. Every member of a
// body is taken over by the typed response, but the map that held them
// was garbage at once: one per response, 0.77 MB of the command's
// allocations on a fresh apply of 1000 bridged resources. A body map
// grown past maxBodyMap members is let go rather than kept.
var bodyMaps = sync.Pool{New: func() any { return make(map[string]any, maxBodyMap) }}

// maxBodyMap is the most members of a pooled body map: every response
// body has at most six members (a preview's), and a map of eight or
// fewer is one group.
const maxBodyMap = 8

// responseFrom builds the typed response from its validated, decoded
// body, taking its values over as decoded: the schema has fixed every
// member's shape (objects, arrays, strings and booleans where the types
// say so, no other members), so the assertions cannot fail, and the
// result is what encoding/json gives decoding the line into [Response]
// with UseNumber, without a second parse. TestDecodeResponse holds the
// two to the same value for every kind.
func responseFrom(kind string, body any) *Response {
	m, _ := body.(map[string]any) // the schema makes every body an object
	props := func(key string) Properties {
		p, _ := m[key].(map[string]any)
		return p
	}
	switch kind {
	case "createResourceResponse":
		return &Response{CreateResourceResponse: &CreateResourceResponse{OutputProperties: props("outputProperties")}}
	case "updateResourceResponse":
		return &Response{UpdateResourceResponse: &UpdateResourceResponse{OutputProperties: props("outputProperties")}}
	case "stateResourceReadResponse":
		return &Response{StateResourceReadResponse: &StateResourceReadResponse{State: props("state")}}
	case "stateResourceEventResponse":
		return &Response{StateResourceEventResponse: &StateResourceEventResponse{}}
	case "destroyResourceResponse":
		return &Response{DestroyResourceResponse: &DestroyResourceResponse{}}
	case "readResourceResponse":
		exists, _ := m["exists"].(bool)
		return &Response{ReadResourceResponse: &ReadResourceResponse{
			Exists: exists, OutputProperties: props("outputProperties"), InputProperties: props("inputProperties"),
		}}
	case "importResourceResponse":
		return &Response{ImportResourceResponse: &ImportResourceResponse{
			InputProperties: props("inputProperties"), OutputProperties: props("outputProperties"),
		}}
	case "previewResourceResponse":
		return &Response{PreviewResourceResponse: previewFrom(m)}
	case "errorResponse":
		msg, _ := m["message"].(string)
		return &Response{ErrorResponse: &ErrorResponse{Message: msg}}
	}
	panic("this is a bug in pier: no decoder for the validated response kind " + kind)
}

// previewFrom builds a previewResourceResponse from its validated body.
// An array the body holds, even an empty one, gives a non-nil slice, and
// an absent one nil, as encoding/json decodes them.
func previewFrom(m map[string]any) *PreviewResourceResponse {
	r := &PreviewResourceResponse{}
	r.Replace, _ = m["replace"].(bool)
	if a, ok := m["replaceReasons"].([]any); ok {
		r.ReplaceReasons = make([]string, len(a))
		for i, s := range a {
			r.ReplaceReasons[i], _ = s.(string)
		}
	}
	r.PlannedOutputProperties, _ = m["plannedOutputProperties"].(map[string]any)
	if a, ok := m["unknownOutputs"].([]any); ok {
		r.UnknownOutputs = make([]AttributePath, len(a))
		for i, p := range a {
			r.UnknownOutputs[i], _ = p.([]any)
		}
	}
	if a, ok := m["diagnostics"].([]any); ok {
		r.Diagnostics = make([]Diagnostic, len(a))
		for i, d := range a {
			d, _ := d.(map[string]any)
			sev, _ := d["severity"].(string)
			r.Diagnostics[i].Severity = Severity(sev)
			r.Diagnostics[i].Summary, _ = d["summary"].(string)
			r.Diagnostics[i].Detail, _ = d["detail"].(string)
			r.Diagnostics[i].Attribute, _ = d["attribute"].([]any)
		}
	}
	r.Plan, _ = m["plan"].(string)
	return r
}

// DecodeRequest checks one request line against the v0 schema, as
// [ValidateRequest] does (with the same errors), and decodes it, in one
// parse: a provider would otherwise parse each request twice, once to
// validate it and once into its type. Numbers decode as [json.Number].
// ops are the optional operations the provider declared.
func DecodeRequest(data []byte, ops []Operation) (*Request, error) {
	var err error
	kind, body, fast := decodeFastWrapper(data, nil)
	if fast {
		kind, body, err = validateKind("request", requestDefs, kind, body, ops)
	} else {
		v, ok := decodeFast(data)
		if fast = ok; !ok {
			if v, err = decodeStd(data); err != nil {
				v = nil // not an object: the wrapper check says so
			}
		}
		kind, body, err = validateWrapper("request", requestDefs, v, ops)
	}
	if err != nil {
		return nil, err
	}
	if m, _ := body.(map[string]any); fast && stateRequestKinds[kind] {
		if req, ok := stateRequestFrom(kind, m, data); ok {
			return req, nil
		}
	}
	return requestFrom(kind, body, data)
}

// stateRequestKinds are the requests whose typed form stateRequestFrom
// builds from a line decodeFast took.
var stateRequestKinds = map[string]bool{"stateResourceReadRequest": true, "stateResourceEvent": true, "importResourceRequest": true}

// requestFrom builds the typed request from its validated, decoded body:
// the resource operations' bodies are taken over as decoded; the state
// operations' and import's, where stateRequestFrom could not build them,
// are decoded again from data into their types.
func requestFrom(kind string, body any, data []byte) (*Request, error) {
	m, _ := body.(map[string]any) // the schema makes every body an object
	str := func(m map[string]any, key string) string { s, _ := m[key].(string); return s }
	props := func(m map[string]any, key string) Properties { p, _ := m[key].(map[string]any); return p }
	extant := func(m map[string]any) ExtantResource {
		return ExtantResource{Type: str(m, "type"), InputProperties: props(m, "inputProperties"), OutputProperties: props(m, "outputProperties")}
	}
	resource := func() ExtantResource { r, _ := m["resource"].(map[string]any); return extant(r) }
	switch kind {
	case "createResourceRequest":
		stateful, _ := m["isStateful"].(bool)
		return &Request{CreateResourceRequest: &CreateResourceRequest{
			Type: str(m, "type"), InputProperties: props(m, "inputProperties"), IsStateful: stateful, Plan: str(m, "plan"),
		}}, nil
	case "updateResourceRequest":
		return &Request{UpdateResourceRequest: &UpdateResourceRequest{
			Resource: resource(), InputProperties: props(m, "inputProperties"), Plan: str(m, "plan"),
		}}, nil
	case "previewResourceRequest":
		stateful, _ := m["isStateful"].(bool)
		req := &PreviewResourceRequest{Type: str(m, "type"), InputProperties: props(m, "inputProperties"), IsStateful: stateful}
		if _, ok := m["resource"]; ok {
			r := resource()
			req.Resource = &r
		}
		return &Request{PreviewResourceRequest: req}, nil
	case "destroyResourceRequest":
		return &Request{DestroyResourceRequest: &DestroyResourceRequest{Resource: resource()}}, nil
	case "readResourceRequest":
		return &Request{ReadResourceRequest: &ReadResourceRequest{Resource: resource()}}, nil
	}
	var req Request
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&req); err != nil {
		return nil, fmt.Errorf("decode %s: %w", kind, err)
	}
	return &req, nil
}
