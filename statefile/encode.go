package statefile

import (
	"encoding/json"

	"github.com/pierhq/pier/schema"
)

// appendJSON appends json.Marshal(v) for a decoded JSON value, by
// [schema.AppendJSON].
func appendJSON(b []byte, v any) ([]byte, error) { return schema.AppendJSON(b, v) }

// appendString appends s as json.Marshal encodes a string.
func appendString(b []byte, s string) []byte { return schema.AppendJSONString(b, s) }

// marshal is json.Marshal(v) for a decoded JSON value, by
// [schema.AppendJSON], into a buffer made at about its size: a state
// grown from nothing was copied over and over, to five times its own size
// in all.
func marshal(v any) ([]byte, error) {
	n := encodedSize(v)
	return appendJSON(make([]byte, 0, n+n/32), v)
}

// encodedSize is about the length of json.Marshal(v): exact but for the
// escapes in strings, and for what is not a decoded JSON value.
func encodedSize(v any) int {
	switch x := v.(type) {
	case nil:
		return 4
	case bool:
		if x {
			return 4
		}
		return 5
	case string:
		return len(x) + 2
	case json.Number:
		return len(x)
	case json.RawMessage:
		return len(x)
	case map[string]any:
		n := 2 + max(len(x)-1, 0)
		for k, e := range x {
			n += len(k) + 3 + encodedSize(e)
		}
		return n
	case []any:
		n := 2 + max(len(x)-1, 0)
		for _, e := range x {
			n += encodedSize(e)
		}
		return n
	}
	return 16
}

// appendRaw appends raw, bytes from outside the document, as json.Marshal
// writes a json.RawMessage: as it is when it is valid and plain, else
// compacted and escaped by encoding/json, which also reports invalid JSON.
func appendRaw(b []byte, raw json.RawMessage) ([]byte, error) {
	if json.Valid(raw) {
		return schema.AppendJSON(b, raw)
	}
	e, err := json.Marshal(raw) // null for nil, else why it is not JSON
	if err != nil {
		return nil, err
	}
	return append(b, e...), nil
}
