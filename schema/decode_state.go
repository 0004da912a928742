package schema

import (
	"bytes"
	"encoding/json"
	"slices"
)

// stateRequestFrom builds a state read, a state event or an import request
// from its validated, decoded body m and the line data that decodeFast
// took it from, without decoding data a second time. What encoding/json
// makes of these differs from the decoded map in two ways, and both are
// taken care of here:
//   - a patch operation's value is a [json.RawMessage], the value's bytes
//     as the line has them (a state event is recorded byte for byte), so
//     the values are cut out of data;
//   - encoding/json merges a repeated member of an object it decodes into
//     a struct (the wrapper, the body, its resource, a patch operation),
//     where the map keeps the last one; such a line reports false, and the
//     caller decodes it with encoding/json.
//
// TestDecodeStateRequest holds the result to encoding/json's.
func stateRequestFrom(kind string, m map[string]any, data []byte) (*Request, bool) {
	values, ok := scanStateRequest(data, kind)
	if !ok {
		return nil, false
	}
	str := func(m map[string]any, key string) string { s, _ := m[key].(string); return s }
	resource := func() ExtantResource {
		r, _ := m["resource"].(map[string]any)
		in, _ := r["inputProperties"].(map[string]any)
		out, _ := r["outputProperties"].(map[string]any)
		return ExtantResource{Type: str(r, "type"), InputProperties: in, OutputProperties: out}
	}
	switch kind {
	case "stateResourceReadRequest":
		return &Request{StateResourceReadRequest: &StateResourceReadRequest{Resource: resource()}}, true
	case "importResourceRequest":
		return &Request{ImportResourceRequest: &ImportResourceRequest{Type: str(m, "type"), ID: str(m, "id")}}, true
	case "stateResourceEvent":
		ops, _ := m["patch"].([]any)
		if len(ops) != len(values) {
			return nil, false
		}
		patch := make(Patch, len(ops))
		size := 0
		for _, v := range values {
			size += v.end - v.start
		}
		buf := make([]byte, 0, size) // one copy for all values: data is the reader's buffer
		for i, op := range ops {
			op, _ := op.(map[string]any)
			patch[i] = PatchOperation{Op: str(op, "op"), Path: str(op, "path"), From: str(op, "from")}
			if v := values[i]; v.present {
				n := len(buf)
				buf = append(buf, data[v.start:v.end]...)
				patch[i].Value = json.RawMessage(buf[n:len(buf):len(buf)])
			}
		}
		return &Request{StateResourceEvent: &StateResourceEvent{
			Resource: resource(), Event: str(m, "event"), NixopsVersion: str(m, "nixopsVersion"), Patch: patch,
		}}, true
	}
	return nil, false
}

// rawSpan is where a patch operation's value lies in the line.
type rawSpan struct {
	start, end int
	present    bool
}

// scanStateRequest walks data, a request line that decodeFast took (so
// one plain valid JSON value), down the members that decode into structs:
// the wrapper, the body of kind, its resource, and each patch operation.
// It gives the span of every patch operation's value, and reports false
// when one of those objects repeats a member.
func scanStateRequest(data []byte, kind string) ([]rawSpan, bool) {
	d := &fastDecoder{data: data}
	var spans []rawSpan
	patchOp := func(key []byte) bool {
		if string(key) != "value" {
			return d.skip()
		}
		s := rawSpan{start: d.pos, present: true}
		if !d.skip() {
			return false
		}
		s.end = d.pos
		spans[len(spans)-1] = s
		return true
	}
	body := func(key []byte) bool {
		switch string(key) {
		case "resource":
			return d.members(func([]byte) bool { return d.skip() })
		case "patch":
			if kind != "stateResourceEvent" {
				return d.skip()
			}
			return d.elements(func() bool {
				spans = append(spans, rawSpan{})
				return d.members(patchOp)
			})
		}
		return d.skip()
	}
	d.space()
	ok := d.members(func(key []byte) bool {
		if string(key) == kind {
			return d.members(body)
		}
		return d.skip()
	})
	return spans, ok
}

// members walks the object at d.pos, calling member with each key once
// d.pos is at its value; member consumes the value. It reports false for
// a repeated key, or whatever is not an object. The object is valid JSON.
// A key is its text as it decodes; it is only good until member returns.
func (d *fastDecoder) members(member func(key []byte) bool) bool {
	if d.pos >= len(d.data) || d.data[d.pos] != '{' {
		return false
	}
	d.pos++
	var seenBuf [4][]byte
	seen := seenBuf[:0]
	d.space()
	if d.pos < len(d.data) && d.data[d.pos] == '}' {
		d.pos++
		return true
	}
	for {
		if d.pos >= len(d.data) || d.data[d.pos] != '"' {
			return false
		}
		k, ok := d.keyText()
		if !ok || slices.ContainsFunc(seen, func(s []byte) bool { return bytes.Equal(s, k) }) {
			return false
		}
		seen = append(seen, k)
		d.space()
		if d.pos >= len(d.data) || d.data[d.pos] != ':' {
			return false
		}
		d.pos++
		d.space()
		if !member(k) {
			return false
		}
		d.space()
		if d.pos >= len(d.data) {
			return false
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
			d.space()
		case '}':
			d.pos++
			return true
		default:
			return false
		}
	}
}

// elements walks the array at d.pos, calling element with d.pos at each
// element; element consumes it.
func (d *fastDecoder) elements(element func() bool) bool {
	if d.pos >= len(d.data) || d.data[d.pos] != '[' {
		return false
	}
	d.pos++
	d.space()
	if d.pos < len(d.data) && d.data[d.pos] == ']' {
		d.pos++
		return true
	}
	for {
		if !element() {
			return false
		}
		d.space()
		if d.pos >= len(d.data) {
			return false
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
			d.space()
		case ']':
			d.pos++
			return true
		default:
			return false
		}
	}
}

// skip moves d.pos past the value there, which is valid JSON, without
// decoding it.
func (d *fastDecoder) skip() bool {
	depth := 0
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case '"':
			if !d.skipString() {
				return false
			}
		case '{', '[':
			depth++
			d.pos++
			continue
		case '}', ']':
			if depth == 0 {
				return false
			}
			depth--
			d.pos++
		case ',', ':', ' ', '\t', '\n', '\r':
			if depth == 0 {
				return false
			}
			d.pos++
			continue
		default: // a number or a literal
			d.pos++
			for d.pos < len(d.data) && !endsScalar(d.data[d.pos]) {
				d.pos++
			}
		}
		if depth == 0 {
			return true
		}
	}
	return false
}

func endsScalar(c byte) bool {
	switch c {
	case ',', '}', ']', ':', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}

// keyText reads the key at d.pos without copying it when it holds no
// escape; one that does is decoded into a buffer of its own, as seen
// keys are compared with later ones.
func (d *fastDecoder) keyText() ([]byte, bool) {
	start := d.pos + 1
	if !d.skipString() {
		return nil, false
	}
	raw := d.data[start : d.pos-1]
	if bytes.IndexByte(raw, '\\') < 0 {
		return raw, true
	}
	d.pos = start - 1
	buf := d.buf
	d.buf = nil // escaped decodes into d.buf: keep this key's text apart
	s, ok := d.str(false)
	d.buf = buf
	return []byte(s), ok
}

// skipString moves d.pos past the string that opens there.
func (d *fastDecoder) skipString() bool {
	d.pos++ // "
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case '\\':
			d.pos += 2
		case '"':
			d.pos++
			return true
		default:
			d.pos++
		}
	}
	return false
}
