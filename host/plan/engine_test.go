package plan

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pierhq/pier/host/execgraph"
	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/host/statedoc"
)

func addr(t *testing.T, s string) source.Address {
	t.Helper()
	a, err := source.ParseAddress(s)
	if err != nil {
		t.Fatal(err)
	}
	return a
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
	p := &Plan{States: map[string]*statedoc.View{}}
	r := &source.Resource{Address: addr(t, "f"), Provider: "fx", Type: "fixture_file",
		Inputs: map[string]any{"path": "a", "sensitive_content": "hunter2", "metadata": map[string]any{"api_key": "k", "owner": "me"}}}
	p.add(&Change{Address: r.Address, Action: execgraph.ActionCreate, Resource: r, SensitiveInputs: []string{"sensitive_content", "metadata.api_key"}})
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
