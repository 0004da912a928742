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
// [schema.AppendJSON].
func marshal(v any) ([]byte, error) { return appendJSON(nil, v) }

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
