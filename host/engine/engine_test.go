package engine

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/schema"
)

func addr(t *testing.T, s string) source.Address {
	t.Helper()
	a, err := source.ParseAddress(s)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestEntryPointer(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		addr, want string
	}{
		"top level":      {"db", "/resources/db"},
		"nested":         {"web.db", "/deployments/web/resources/db"},
		"count instance": {"db[2]", "/resources/db[2]"},
		"for_each key":   {`web.db["a/b~c"]`, `/deployments/web/resources/db["a~1b~0c"]`},
		"two levels":     {"a.b.c", "/deployments/a/deployments/b/resources/c"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := entryPointer(addr(t, tc.addr)); got != tc.want {
				t.Errorf("entryPointer(%s) = %s, want %s", tc.addr, got, tc.want)
			}
		})
	}
}

func TestPatchBuilderCreatesParents(t *testing.T) {
	t.Parallel()
	doc := map[string]any{"_type": "nixopsState", "resources": map[string]any{}, "deployments": map[string]any{}}
	view, err := decodeState("state", doc)
	if err != nil {
		t.Fatal(err)
	}
	pb := &patchBuilder{doc: view.stored()}
	if err := pb.put(addr(t, "web.db"), Entry{Type: "memo", InputProperties: map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	if err := pb.put(addr(t, "web.app"), Entry{Type: "memo", InputProperties: map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	if err := pb.put(addr(t, "web.db"), Entry{Type: "memo", InputProperties: map[string]any{"x": 1}}); err != nil {
		t.Fatal(err)
	}
	pb.remove(addr(t, "web.app"))
	pb.remove(addr(t, "never"))
	var got []string
	for _, op := range pb.ops {
		got = append(got, op.Op+" "+op.Path)
	}
	// A level is added with both members, as NixOps4's own view has them.
	if v := string(pb.ops[0].Value); v != `{"resources":{},"deployments":{}}` {
		t.Errorf("the nested level is added as %s, want both members", v)
	}
	want := []string{
		"add /deployments/web",
		"add /deployments/web/resources/db",
		"add /deployments/web/resources/app",
		"replace /deployments/web/resources/db",
		"remove /deployments/web/resources/app",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("patch (-want +got):\n%s", diff)
	}
	// The patch is valid protocol.
	raw, err := json.Marshal(schema.Request{StateResourceEvent: &schema.StateResourceEvent{
		Resource: schema.ExtantResource{Type: "state_file", InputProperties: map[string]any{}},
		Event:    "apply", NixopsVersion: "pier", Patch: pb.ops,
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := schema.ValidateRequest(raw, nil); err != nil {
		t.Fatal(err)
	}
}

func TestDecodeStateNested(t *testing.T) {
	t.Parallel()
	var doc map[string]any
	if err := json.Unmarshal([]byte(`{"_type":"nixopsState",
		"resources":{"a":{"type":"memo","inputProperties":{"i":1},"outputProperties":{"value":1},"provider":"local","dependencies":["s"]}},
		"deployments":{"web":{"resources":{"db[0]":{"type":"file","inputProperties":{}}},"deployments":{}}},
		"pierOutputs":{"o":{"value":"v"},"secret":{"sensitive":true}}}`), &doc); err != nil {
		t.Fatal(err)
	}
	v, err := decodeState("s", doc)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, k := range sortedAddresses(v.Entries) {
		got = append(got, k+" "+v.Entries[k].Entry.Type)
	}
	if diff := cmp.Diff([]string{"a memo", "web.db[0] file"}, got); diff != "" {
		t.Errorf("entries (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"s"}, v.Entries["a"].Entry.Dependencies); diff != "" {
		t.Errorf("dependencies (-want +got):\n%s", diff)
	}
	wantOut := map[string]RecordedOutput{"o": {Value: "v"}, "secret": {Sensitive: true}}
	if diff := cmp.Diff(wantOut, v.Outputs); diff != "" {
		t.Errorf("outputs (-want +got):\n%s", diff)
	}
	if _, err := decodeState("s", map[string]any{"_type": "other"}); err == nil {
		t.Error("a document that is not nixopsState was accepted")
	}
	// The hash follows the content: the same document read again hashes
	// the same, and a changed one differently.
	again, err := decodeState("s", doc)
	if err != nil {
		t.Fatal(err)
	}
	if v.ContentHash() == "" || again.ContentHash() != v.ContentHash() {
		t.Error("content hash is not stable across reads")
	}
	doc["resources"].(map[string]any)["b"] = map[string]any{"type": "memo", "inputProperties": map[string]any{}}
	moved, err := decodeState("s", doc)
	if err != nil {
		t.Fatal(err)
	}
	if moved.ContentHash() == v.ContentHash() {
		t.Error("content hash did not change with the content")
	}
}

func TestDiffInputs(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		old, new map[string]any
		want     []Diff
	}{
		"nil both": {nil, nil, nil},
		"equal":    {map[string]any{"a": 1.0}, map[string]any{"a": json.Number("1")}, nil},
		"added":    {nil, map[string]any{"a": "x"}, []Diff{{Key: "a", Kind: DiffAdded, New: "x"}}},
		"removed":  {map[string]any{"a": "x"}, map[string]any{}, []Diff{{Key: "a", Kind: DiffRemoved, Old: "x"}}},
		"changed":  {map[string]any{"a": "x"}, map[string]any{"a": "y"}, []Diff{{Key: "a", Kind: DiffChanged, Old: "x", New: "y"}}},
		"unknown":  {map[string]any{"a": "x"}, map[string]any{"a": source.Unknown}, []Diff{{Key: "a", Kind: DiffChanged, Old: "x", New: source.Unknown}}},
		"nested key": {map[string]any{"m": map[string]any{"k": 1.0, "same": true}}, map[string]any{"m": map[string]any{"k": 2.0, "same": true}},
			[]Diff{{Key: "m", Kind: DiffNested, Children: []Diff{{Key: "k", Kind: DiffChanged, Old: 1.0, New: 2.0}}}}},
		"list whole": {map[string]any{"l": []any{1.0}}, map[string]any{"l": []any{1.0, 2.0}}, []Diff{{Key: "l", Kind: DiffChanged, Old: []any{1.0}, New: []any{1.0, 2.0}}}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(renderDiffs(tc.want), renderDiffs(DiffInputs(tc.old, tc.new))); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestRedact(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		in, want map[string]any
	}{
		"nil":   {nil, nil},
		"no tf": {map[string]any{"a": "x"}, map[string]any{"a": "x"}},
		"paths": {
			map[string]any{"token": "s3cret", "nested": map[string]any{"key": "k", "open": "o"}, "list": []any{"a", "b"},
				"__tf": map[string]any{"private": "AAAA", "sensitive_paths": []any{[]any{"token"}, []any{"nested", "key"}, []any{"list", 1.0}, []any{"absent"}}}},
			map[string]any{"token": source.SensitiveText, "nested": map[string]any{"key": source.SensitiveText, "open": "o"}, "list": []any{"a", source.SensitiveText},
				"__tf": map[string]any{"private": source.SensitiveText, "sensitive_paths": []any{[]any{"token"}, []any{"nested", "key"}, []any{"list", 1.0}, []any{"absent"}}}},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, Redact(tc.in)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	in := map[string]any{"token": "s", "__tf": map[string]any{"sensitive_paths": []any{[]any{"token"}}}}
	Redact(in)
	if in["token"] != "s" {
		t.Error("Redact changed its input")
	}
}

// renderDiffs prints diffs with JSON values, so that numbers of different
// Go types compare by value.
func renderDiffs(ds []Diff) []string {
	var out []string
	for _, d := range ds {
		o, _ := json.Marshal(normalize(d.Old))
		n, _ := json.Marshal(normalize(d.New))
		out = append(out, fmt.Sprintf("%d %s %s %s", d.Kind, d.Key, o, n))
		for _, c := range renderDiffs(d.Children) {
			out = append(out, "  "+c)
		}
	}
	return out
}

func TestRedactedGraph(t *testing.T) {
	t.Parallel()
	p := &Plan{States: map[string]*StateView{}}
	r := &source.Resource{Address: addr(t, "f"), Provider: "fx", Type: "fixture_file",
		Inputs: map[string]any{"path": "a", "sensitive_content": "hunter2", "metadata": map[string]any{"api_key": "k", "owner": "me"}}}
	p.add(&Change{Address: r.Address, Action: ActionCreate, Resource: r, SensitiveInputs: []string{"sensitive_content", "metadata.api_key"}})
	g, err := p.RedactedGraph()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"path": "a", "sensitive_content": source.SensitiveText, "metadata": map[string]any{"api_key": source.SensitiveText, "owner": "me"}}
	if diff := cmp.Diff(want, g.Operations[0].Inputs); diff != "" {
		t.Errorf("redacted inputs (-want +got):\n%s", diff)
	}
	if r.Inputs["sensitive_content"] != "hunter2" {
		t.Error("redaction changed the plan's own inputs")
	}
}
