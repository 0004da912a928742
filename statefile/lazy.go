package statefile

import (
	"bytes"
	"encoding/json"
)

// A writer that opens its log from the resolved-state cache decodes the
// cached document only two levels deep: the root's members, and the
// members of those that are objects (each resource under resources),
// whose values stay as their encoded bytes, a json.RawMessage in the tree,
// until an operation reaches into one. A command that changes one
// resource of 100,000 then decodes that one, not the whole state, before
// its first append. The cache is hashed and was written by json.Marshal,
// so the bytes are valid JSON.
//
// Every read of the tree decodes what it passes through: lookup stores
// the decoded value back in place (decoding changes no value, so the undo
// journal need not know), and deepCopy and jsonEqual decode what they
// meet, so that nothing outside the log sees a RawMessage. json.Marshal
// writes one as it is, which is what encoding the decoded value gives.

// decodeShallow decodes the encoding of a state document two levels deep,
// or reports ok=false when it is not a compact object (the caller then
// decodes it whole).
func decodeShallow(b []byte) (map[string]any, bool) {
	top, ok := shallowObject(b)
	if !ok {
		return nil, false
	}
	for k, v := range top {
		raw := v.(json.RawMessage)
		if raw[0] == '{' {
			if sub, ok := shallowObject(raw); ok {
				top[k] = sub
				continue
			}
		}
		// Scalars (the _type) and arrays are small: decode them now.
		d, err := decodeValue(raw)
		if err != nil {
			return nil, false
		}
		top[k] = d
	}
	return top, true
}

// shallowObject decodes a compact JSON object into its members' encoded
// values.
func shallowObject(b []byte) (map[string]any, bool) {
	if len(b) < 2 || b[0] != '{' || b[len(b)-1] != '}' {
		return nil, false
	}
	m := map[string]any{}
	i := 1
	for i < len(b)-1 {
		if i > 1 {
			if b[i] != ',' {
				return nil, false
			}
			i++
		}
		kEnd, ok := skipString(b, i)
		if !ok || kEnd >= len(b) || b[kEnd] != ':' {
			return nil, false
		}
		key := string(b[i+1 : kEnd-1])
		if bytes.IndexByte(b[i:kEnd], '\\') >= 0 {
			if json.Unmarshal(b[i:kEnd], &key) != nil {
				return nil, false
			}
		}
		vEnd, ok := skipValue(b, kEnd+1)
		if !ok {
			return nil, false
		}
		m[key] = json.RawMessage(b[kEnd+1 : vEnd])
		i = vEnd
	}
	return m, i == len(b)-1
}

// decoded returns v with an encoded value decoded whole.
func decoded(v any) any {
	raw, ok := v.(json.RawMessage)
	if !ok {
		return v
	}
	d, err := decodeValue(raw)
	if err != nil {
		panic("an encoded value in a state document does not decode (" + err.Error() + "): this is a bug in pier")
	}
	return d
}
