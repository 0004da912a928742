package statefile

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pierhq/pier/schema"
)

// rawCorpus seeds FuzzAppendRaw: valid JSON, compact or not, with what
// json.Marshal escapes in a raw value.
var rawCorpus = []string{
	`null`, `0`, `-1.5e+10`, `""`, `"<script>&amp;</script>"`, `"line\u2028para\u2029"`,
	`{}`, `[]`, `[1,"a",null,{"b":[true]}]`, `{ "a" : [ 1 , 2 ] }`, "\"\xe2\x80\xa8\"",
}

// FuzzAppendRaw holds appendRaw, which takes bytes from outside, to
// json.Marshal of the same json.RawMessage: the bytes, or an error.
func FuzzAppendRaw(f *testing.F) {
	for _, text := range rawCorpus {
		f.Add([]byte(text))
	}
	f.Add([]byte(`{"a":`))
	f.Add([]byte(` 1 `))
	f.Fuzz(func(t *testing.T, data []byte) {
		want, werr := json.Marshal(json.RawMessage(data))
		got, gerr := appendRaw(nil, data)
		if (werr == nil) != (gerr == nil) || werr == nil && string(want) != string(got) {
			t.Errorf("appendRaw(%q) = %q, %v; json.Marshal gives %q, %v", data, got, gerr, want, werr)
		}
	})
}

// TestEncodeLineMatchesMarshal checks the hand-built event line against
// the encoding json.Marshal gives the event, checksum member aside.
func TestEncodeLineMatchesMarshal(t *testing.T) {
	t.Parallel()
	for name, ev := range map[string]Event{
		"init": initEvent("2026-01-01T00:00:00Z"),
		"create": {Index: 3, Meta: Meta{Time: "t", Event: "create", NixopsVersion: "pier <1>"}, Patch: schema.Patch{
			{Op: "add", Path: "/resources/a~1b", Value: json.RawMessage(`{"type":"memo","x":"<&>"}`)},
			{Op: "remove", Path: "/pierPendingOperations/a"},
			{Op: "move", Path: "/resources/c", From: "/resources/b"},
			{Op: "add", Path: "/x", Value: json.RawMessage(" [ 1 ,\n2 ] ")},
			{Op: "replace", Path: "/y", Value: json.RawMessage(`null`)},
		}},
		"no patch":    {Index: 1, Meta: Meta{Event: "noop"}},
		"empty meta":  {Index: 2, Patch: schema.Patch{}},
		"extra meta":  {Index: 4, Meta: Meta{Time: "t", Extra: map[string]any{"compactedEvents": 3, "a": "b"}}, Patch: schema.Patch{{Op: "test", Path: "", Value: json.RawMessage(`{}`)}}},
		"odd strings": {Index: 5, Meta: Meta{Event: "a\"b\\c\u2028\x01"}, Patch: schema.Patch{{Op: "add", Path: "/\xff", Value: json.RawMessage(`"\u00e9"`)}}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if ev.Patch == nil {
				ev.Patch = schema.Patch{}
			}
			want, err := json.Marshal(ev)
			if err != nil {
				t.Fatal(err)
			}
			got, _, err := ev.appendJSON(nil)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("event encoding (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEncodeLineRefusesInvalidValue(t *testing.T) {
	t.Parallel()
	ev := Event{Index: 1, Patch: schema.Patch{{Op: "remove", Path: "/a", Value: json.RawMessage(`{"a"`)}}}
	_, want := json.Marshal(ev)
	_, got := ev.encodeLine()
	if want == nil || got == nil || want.Error() != got.Error() {
		t.Errorf("error %v, want %v", got, want)
	}
}

// TestMarshalSize checks encodedSize, by which marshal makes its buffer,
// against the encoding's own length: exact where no string needs an
// escape.
func TestMarshalSize(t *testing.T) {
	t.Parallel()
	for _, text := range []string{`null`, `true`, `false`, `""`, `"abc"`, `-1.5e3`, `{}`, `[]`, `{"a":1,"b":[true,null,{"c":"d"}],"e":{}}`, `[[],[1],{"x":[2,3]}]`} {
		v := mustDecode(t, text)
		got, err := marshal(v)
		if err != nil || string(got) != text {
			t.Fatalf("marshal(%s) = %q, %v", text, got, err)
		}
		if n := encodedSize(v); n != len(text) {
			t.Errorf("encodedSize(%s) = %d, want %d", text, n, len(text))
		}
	}
	raw := map[string]any{"r": json.RawMessage(`{"a":[1,2]}`)}
	if n := encodedSize(raw); n != len(`{"r":{"a":[1,2]}}`) {
		t.Errorf("encodedSize of an encoded member = %d, want %d", n, len(`{"r":{"a":[1,2]}}`))
	}
}
