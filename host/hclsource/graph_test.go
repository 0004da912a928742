package hclsource

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pierhq/pier/host/source"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata")

// GoldenDOT is the golden file of TestGraphDOT, which cmd/pier's graph test
// shares.
const goldenDOT = "testdata/graph.dot"

func TestGraphDOT(t *testing.T) {
	t.Parallel()
	d := mustLoad(t, filepath.Join("testdata", "graph"), Options{})
	var buf bytes.Buffer
	if err := d.Graph().WriteDOT(&buf); err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(goldenDOT, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(goldenDOT)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), buf.String()); diff != "" {
		t.Errorf("DOT (-want +got):\n%s", diff)
	}
}

func TestGraph(t *testing.T) {
	t.Parallel()
	g := mustLoad(t, filepath.Join("testdata", "graph"), Options{}).Graph()
	type edge struct{ From, To, Kind string }
	var edges []edge
	for _, e := range g.Edges {
		edges = append(edges, edge{e.From.String(), e.To.String(), string(e.Kind)})
	}
	want := []edge{
		{"state", "db", "state"},
		{"db", "node", "reference"},
		{"db", "web.app", "reference"},
		{"state", "web.app", "state"},
		{"node", "web.app", "depends_on"},
		{"web.app", "web.inner.svc", "reference"},
		{"web.inner.svc", "report", "reference"},
	}
	if diff := cmp.Diff(want, edges); diff != "" {
		t.Errorf("edges (-want +got):\n%s", diff)
	}
	var nodes []string
	for _, n := range g.Nodes {
		nodes = append(nodes, n.Address.String()+" "+n.Expansion)
	}
	if diff := cmp.Diff([]string{"state ", "db ", "node count", "web.app ", "web.inner.svc for_each", "report "}, nodes); diff != "" {
		t.Errorf("nodes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]source.Address{{{Name: "web"}}, {{Name: "web"}, {Name: "inner"}}}, g.Deployments); diff != "" {
		t.Errorf("deployments (-want +got):\n%s", diff)
	}
}
