package statedoc

import (
	"encoding/json"
	"maps"
	"slices"
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
			if got := EntryPointer(addr(t, tc.addr)); got != tc.want {
				t.Errorf("EntryPointer(%s) = %s, want %s", tc.addr, got, tc.want)
			}
		})
	}
}

func TestPatchBuilderCreatesParents(t *testing.T) {
	t.Parallel()
	doc := map[string]any{"_type": "nixopsState", "resources": map[string]any{}, "deployments": map[string]any{}}
	view, err := Decode("state", doc)
	if err != nil {
		t.Fatal(err)
	}
	pb := &PatchBuilder{doc: view.Stored()}
	if err := pb.Put(addr(t, "web.db"), Entry{Type: "memo", InputProperties: map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	if err := pb.Put(addr(t, "web.app"), Entry{Type: "memo", InputProperties: map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	if err := pb.Put(addr(t, "web.db"), Entry{Type: "memo", InputProperties: map[string]any{"x": 1}}); err != nil {
		t.Fatal(err)
	}
	pb.Remove(addr(t, "web.app"))
	pb.Remove(addr(t, "never"))
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
	v, err := Decode("s", doc)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, k := range slices.Sorted(maps.Keys(v.Entries)) {
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
	if _, err := Decode("s", map[string]any{"_type": "other"}); err == nil {
		t.Error("a document that is not nixopsState was accepted")
	}
	// The hash follows the content: the same document read again hashes
	// the same, and a changed one differently.
	again, err := Decode("s", doc)
	if err != nil {
		t.Fatal(err)
	}
	if v.ContentHash() == "" || again.ContentHash() != v.ContentHash() {
		t.Error("content hash is not stable across reads")
	}
	doc["resources"].(map[string]any)["b"] = map[string]any{"type": "memo", "inputProperties": map[string]any{}}
	moved, err := Decode("s", doc)
	if err != nil {
		t.Fatal(err)
	}
	if moved.ContentHash() == v.ContentHash() {
		t.Error("content hash did not change with the content")
	}
}
