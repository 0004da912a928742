package statefile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/pierhq/pier/schema"
)

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestReplayNixOps4DocExample replays the example from NixOps4's
// documentation: a pretty-printed init event and one create.
func TestReplayNixOps4DocExample(t *testing.T) {
	t.Parallel()
	rep, err := Replay(bytes.NewReader(readTestdata(t, "nixops4-doc-example.json")))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"_type": "nixopsState",
		"resources": map[string]any{
			"myfile": map[string]any{
				"type":             "file",
				"inputProperties":  map[string]any{"name": "x", "contents": "y"},
				"outputProperties": map[string]any{},
			},
		},
		"deployments": map[string]any{},
	}
	if diff := cmp.Diff(want, rep.State); diff != "" {
		t.Errorf("state (-want +got):\n%s", diff)
	}
	wantEvents := []Record{
		{Position: Position{Ordinal: 0, Offset: 0, Line: 1}, Index: 0, Meta: Meta{Time: "2025-04-15T11:48:06.434450914Z"}, Paths: []string{""}},
		{Position: Position{Ordinal: 1, Offset: 254, Line: 18}, Index: 1, Meta: Meta{Time: "2025-04-15T11:48:07.101010101Z", Event: "create", NixopsVersion: "4.0.0"}, Paths: []string{"/resources/myfile"}},
	}
	if diff := cmp.Diff(wantEvents, rep.Events); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if len(rep.Warnings) != 0 || rep.Torn != nil {
		t.Errorf("warnings %v, torn %v; want none", rep.Warnings, rep.Torn)
	}
}

// TestReplayIndexWarnings: index-0 events after the first (NixOps4's
// writer) are one warning per file, any other index going back is one
// warning per event.
func TestReplayIndexWarnings(t *testing.T) {
	t.Parallel()
	ev := func(idx int, res string) string {
		return fmt.Sprintf(`{"index":%d,"meta":{"time":"t"},"patch":[{"op":"add","path":"/resources/%s","value":{}}]}`+"\n", idx, res)
	}
	init := `{"index":0,"meta":{"time":"t"},"patch":[{"op":"add","path":"","value":{"_type":"nixopsState","resources":{},"deployments":{}}}]}` + "\n"
	tests := map[string]struct {
		log  string
		want []Warning
	}{
		"pier's own numbering": {log: init + ev(1, "a") + ev(2, "b")},
		"one index-0 event": {
			log:  init + ev(0, "a"),
			want: []Warning{{Position: Position{Ordinal: 1, Line: 2, Offset: 129}, Count: 1, Message: "index 0 does not increase (highest so far 0)"}},
		},
		"nixops4: every event 0": {
			log:  init + ev(0, "a") + ev(0, "b") + ev(0, "c") + ev(0, "d"),
			want: []Warning{{Position: Position{Ordinal: 1, Line: 2, Offset: 129}, Count: 4, Message: zeroesMessage}},
		},
		"nixops4, then pier, then two writers": {
			log: init + ev(0, "a") + ev(0, "b") + ev(1, "c") + ev(5, "d") + ev(3, "e") + ev(4, "f"),
			want: []Warning{
				{Position: Position{Ordinal: 1, Line: 2, Offset: 129}, Count: 2, Message: zeroesMessage},
				{Position: Position{Ordinal: 5, Line: 6, Offset: 481}, Count: 1, Message: "index 3 does not increase (highest so far 5)"},
				{Position: Position{Ordinal: 6, Line: 7, Offset: 569}, Count: 1, Message: "index 4 does not increase (highest so far 5)"},
			},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			rep, err := Replay(strings.NewReader(tc.log))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, rep.Warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReplayNixOps4StyleWarns(t *testing.T) {
	t.Parallel()
	rep, err := Replay(bytes.NewReader(readTestdata(t, "nixops4-style.json")))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range rep.Warnings {
		got = append(got, w.String())
	}
	want := []string{
		"event 1 (line 18, byte 259) and 2 later events: index 0 does not increase: NixOps4's writer numbers every event 0; the events apply in file order, and pier numbers its own after the highest index",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	wantState := mustDecode(t, `{"_type":"nixopsState","resources":{"hello":{"type":"file","inputProperties":{"name":"hello.txt","contents":"hello"},"outputProperties":{"size":5,"mtime":1744717687.000000001}}},"deployments":{"web":{"resources":{"a/b":{"type":"memo","inputProperties":{"initialize_with":"x"},"outputProperties":{"value":"x"}}},"deployments":{}}}}`)
	if diff := cmp.Diff(wantState, any(rep.State)); diff != "" {
		t.Errorf("state (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(Meta{Time: "2025-04-15T11:48:07.000000001+00:00", Event: "create", NixopsVersion: "4.0.0", Extra: map[string]any{"host": "builder"}}, rep.Events[1].Meta); diff != "" {
		t.Errorf("meta with an extra key (-want +got):\n%s", diff)
	}
}

func TestReplayErrors(t *testing.T) {
	t.Parallel()
	const init = `{"index":0,"meta":{"time":"t"},"patch":[{"op":"add","path":"","value":{"_type":"nixopsState","resources":{},"deployments":{}}}]}` + "\n"
	tests := map[string]struct {
		data    string
		wantErr string
	}{
		"empty":            {data: "", wantErr: ErrNoEvents.Error()},
		"only whitespace":  {data: " \n\t", wantErr: ErrNoEvents.Error()},
		"first not init":   {data: `{"index":0,"meta":{},"patch":[{"op":"add","path":"/resources","value":{}}]}`, wantErr: "event 0 (line 1, byte 0): first event does not initialise the state"},
		"first wrong type": {data: `{"index":0,"meta":{},"patch":[{"op":"add","path":"","value":{"_type":"other"}}]}`, wantErr: "first event does not initialise the state"},
		"not an object":    {data: init + `[1,2]`, wantErr: "event 1 (line 2, byte 129): json: cannot unmarshal array"},
		"missing index":    {data: init + `{"meta":{},"patch":[]}`, wantErr: "event 1 (line 2, byte 129): missing index"},
		"missing patch":    {data: init + `{"index":1,"meta":{}}`, wantErr: "missing patch"},
		"missing meta":     {data: init + `{"index":1,"patch":[]}`, wantErr: "missing meta"},
		"fractional index": {data: init + `{"index":1.5,"meta":{},"patch":[]}`, wantErr: "index 1.5 is not a non-negative integer"},
		"negative index":   {data: init + `{"index":-1,"meta":{},"patch":[]}`, wantErr: "index -1 is not a non-negative integer"},
		"syntax error":     {data: init + `{"index":1,,}` + "\n" + init, wantErr: "event 1 (line 2, byte 129): invalid character ','"},
		"patch does not apply": {
			data:    init + "\n\n" + `{"index":1,"meta":{},"patch":[{"op":"remove","path":"/resources/x"}]}`,
			wantErr: `event 1 (line 4, byte 131): index 1: patch operation 0 (remove "/resources/x"): path does not exist`,
		},
		"type changed": {
			data:    init + `{"index":1,"meta":{},"patch":[{"op":"replace","path":"/_type","value":"x"}]}`,
			wantErr: `resolved state has _type x, want "nixopsState"`,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := Replay(strings.NewReader(tc.data))
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("Replay error = %v, want it to contain %q", err, tc.wantErr)
			}
		})
	}
}

// refEvent is an event decoded the plain way. Operations keep their raw
// members, matched case-sensitively as json-patch matches them.
type refEvent struct {
	Index *json.Number                  `json:"index"`
	Meta  map[string]any                `json:"meta"`
	Patch *[]map[string]json.RawMessage `json:"patch"`
}

func (e refEvent) patch() (schema.Patch, error) {
	var p schema.Patch
	for _, m := range *e.Patch {
		if m == nil {
			return nil, errors.New("operation is not an object")
		}
		var op schema.PatchOperation
		for k, dst := range map[string]*string{"op": &op.Op, "path": &op.Path, "from": &op.From} {
			if raw, ok := m[k]; ok {
				if err := json.Unmarshal(raw, dst); err != nil {
					return nil, err
				}
			}
		}
		if raw, ok := m["value"]; ok {
			op.Value = raw
		}
		p = append(p, op)
	}
	return p, nil
}

// referenceReplay resolves a log the slow, obvious way: json-patch on the
// whole document, event after event. FuzzReplay compares Replay with it.
func referenceReplay(data []byte) (any, error) {
	data = bytes.TrimRight(data, "\x00") // a zero-filled tail is torn, not an error
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	state := []byte(`{}`)
	n := 0
	for ; ; n++ {
		var w refEvent
		err := dec.Decode(&w)
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if w.Index == nil || w.Meta == nil || w.Patch == nil {
			return nil, errors.New("incomplete event")
		}
		patch, err := w.patch()
		if err != nil {
			return nil, err
		}
		if n == 0 && !isInit(operations(patch)) {
			return nil, errors.New("not init")
		}
		if _, err := w.Index.Int64(); err != nil || strings.HasPrefix(w.Index.String(), "-") {
			return nil, errors.New("bad index")
		}
		if state, err = referenceApply(state, patch); err != nil {
			return nil, err
		}
	}
	if n == 0 {
		return nil, ErrNoEvents
	}
	v, err := decodeValue(state)
	if err != nil {
		return nil, err
	}
	return checkType(v)
}

// hasEmptyToken reports whether a log uses a pointer with an empty
// reference token, where pier follows RFC 6901 and json-patch does not.
func hasEmptyToken(data []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		var w refEvent
		if dec.Decode(&w) != nil {
			return false
		}
		if w.Patch == nil {
			continue
		}
		patch, err := w.patch()
		if err != nil {
			continue
		}
		for _, op := range patch {
			for _, p := range []string{op.Path, op.From} {
				if strings.HasSuffix(p, "/") || strings.Contains(p, "//") {
					return true
				}
			}
		}
	}
}

func FuzzReplay(f *testing.F) {
	for _, name := range []string{"nixops4-doc-example.json", "nixops4-style.json"} {
		f.Add(readTestdata(f, name))
	}
	const init = `{"index":0,"meta":{"time":"t"},"patch":[{"op":"add","path":"","value":{"_type":"nixopsState","resources":{"a":{"l":[1,{"k":2}],"m":{"n":null}}},"deployments":{}}}]}` + "\n"
	for _, p := range []string{
		`[{"op":"add","path":"/resources/a/l/1/k","value":3}]`,
		`[{"op":"move","from":"/resources/a/l/0","path":"/resources/a/m/x"}]`,
		`[{"op":"copy","from":"/resources/a","path":"/resources/b"},{"op":"remove","path":"/resources/b/l/1"}]`,
		`[{"op":"test","path":"/resources/a/m","value":{"n":null}},{"op":"replace","path":"/resources/a/m/n","value":1e3}]`,
		`[{"op":"move","from":"/resources/a/m","path":"/deployments/m"}]`,
		`[{"op":"add","path":"/resources/a/l/-","value":"x"},{"op":"remove","path":"/resources/a/l/01"}]`,
		`[{"op":"replace","path":"","value":{"_type":"nixopsState"}}]`,
		`[{"op":"add","path":"/resources/a~1b","value":{}},{"op":"add","path":"/resources/a~1b/c~0d","value":[]}]`,
	} {
		f.Add([]byte(init + `{"index":1,"meta":{"time":"t"},"patch":` + p + "}\n"))
		f.Add([]byte(init + `{"index":1,"meta":{"time":"t"},"patch":` + p + "}\n" + `{"index":2,"meta":{},"patch":[{"op":"add","path":"/re`))
		f.Add([]byte(init + `{"index":1,"meta":{"time":"t"},"patch":` + p + "}\n\x00\x00\x00"))
	}
	var pier bytes.Buffer
	for _, ev := range []Event{initEvent("t"), {Index: 1, Meta: Meta{Time: "t", Event: "create"}, Patch: createPatch("a")}} {
		line, err := ev.encodeLine()
		if err != nil {
			f.Fatal(err)
		}
		pier.Write(line)
	}
	f.Add(pier.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		rep, err := Replay(bytes.NewReader(data))
		if err == nil && !utf8.Valid(data[:rep.End]) {
			t.Fatalf("Replay accepted invalid UTF-8")
		}
		if hasEmptyToken(data) || errors.Is(err, ErrInvalidUTF8) || errors.Is(err, ErrChecksum) {
			return // pier deliberately differs from json-patch here
		}
		want, refErr := referenceReplay(data)
		if (err != nil) != (refErr != nil) {
			t.Fatalf("Replay error = %v, whole-document json-patch error = %v", err, refErr)
		}
		if err != nil {
			return
		}
		if diff := cmp.Diff(want, rep.State); diff != "" {
			t.Fatalf("Replay differs from whole-document json-patch (-want +got):\n%s", diff)
		}
		if rep.Torn != nil && rep.Torn.Offset+rep.Torn.Size != int64(len(data)) {
			t.Fatalf("torn tail %+v does not reach the end of %d bytes", rep.Torn, len(data))
		}
	})
}
