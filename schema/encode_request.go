package schema

import (
	"encoding/json"
	"strconv"
)

// AppendJSON appends json.Marshal(r) to b, built by hand: the host encodes
// every request it sends, one per resource and per state event, and
// encoding/json's reflection over the wrapper and its messages was most
// of the cost. Properties and patch values are encoded by [AppendJSON];
// a patch value that is not valid JSON is an error, as json.Marshal
// reports it. Every set message is written, in the field order of
// [Request], as json.Marshal writes them; [Request.Kind] says whether
// exactly one is. TestRequestAppendJSON holds the bytes to json.Marshal's.
func (r *Request) AppendJSON(b []byte) ([]byte, error) {
	e := requestEncoder{b: append(b, '{')}
	first := true
	member := func(name string) {
		if !first {
			e.b = append(e.b, ',')
		}
		first = false
		e.b = append(append(append(e.b, '"'), name...), `":{`...)
	}
	if m := r.CreateResourceRequest; m != nil {
		member("createResourceRequest")
		e.str(`"type":`, m.Type)
		e.value(`,"inputProperties":`, m.InputProperties)
		e.bool(`,"isStateful":`, m.IsStateful)
		e.optStr(`,"plan":`, m.Plan)
		e.b = append(e.b, '}')
	}
	if m := r.UpdateResourceRequest; m != nil {
		member("updateResourceRequest")
		e.resource(`"resource":`, &m.Resource)
		e.value(`,"inputProperties":`, m.InputProperties)
		e.optStr(`,"plan":`, m.Plan)
		e.b = append(e.b, '}')
	}
	if m := r.StateResourceEvent; m != nil {
		member("stateResourceEvent")
		e.resource(`"resource":`, &m.Resource)
		e.str(`,"event":`, m.Event)
		e.str(`,"nixopsVersion":`, m.NixopsVersion)
		e.patch(`,"patch":`, m.Patch)
		e.b = append(e.b, '}')
	}
	if m := r.StateResourceReadRequest; m != nil {
		member("stateResourceReadRequest")
		e.resource(`"resource":`, &m.Resource)
		e.b = append(e.b, '}')
	}
	if m := r.DestroyResourceRequest; m != nil {
		member("destroyResourceRequest")
		e.resource(`"resource":`, &m.Resource)
		e.b = append(e.b, '}')
	}
	if m := r.ReadResourceRequest; m != nil {
		member("readResourceRequest")
		e.resource(`"resource":`, &m.Resource)
		e.b = append(e.b, '}')
	}
	if m := r.ImportResourceRequest; m != nil {
		member("importResourceRequest")
		e.str(`"type":`, m.Type)
		e.str(`,"id":`, m.ID)
		e.b = append(e.b, '}')
	}
	if m := r.PreviewResourceRequest; m != nil {
		member("previewResourceRequest")
		e.str(`"type":`, m.Type)
		if m.Resource != nil {
			e.resource(`,"resource":`, m.Resource)
		}
		e.value(`,"inputProperties":`, m.InputProperties)
		if m.IsStateful {
			e.bool(`,"isStateful":`, true)
		}
		e.b = append(e.b, '}')
	}
	if e.err != nil {
		return nil, e.err
	}
	return append(e.b, '}'), nil
}

// requestEncoder appends a request's members to b; the first error ends
// the encoding (later appends are wasted, not wrong: the bytes are
// dropped).
type requestEncoder struct {
	b   []byte
	err error
	// checkRaw checks a json.RawMessage among the values as json.Marshal
	// does (see appendValue): a response's values are a handler's.
	checkRaw bool
}

// str appends key (its quotes, colon and any leading comma) and s.
func (e *requestEncoder) str(key, s string) { e.b = AppendJSONString(append(e.b, key...), s) }

// optStr is str for a member tagged omitempty: nothing when s is "".
func (e *requestEncoder) optStr(key, s string) {
	if s != "" {
		e.str(key, s)
	}
}

func (e *requestEncoder) bool(key string, v bool) {
	e.b = strconv.AppendBool(append(e.b, key...), v)
}

// value appends key and v by [AppendJSON]: properties, null when nil, or
// a patch value.
func (e *requestEncoder) value(key string, v any) {
	if e.err != nil {
		return
	}
	e.b, e.err = appendValue(append(e.b, key...), v, e.checkRaw)
}

// resource appends key and an [ExtantResource], its outputProperties
// omitted when empty (omitempty omits an empty map, not only nil).
func (e *requestEncoder) resource(key string, r *ExtantResource) {
	e.str(key+`{"type":`, r.Type)
	e.value(`,"inputProperties":`, r.InputProperties)
	if len(r.OutputProperties) > 0 {
		e.value(`,"outputProperties":`, r.OutputProperties)
	}
	e.b = append(e.b, '}')
}

// patch appends key and p, null when p is nil; a value, raw bytes from
// the caller, is checked as json.Marshal checks a json.RawMessage.
func (e *requestEncoder) patch(key string, p Patch) {
	if p == nil {
		e.b = append(append(e.b, key...), "null"...)
		return
	}
	e.b = append(append(e.b, key...), '[')
	for i, op := range p {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		e.str(`{"op":`, op.Op)
		e.str(`,"path":`, op.Path)
		e.optStr(`,"from":`, op.From)
		if len(op.Value) > 0 {
			e.b = append(e.b, `,"value":`...)
			if json.Valid(op.Value) && plainJSON(op.Value) {
				e.b = append(e.b, op.Value...)
			} else if e.err == nil {
				raw, err := json.Marshal(op.Value) // compacted, or why it is not JSON
				e.b, e.err = append(e.b, raw...), err
			}
		}
		e.b = append(e.b, '}')
	}
	e.b = append(e.b, ']')
}
