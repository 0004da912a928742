package statefile

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestCanonicalize(t *testing.T) {
	t.Parallel()
	// want is canonicalize's result, "" for false.
	for _, tt := range []struct{ raw, want string }{
		{`null`, `null`},
		{`true`, `true`},
		{`false`, `false`},
		{`0`, `0`},
		{`-0`, `-0`},
		{`-1.5e+10`, `-1.5e+10`},
		{`1E5`, `1E5`},
		{`12345678901234567890`, `12345678901234567890`},
		{`""`, `""`},
		{`"a b"`, `"a b"`},
		{`"é"`, `"é"`},
		{`"a\"b\\c\n\t\r\b\f"`, `"a\"b\\c\n\t\r\b\f"`},
		{`"\u0001\u001f\u003c\u003e\u0026\u2028\u2029"`, `"\u0001\u001f\u003c\u003e\u0026\u2028\u2029"`},
		{`{}`, `{}`},
		{`[]`, `[]`},
		{`{"a":1,"b":[true,null,{"c":"d"}]}`, `{"a":1,"b":[true,null,{"c":"d"}]}`},
		{`{"":1,"a":2}`, `{"":1,"a":2}`},
		{`{"a":2,"A":1}`, `{"A":1,"a":2}`},
		{`{"b":1,"a":2}`, `{"a":2,"b":1}`},
		{`{"b":{"d":[{"f":1,"e":2}],"c":{}},"a":[{"z":0,"y":1}]}`, `{"a":[{"y":1,"z":0}],"b":{"c":{},"d":[{"e":2,"f":1}]}}`},
		{`{"type":"time_static","input_properties":{"triggers":{"index":9}},"provider":"time","dependencies":["state"]}`,
			`{"dependencies":["state"],"input_properties":{"triggers":{"index":9}},"provider":"time","type":"time_static"}`},
		{`{"a":1,"a":2}`, ``},       // a repeated member
		{`{"b":1,"a":2,"b":3}`, ``}, // a repeated member, out of order
		{`{"a\n":1}`, ``},           // an escape in a key
		{`{ "a":1}`, ``},            // not compact
		{`[1, 2]`, ``},              // not compact
		{` 1`, ``},                  // white space
		{`1 `, ``},                  // white space
		{`"<"`, ``},                 // json.Marshal escapes it
		{`"&"`, ``},                 // json.Marshal escapes it
		{"\"\u2028\"", ``},          // json.Marshal escapes it
		{"\"\x01\"", ``},            // a control character
		{"\"\xff\"", ``},            // invalid UTF-8
		{`"\/"`, ``},                // json.Marshal writes /
		{`"\u00e9"`, ``},            // json.Marshal writes é
		{`"\u0008"`, ``},            // json.Marshal writes \b
		{`"\u001F"`, ``},            // json.Marshal writes lower-case hex
		{`"\ufffd"`, ``},            // decodes to U+FFFD, which json.Marshal writes as it is
		{`"\ud800"`, ``},            // a lone surrogate
		{`01`, ``},                  // not JSON
		{`1.`, ``},                  // not JSON
		{`.5`, ``},                  // not JSON
		{`1e`, ``},                  // not JSON
		{`-`, ``},                   // not JSON
		{`+1`, ``},                  // not JSON
		{`tru`, ``},                 // not JSON
		{`{"a":1`, ``},              // cut short
		{`[1,]`, ``},                // not JSON
		{`{"a":1,}`, ``},            // not JSON
		{`{"a"}`, ``},               // not JSON
		{`"abc`, ``},                // cut short
		{``, ``},                    // nothing
		{`1 2`, ``},                 // two values
		{strings.Repeat("[", canonicalMaxDepth) + strings.Repeat("]", canonicalMaxDepth), strings.Repeat("[", canonicalMaxDepth) + strings.Repeat("]", canonicalMaxDepth)},
		{strings.Repeat("[", canonicalMaxDepth+1) + strings.Repeat("]", canonicalMaxDepth+1), ``}, // too deep
	} {
		var s canonScanner
		got, ok := s.canonicalize(nil, []byte(tt.raw))
		if !ok {
			got = nil
		}
		if string(got) != tt.want || ok != (tt.want != "") {
			t.Errorf("canonicalize(%q) = %q, %v; want %q", tt.raw, got, ok, tt.want)
		}
	}
}

// FuzzCanonicalize holds canonicalize to its promise: bytes it takes
// decode, and it gives json.Marshal's (and appendJSON's) encoding of what
// they decode to, byte for byte.
func FuzzCanonicalize(f *testing.F) {
	for _, text := range rawCorpus {
		f.Add([]byte(text))
	}
	for _, text := range []string{`{"a":1,"b":[true,null,{"c":"d"}]}`, `"\u0001\u003c\n"`, `{"b":1,"a":2}`, `-0.5E-3`, `"\u00e9"`, `{"b":{"d":[{"f":1,"e":2}],"c":{}},"a":[{"z":0,"y":1}]}`} {
		f.Add([]byte(text))
	}
	var s canonScanner // shared, as a document shares it between appends
	f.Fuzz(func(t *testing.T, data []byte) {
		got, ok := s.canonicalize([]byte("x"), data)
		if !ok {
			return
		}
		v, err := decodeValue(data)
		if err != nil {
			t.Fatalf("canonicalize(%q) = %q, but it does not decode: %v", data, got, err)
		}
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != "x"+string(want) {
			t.Fatalf("canonicalize(%q) = %q, but json.Marshal of its value is %q", data, got[1:], want)
		}
		if enc, err := appendJSON(nil, v); err != nil || string(enc) != string(want) {
			t.Fatalf("appendJSON of %q is %q, %v; json.Marshal gives %q", data, enc, err, want)
		}
	})
}
