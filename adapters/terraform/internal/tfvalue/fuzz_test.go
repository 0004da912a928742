package tfvalue

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzConfig feeds arbitrary JSON objects through the configuration rules:
// they must never panic, whatever they accept must encode to msgpack and
// decode to the same value, and ToJSON must give what cty's JSON encoder
// and encoding/json give.
func FuzzConfig(f *testing.F) {
	for _, seed := range []string{
		`{}`,
		`{"name":"n"}`,
		`{"name":"n","size":3,"any":{"k":[1,"a",null]},"rules":[{"port":80}]}`,
		`{"name":"n","list":[{"x":"a"}],"set":[{"x":"s"},{"x":"s"}],"map":{"k":{"x":"m"}},"group":{}}`,
		`{"name":1e400}`,
		`{"name":"n","any":[[],{},[{}]]}`,
	} {
		f.Add([]byte(seed))
	}
	ty := testBlock.ImpliedType()
	f.Fuzz(func(t *testing.T, data []byte) {
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var in map[string]any
		if err := dec.Decode(&in); err != nil {
			return
		}
		v, err := Config(testBlock, in)
		if err != nil {
			return
		}
		mp, err := Marshal(v, ty)
		if err != nil {
			t.Fatalf("accepted configuration does not encode: %v", err)
		}
		back, err := Unmarshal(mp, ty)
		if err != nil {
			t.Fatalf("decode: %v", err)
		}
		if !back.RawEquals(v) {
			t.Fatalf("msgpack round trip changed the value:\n%#v\n%#v", v, back)
		}
		if v.IsWhollyKnown() {
			want, werr := toJSONReference(v)
			got, gerr := ToJSON(v)
			if (werr == nil) != (gerr == nil) || !reflect.DeepEqual(want, got) {
				t.Fatalf("ToJSON = %#v, %v; the encoder round trip gives %#v, %v", got, gerr, want, werr)
			}
		}
	})
}
