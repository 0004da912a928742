package schema

// DecodeJSON decodes data, exactly one JSON value with optional white
// space around it, into what encoding/json's Decoder with UseNumber gives
// an any (maps, slices, strings, [encoding/json.Number], bools and nil),
// with the same result or error, in the one pass that decodes frames. A
// state store uses it for the values of the patches it records and for
// the documents it reads back, which encoding/json's reflection would
// otherwise make most of an event's cost.
func DecodeJSON(data []byte) (any, error) { return decodeJSON(data) }
