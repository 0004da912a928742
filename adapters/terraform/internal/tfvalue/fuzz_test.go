package tfvalue

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/zclconf/go-cty/cty"
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

// FuzzNumberToString holds FromJSON's number-to-string shortcut to cty's
// conversion for any JSON number text.
func FuzzNumberToString(f *testing.F) {
	for _, seed := range []string{"0", "-0", "42", "1e3", "0.1", "1.50", "-9223372036854775809", "1e4000"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		var n json.Number
		if json.Unmarshal([]byte(text), &n) != nil || string(n) != text {
			return // not one JSON number
		}
		want, werr := numberToStringReference(n)
		got, gerr := FromJSON(n, cty.String, nil)
		if (werr == nil) != (gerr == nil) || (werr == nil && !got.RawEquals(want)) {
			t.Fatalf("FromJSON(%s) = %#v, %v; cty's conversion gives %#v, %v", text, got, gerr, want, werr)
		}
	})
}
