package postgres

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pierhq/pier/schema"
	"github.com/pierhq/pier/statefile"
)

func TestCompactJSON(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		in, want string
		plain    bool
	}{
		"empty":               {in: ``, want: ``, plain: true},
		"jsonb text":          {in: `{"a": 1, "b": [1, 2, {"c": null}]}`, want: `{"a":1,"b":[1,2,{"c":null}]}`, plain: true},
		"space in a string":   {in: `{"a b": " c, d: "}`, want: `{"a b":" c, d: "}`, plain: true},
		"escaped quote":       {in: `{"a\" ": "\" x \\", "b": 1}`, want: `{"a\" ":"\" x \\","b":1}`, plain: true},
		"other white space":   {in: "{\n\t\"a\":\r\n 1 }", want: `{"a":1}`, plain: true},
		"control escapes":     {in: `["\b\f\n\r\t\u0001"]`, want: `["\b\f\n\r\t\u0001"]`, plain: true},
		"html characters":     {in: `["<", 1]`, want: `["<",1]`, plain: false},
		"ampersand":           {in: `{"a": "&"}`, want: `{"a":"&"}`, plain: false},
		"line separator":      {in: "[\"\u2028\"]", want: "[\"\u2028\"]", plain: false},
		"paragraph sep.":      {in: "[\"\u2029\"]", want: "[\"\u2029\"]", plain: false},
		"other U+20xx":        {in: "[\"\u2026\", \"\u2030\"]", want: "[\"\u2026\",\"\u2030\"]", plain: true},
		"html outside string": {in: `{"<": 1}`, want: `{"<":1}`, plain: false},
		"trailing backslash":  {in: `"\`, want: `"\`, plain: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, plain := compactJSON([]byte(tc.in))
			if string(got) != tc.want || plain != tc.plain {
				t.Errorf("compactJSON(%q) = %q, %v; want %q, %v", tc.in, got, plain, tc.want, tc.plain)
			}
		})
	}
}

// TestStateReadEncoded holds a state read's encoding to StateRead's
// document: as stored in a snapshot with no event after it (the
// snapshot's own bytes), and with events after it (the document
// encoded), the frame the encoding makes decodes in the host to the
// document StateRead returns, and is as long as encoding that document:
// the size pier records for the state is the same either way.
func TestStateReadEncoded(t *testing.T) {
	t.Parallel()
	docs := map[string]string{
		"empty":     `{"_type":"nixopsState","resources":{},"deployments":{}}`,
		"resources": `{"_type":"nixopsState","resources":{"a[0]":{"type":"memo","input_properties":{"initialize_with":"x y"},"output_properties":{"value":"x y"},"provider":"local","dependencies":["state"]},"b":{"type":"t","inputProperties":{"n":1.50,"big":12345678901234567890,"e":1e3,"neg":-0.0}}},"deployments":{}}`,
		"escapes":   `{"_type":"nixopsState","resources":{"r \"q\"":{"type":"t","input_properties":{"s":"\b\f\n\r\t\u0001\u001f\\ / \u00e9 \ud83d\ude00","html":"<a href=\"x\">&amp;</a>","sep":"\u2028\u2029"},"output_properties":{}}}}`,
		"nested":    `{"_type":"nixopsState","resources":{},"deployments":{"web":{"resources":{"db":{"type":"t","input_properties":{"l":[1,"2",[true,false,null],{}]},"output_properties":{}}},"deployments":{}}},"pierOutputs":{"o":{"value":{"k":[1]}}}}`,
		"long keys": `{"_type":"nixopsState","resources":{"zz":{"type":"t","input_properties":{"b":1,"aaa":2,"cc":3}},"a":{"type":"t","input_properties":{}}},"extra":[1,{"b":2,"a":1}]}`,
	}
	for name, doc := range docs {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cfg := testConfig(t, t.Name())
			cfg.SnapshotEvery = 1
			ctx := t.Context()
			w := open(t, cfg)
			if _, err := w.Append(ctx, statefile.Meta{Event: "set"}, schema.Patch{{Op: "replace", Path: "", Value: json.RawMessage(doc)}}); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(ctx); err != nil { // takes the snapshot
				t.Fatal(err)
			}
			res := schema.ExtantResource{Type: StateType, InputProperties: schema.Properties{"key": cfg.Key, "conninfo": cfg.Conninfo}}
			check := func(when string, wantSnapshotBytes bool) {
				t.Helper()
				p := New(Options{ReadOnly: true})
				defer p.Close()
				req := &schema.StateResourceReadRequest{Resource: res}
				s, err := p.store(ctx, StateType, res.InputProperties)
				if err != nil {
					t.Fatal(err)
				}
				if got := s.encoded != nil; got != wantSnapshotBytes && !bytes.ContainsAny([]byte(doc), "<>&\u2028") {
					t.Errorf("%s: sends the snapshot's bytes: %v, want %v", when, got, wantSnapshotBytes)
				}
				enc, ok, err := p.StateReadEncoded(ctx, req)
				if err != nil || !ok {
					t.Fatalf("%s: StateReadEncoded: ok %v, %v", when, ok, err)
				}
				r, err := p.StateRead(ctx, req)
				if err != nil {
					t.Fatal(err)
				}
				frame := append(append([]byte(`{"stateResourceReadResponse":{"state":`), enc...), "}}"...)
				got, err := schema.DecodeResponse(frame, Operations)
				if err != nil {
					t.Fatalf("%s: the encoded read's frame: %v", when, err)
				}
				if diff := cmp.Diff(r.State, got.StateResourceReadResponse.State); diff != "" {
					t.Errorf("%s: encoded read (-StateRead +encoded):\n%s", when, diff)
				}
				want, err := schema.AppendJSON(nil, r.State)
				if err != nil {
					t.Fatal(err)
				}
				if len(enc) != len(want) {
					t.Errorf("%s: encoded read is %d bytes, StateRead's document encodes to %d:\n%s\n%s", when, len(enc), len(want), enc, want)
				}
				if bytes.ContainsAny(enc, " \n") && !bytes.Contains(want, []byte(" ")) {
					t.Errorf("%s: encoded read is not compact: %s", when, enc)
				}
			}
			check("snapshot alone", true)

			w2 := open(t, Config{Conninfo: cfg.Conninfo, Key: cfg.Key, Holder: cfg.Holder})
			if _, err := w2.Append(ctx, statefile.Meta{Event: "create"}, addResource("added", 7)); err != nil {
				t.Fatal(err)
			}
			// The writer's own encoding follows its append.
			enc, err := w2.Encoded()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(w2.State(), decodeState(t, enc)); diff != "" {
				t.Errorf("writer's encoding after an append (-state +encoded):\n%s", diff)
			}
			if err := w2.Close(context.Background()); err != nil {
				t.Fatal(err)
			}
			check("an event after the snapshot", false)
		})
	}
}

func decodeState(t testing.TB, b []byte) map[string]any {
	t.Helper()
	v, err := schema.DecodeJSON(b)
	if err != nil {
		t.Fatal(err)
	}
	m, _ := v.(map[string]any)
	return m
}

// TestStateReadEncodedLeavesHeldReadsToStateRead: a reader that found the
// lock held has no encoding to send, so StateRead answers and can name
// the holder.
func TestStateReadEncodedLeavesHeldReadsToStateRead(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t, t.Name())
	ctx := t.Context()
	w := open(t, cfg)
	if _, err := w.Append(ctx, statefile.Meta{Event: "pending"}, pendingCreate("m")); err != nil {
		t.Fatal(err)
	}
	p := New(Options{ReadOnly: true})
	defer p.Close()
	res := schema.ExtantResource{Type: StateType, InputProperties: schema.Properties{"key": cfg.Key, "conninfo": cfg.Conninfo}}
	if enc, ok, err := p.StateReadEncoded(ctx, &schema.StateResourceReadRequest{Resource: res}); ok || err != nil {
		t.Errorf("StateReadEncoded while the lock is held = %s, %v, %v; want no encoding", enc, ok, err)
	}
}
