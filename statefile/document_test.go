package statefile

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pierhq/pier/schema"
)

// TestDecodeDocument holds a document decoded two levels deep to the same
// document decoded whole ([DocumentOf]): after each patch, its state and
// its errors are the same, and its encoding is the same document, as long.
func TestDecodeDocument(t *testing.T) {
	t.Parallel()
	const state = `{"_type":"nixopsState","resources":{"a":{"type":"memo","input_properties":{"v":"<x>"},"output_properties":{"n":1.50}},"b":{"type":"t","input_properties":{}}},"deployments":{"web":{"resources":{"db":{"type":"t","input_properties":{}}}}},"pierOutputs":{"o":{"value":[1,"2"]}},"list":[{"b":1,"a":2}]}`
	patches := []string{
		`[{"op":"replace","path":"/resources/a/output_properties/n","value":2}]`,
		`[{"op":"add","path":"/resources/c","value":{"type":"t","input_properties":{"x":null}}}]`,
		`[{"op":"remove","path":"/resources/b"}]`,
		`[{"op":"test","path":"/resources/a/input_properties","value":{"v":"<x>"}},{"op":"copy","from":"/resources/a","path":"/deployments/web/resources/a"}]`,
		`[{"op":"remove","path":"/resources/missing"}]`,
		`[{"op":"test","path":"/resources/a/type","value":"other"}]`,
		`[{"op":"replace","path":"/_type","value":"other"}]`,
		`[{"op":"move","from":"/deployments/web","path":"/deployments/app"}]`,
	}
	tests := map[string]struct {
		doc    string
		ok     bool
		errMsg string
	}{
		"state":         {doc: state, ok: true},
		"not compact":   {doc: `{"_type": "nixopsState"}`},
		"not an object": {doc: `[1]`},
		"wrong type":    {doc: `{"_type":"other","resources":{}}`, ok: true, errMsg: `resolved state has _type other, want "nixopsState"`},
		"no type":       {doc: `{"resources":{"a":{"type":"t"}}}`, ok: true, errMsg: `resolved state has _type <nil>, want "nixopsState"`},
		"object type":   {doc: `{"resources":{},"_type":{"a":1}}`, ok: true, errMsg: `resolved state has _type map[a:1], want "nixopsState"`},
		"cut short":     {doc: `{"_type":"nixopsState","resources":{"a":`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cok, cerr := CheckDocument([]byte(tc.doc))
			if cok != tc.ok || (cerr == nil) != (tc.errMsg == "") || cerr != nil && cerr.Error() != tc.errMsg {
				t.Errorf("CheckDocument(%s) = %v, %v; want %v, %q", tc.doc, cok, cerr, tc.ok, tc.errMsg)
			}
			got, ok, err := DecodeDocument([]byte(tc.doc))
			if ok != tc.ok || (err == nil) != (tc.errMsg == "") || err != nil && err.Error() != tc.errMsg {
				t.Fatalf("DecodeDocument(%s) = %v, %v; want %v, %q", tc.doc, ok, err, tc.ok, tc.errMsg)
			}
			if !ok || err != nil {
				return
			}
			v, err := schema.DecodeJSON([]byte(tc.doc))
			if err != nil {
				t.Fatal(err)
			}
			want, err := DocumentOf(v.(map[string]any))
			if err != nil {
				t.Fatal(err)
			}
			compare := func(step string) {
				t.Helper()
				wb, werr := want.MarshalJSON()
				gb, gerr := got.MarshalJSON()
				if werr != nil || gerr != nil || len(wb) != len(gb) {
					t.Fatalf("%s: encoding %s, %v; want %s, %v", step, gb, gerr, wb, werr)
				}
				// The same document, and as long, the undecoded members
				// in the order the bytes have them.
				wv, werr := schema.DecodeJSON(wb)
				gv, gerr := schema.DecodeJSON(gb)
				if werr != nil || gerr != nil {
					t.Fatalf("%s: decode the encodings: %v, %v", step, werr, gerr)
				}
				if diff := cmp.Diff(wv, gv); diff != "" {
					t.Errorf("%s: encoding (-whole +shallow):\n%s", step, diff)
				}
				if diff := cmp.Diff(want.State(), got.State()); diff != "" {
					t.Errorf("%s: state (-whole +shallow):\n%s", step, diff)
				}
			}
			compare("as decoded")
			for _, p := range patches {
				var patch schema.Patch
				if err := json.Unmarshal([]byte(p), &patch); err != nil {
					t.Fatal(err)
				}
				werr, gerr := want.Apply(patch), got.Apply(patch)
				if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
					t.Errorf("apply %s: %v; want %v", p, gerr, werr)
				}
				compare("after " + p)
			}
		})
	}
}
