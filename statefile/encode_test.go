package statefile

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pierhq/pier/schema"
)

// encodeCorpus are JSON texts whose decoding appendJSON must encode as
// json.Marshal does: escapes, HTML characters, line separators, invalid
// UTF-8, numbers as written, key order, nesting and raw values.
var encodeCorpus = []string{
	`null`, `true`, `false`, `0`, `-1.5e+10`, `12345678901234567890`, `""`,
	`"plain"`, `"quote \" backslash \\ slash \/"`, `"\b\f\n\r\t\u0000\u001f\u007f"`,
	`"<script>&amp;</script>"`, `"line\u2028para\u2029"`, `"é ü 日本 🎉"`,
	`{}`, `[]`, `[1,"a",null,{"b":[true]}]`,
	`{"b":1,"a":2,"A":3,"_":4,"aa":5,"":6}`,
	`{"<k>":"v&","\u2028":1,"é":{"z":[],"y":{}}}`,
	`{"resources":{"r1":{"type":"memo","inputProperties":{"initialize_with":"x"}}},"_type":"nixopsState"}`,
}

func TestAppendJSONMatchesMarshal(t *testing.T) {
	t.Parallel()
	for _, text := range encodeCorpus {
		v, err := decodeValue([]byte(text))
		if err != nil {
			t.Fatalf("decode %s: %v", text, err)
		}
		checkAppendJSON(t, v)
		checkAppendJSON(t, map[string]any{"raw": json.RawMessage(text), "decoded": v})
	}
	// Values that no decode gives, but a caller may put in a document.
	for name, v := range map[string]any{
		"empty number":    json.Number(""),
		"nil map":         map[string]any(nil),
		"nil slice":       []any(nil),
		"nil raw":         json.RawMessage(nil),
		"raw with spaces": json.RawMessage(`{ "a" : [ 1 , 2 ] }`),
		"raw with html":   json.RawMessage(`{"a":"<&>"}`),
		"float":           1.5,
		"int":             7,
		"string map":      map[string]string{"b": "<", "a": "x"},
		"invalid utf-8":   "a\xffb\xc3",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			checkAppendJSON(t, v)
		})
	}
}

func TestAppendJSONErrorsAsMarshal(t *testing.T) {
	t.Parallel()
	for name, v := range map[string]any{
		"bad number": json.Number("1.2.3"),
		"nested":     map[string]any{"a": []any{json.Number("x")}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, want := json.Marshal(v)
			_, got := marshal(v)
			if want == nil || got == nil || want.Error() != got.Error() {
				t.Errorf("error %v, want %v", got, want)
			}
		})
	}
}

func checkAppendJSON(t *testing.T, v any) {
	t.Helper()
	want, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("json.Marshal: %v", err)
	}
	got, err := marshal(v)
	if err != nil {
		t.Fatalf("appendJSON: %v", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("appendJSON differs from json.Marshal (-want +got):\n%s", diff)
	}
}

// FuzzAppendJSON holds appendJSON to json.Marshal on every value decoded
// from the fuzzed text, and on the text itself as a raw value.
func FuzzAppendJSON(f *testing.F) {
	for _, text := range encodeCorpus {
		f.Add([]byte(text))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := decodeValue(data)
		if err != nil {
			return
		}
		checkAppendJSON(t, v)
		if json.Valid(data) {
			checkAppendJSON(t, []any{json.RawMessage(data)})
		}
	})
}

// FuzzAppendRaw holds appendRaw, which takes bytes from outside, to
// json.Marshal of the same json.RawMessage: the bytes, or an error.
func FuzzAppendRaw(f *testing.F) {
	for _, text := range encodeCorpus {
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
