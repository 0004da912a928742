package schema

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fastCases are JSON texts decodeFast must decode exactly as
// encoding/json does (take: true), or leave to it (take: false).
var fastCases = map[string]struct {
	in   string
	take bool
}{
	"object":              {`{"a":1,"b":[true,false,null],"c":{"d":"e"}}`, true},
	"white space":         {" \t\r\n{ \"a\" : [ 1 , 2 ] }\n", true},
	"empty object, array": {`{"a":{},"b":[]}`, true},
	"repeated key":        {`{"a":1,"a":2}`, true},
	"numbers":             {`[0,-0,1.5,-12.25e+3,1E-2,9007199254740993,1e400]`, true},
	"escapes":             {`"q\" b\\ s\/ \b\f\n\r\t \u00e9 \u20AC \ud83d\ude00"`, true},
	"escaped key":         {`{"a\nb":1,"a\nb":2}`, true},
	"utf-8":               {`"héllo, 世界, 😀"`, true},
	"nul escape":          {`"\u0000"`, true},
	"shared values":       {`[{"t":"memo","p":"local"},{"t":"memo","p":"local"},"memo",""]`, true},
	"shared lengths":      {`["0123456789abcdef","0123456789abcdefg","0123456789abcdef"]`, true},
	"shared numbers":      {`[4,"4",4,-0,"-0",-0,1.5e3,"1.5e3",1.5e3,"",0]`, true},
	"long numbers":        {`[12345678901234567,12345678901234567,"12345678901234567"]`, true},
	"short escaped":       {`["a\"b","a\"b","a\u0041"]`, true},
	"short non-ascii":     {`["é","é"]`, true},
	"short control":       {"[\"a\tb\"]", false},
	"short unterminated":  {`["memo`, false},
	"lone surrogate":      {`"\ud83d"`, false},
	"reversed surrogates": {`"\ude00\ud83d"`, false},
	"invalid utf-8":       {"\"a\xffb\"", false},
	"control character":   {"\"a\nb\"", false},
	"leading zero":        {`01`, false},
	"bare minus":          {`-`, false},
	"dot without digits":  {`1.`, false},
	"exponent no digits":  {`1e+`, false},
	"trailing comma":      {`[1,]`, false},
	"trailing data":       {`{} {}`, false},
	"empty":               {``, false},
	"unknown escape":      {`"\x"`, false},
	"short unicode":       {`"\u12"`, false},
	"unquoted key":        {`{a:1}`, false},
	"missing colon":       {`{"a" 1}`, false},
	"truncated literal":   {`tru`, false},
	"unclosed":            {`{"a":[1,2`, false},
	// Past fastMaxStacked, members and elements go straight into their
	// map or slice; the repeated key straddles that.
	"large object":    {largeObject(150, `"k3":"again"`), true},
	"large array":     {largeArray(150, `[1,{"a":[2,3]}]`), true},
	"large unclosed":  {largeObject(150, `"x":[1,2`)[:len(largeObject(150, `"x":[1,2`))-1], false},
	"nested large":    {`{"a":` + largeArray(70, largeObject(70, `"b":[]`)) + `}`, true},
	"large then fail": {`[` + largeArray(70, `1`) + `,{"a":1,]`, false},
}

// largeObject is an object of n members "k0" to "kN-1" and then last.
func largeObject(n int, last string) string {
	b := []byte("{")
	for i := range n {
		b = fmt.Appendf(b, `"k%d":[%d,"v%d"],`, i, i, i)
	}
	return string(b) + last + "}"
}

// largeArray is an array of n numbers and then last.
func largeArray(n int, last string) string {
	b := []byte("[")
	for i := range n {
		b = fmt.Appendf(b, `%d,`, i)
	}
	return string(b) + last + "]"
}

func TestDecodeFast(t *testing.T) {
	t.Parallel()
	for name, tc := range fastCases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, ok := decodeFast([]byte(tc.in))
			if ok != tc.take {
				t.Fatalf("decodeFast took it: %v, want %v", ok, tc.take)
			}
			want, werr := decodeStd([]byte(tc.in))
			if ok {
				if werr != nil {
					t.Fatalf("decodeFast took what encoding/json refuses: %v", werr)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("(-encoding/json +decodeFast):\n%s", diff)
				}
			}
			checkWrapper(t, []byte(tc.in), got, ok)
			// Whatever decodeFast leaves, decodeJSON answers as
			// encoding/json, error and all.
			all, err := decodeJSON([]byte(tc.in))
			if fmt.Sprint(err) != fmt.Sprint(werr) || !cmp.Equal(want, all) {
				t.Errorf("decodeJSON = %v, %v; encoding/json = %v, %v", all, err, want, werr)
			}
		})
	}
}

// checkWrapper holds decodeFastWrapper to decodeFast, which decoded data
// as fast (when took): what the wrapper takes is an object of one member
// that decodeFast takes, and it gives that member. (It leaves an object
// whose one member is a repeated key; TestDecodeFastWrapper says which
// it takes.)
func checkWrapper(t *testing.T, data []byte, fast any, took bool) {
	t.Helper()
	key, value, ok := decodeFastWrapper(data, nil)
	if !ok {
		return
	}
	m, isObject := fast.(map[string]any)
	if !took || !isObject || len(m) != 1 {
		t.Fatalf("decodeFastWrapper(%q) took it, decodeFast gave %#v, %v", data, fast, took)
	}
	if diff := cmp.Diff(m, map[string]any{key: value}); diff != "" {
		t.Fatalf("%q (-decodeFast +decodeFastWrapper):\n%s", data, diff)
	}
	// Decoded into a map of the caller's, the value is the same, and
	// an object is that map.
	into := map[string]any{}
	key2, value2, ok := decodeFastWrapper(data, into)
	if !ok || key2 != key {
		t.Fatalf("decodeFastWrapper(%q) into a map: %q, %v; without: %q", data, key2, ok, key)
	}
	if diff := cmp.Diff(value, value2); diff != "" {
		t.Fatalf("%q (-decodeFastWrapper +into a map):\n%s", data, diff)
	}
	if obj, isObj := value2.(map[string]any); isObj {
		into["\x00probe"] = true
		if _, same := obj["\x00probe"]; !same {
			t.Fatalf("decodeFastWrapper(%q) into a map: the object is not that map", data)
		}
	} else if len(into) != 0 {
		t.Fatalf("decodeFastWrapper(%q) into a map: the value is no object, and the map holds %v", data, into)
	}
}

func TestDecodeFastWrapper(t *testing.T) {
	t.Parallel()
	for in, take := range map[string]bool{
		` {"createResourceResponse" : {"outputProperties":{"id":"x"}}} `: true,
		`{"a":null}`:      true,
		`{"a\u0062":[]}`:  true,
		`{}`:              false,
		`{"a":{},"b":{}}`: false,
		`{"a":{},"a":1}`:  false,
		`{"a":{}} x`:      false,
		`{"a":{},}`:       false,
		`{"a" {}}`:        false,
		`[{"a":1}]`:       false,
		`{"a":{"b":}}`:    false,
	} {
		got, ok := decodeFast([]byte(in))
		if _, _, took := decodeFastWrapper([]byte(in), nil); took != take {
			t.Errorf("decodeFastWrapper(%q) took it: %v, want %v", in, took, take)
		}
		checkWrapper(t, []byte(in), got, ok)
	}
}

// FuzzDecodeFast holds decodeFast to encoding/json: what it takes it
// decodes to the same value, and it takes nothing encoding/json refuses;
// and decodeFastWrapper to decodeFast (see checkWrapper).
func FuzzDecodeFast(f *testing.F) {
	for _, tc := range fastCases {
		f.Add([]byte(tc.in))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, ok := decodeFast(data)
		checkWrapper(t, data, got, ok)
		if !ok {
			return
		}
		want, err := decodeStd(data)
		if err != nil {
			t.Fatalf("decodeFast took %q, which encoding/json refuses: %v", data, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("%q (-encoding/json +decodeFast):\n%s", data, diff)
		}
	})
}

// BenchmarkDecodeState10000 decodes a state read's response of 10,000
// memos, the largest frame a no-op reads.
func BenchmarkDecodeState10000(b *testing.B) {
	res := map[string]any{}
	for i := range 10000 {
		res[fmt.Sprintf("m[%d]", i)] = map[string]any{
			"type": "memo", "inputProperties": map[string]any{"initialize_with": fmt.Sprint("value-", i)},
			"outputProperties": map[string]any{"value": fmt.Sprint("value-", i)}, "provider": "local",
		}
	}
	data, err := json.Marshal(map[string]any{"stateResourceReadResponse": map[string]any{"state": map[string]any{"_type": "nixopsState", "resources": res}}})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, ok := decodeFast(data); !ok {
				b.Fatal("not taken")
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := decodeStd(data); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestTableRelease: a decode's tables of shared keys and values go back
// to their pools as they are while they have room, and emptied once past
// half their bound, so that the next decode has room for its own.
func TestTableRelease(t *testing.T) {
	for _, tc := range []struct{ n, bound, want int }{
		{0, 0, 0}, {3, 3, 3}, {fastMaxKeys / 2, fastMaxKeys / 2, fastMaxKeys / 2},
		{fastMaxKeys/2 + 1, fastMaxValues/2 + 1, 0}, {fastMaxKeys, fastMaxValues, 0},
	} {
		d := fastDecoder{keys: map[string]string{}, values: map[string]any{}}
		keys, values := d.keys, d.values
		for i := range tc.n {
			keys[fmt.Sprint(i)] = fmt.Sprint(i)
		}
		for i := range tc.bound {
			values[fmt.Sprint(i)] = fmt.Sprint(i)
		}
		d.release()
		if d.keys != nil || d.values != nil {
			t.Errorf("%d keys, %d values: the decoder kept a table", tc.n, tc.bound)
		}
		if len(keys) != tc.want || len(values) != tc.want {
			t.Errorf("%d keys, %d values: %d and %d in the tables given back, want %d", tc.n, tc.bound, len(keys), len(values), tc.want)
		}
	}
}
