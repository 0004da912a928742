package schema

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// encodeCorpus are JSON texts whose decoding AppendJSON must encode as
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
		v, err := decodeJSON([]byte(text))
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
			_, got := AppendJSON(nil, v)
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
	got, err := AppendJSON(nil, v)
	if err != nil {
		t.Fatalf("AppendJSON: %v", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("AppendJSON differs from json.Marshal (-want +got):\n%s", diff)
	}
}

// FuzzAppendJSON holds AppendJSON to json.Marshal on every value decoded
// from the fuzzed text, and on the text itself as a raw value.
func FuzzAppendJSON(f *testing.F) {
	for _, text := range encodeCorpus {
		f.Add([]byte(text))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := decodeJSON(data)
		if err != nil {
			return
		}
		checkAppendJSON(t, v)
		if json.Valid(data) {
			checkAppendJSON(t, []any{json.RawMessage(data)})
		}
	})
}
