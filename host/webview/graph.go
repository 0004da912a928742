package webview

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/pierhq/pier/host/hclsource"
	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/host/webview/internal/layout"
)

// graphJSON is the graph view: the SVG that Graphviz laid out (each node a
// <g id="r:ADDRESS">), and the nodes and edges, which the page searches and
// links from.
type graphJSON struct {
	SVG   string      `json:"svg"`
	Nodes []graphNode `json:"nodes"`
	Edges []graphEdge `json:"edges"`
}

type graphNode struct {
	Address  string `json:"address"`
	Type     string `json:"type"`
	Provider string `json:"provider"`
	// Group is the nested deployment holding it, "" at the top.
	Group string `json:"group"`
	// Handler says it is a state handler: other resources' state is in it.
	Handler   bool   `json:"handler,omitempty"`
	Expansion string `json:"expansion,omitempty"`
}

type graphEdge struct {
	From string `json:"from"`
	To   string `json:"to"`
	Kind string `json:"kind"`
}

// nodeID is a node's SVG id; the page finds nodes by it.
func nodeID(a source.Address) string { return "r:" + a.String() }

// layOut renders g as SVG with Graphviz's dot layout, which pier-layout
// runs (see package layout for why it is a helper of its own).
func layOut(ctx context.Context, helper string, g *hclsource.Graph) (*graphJSON, error) {
	out := &graphJSON{Nodes: []graphNode{}, Edges: []graphEdge{}}
	handlers := map[string]bool{}
	for _, e := range g.Edges {
		if e.Kind == hclsource.EdgeState {
			handlers[e.From.String()] = true
		}
		out.Edges = append(out.Edges, graphEdge{From: e.From.String(), To: e.To.String(), Kind: string(e.Kind)})
	}
	var dot bytes.Buffer
	dot.WriteString("digraph pier {\n  rankdir=LR;\n  graph [fontname=\"Helvetica\", fontsize=12, nodesep=0.15, ranksep=0.6];\n  node [shape=box, style=rounded, fontname=\"Helvetica\", fontsize=11, margin=\"0.15,0.05\"];\n  edge [arrowsize=0.6];\n")
	byGroup := map[string][]hclsource.GraphNode{}
	for _, n := range g.Nodes {
		group := n.Address[:len(n.Address)-1].String()
		byGroup[group] = append(byGroup[group], n)
		out.Nodes = append(out.Nodes, graphNode{Address: n.Address.String(), Type: n.Type, Provider: n.Provider, Group: group, Handler: handlers[n.Address.String()], Expansion: n.Expansion})
	}
	children := map[string][]source.Address{}
	for _, d := range g.Deployments {
		parent := d[:len(d)-1].String()
		children[parent] = append(children[parent], d)
	}
	var cluster func(prefix, indent string)
	cluster = func(prefix, indent string) {
		for _, n := range byGroup[prefix] {
			label := n.Address[len(n.Address)-1].Name
			if n.Expansion != "" {
				label += "[" + n.Expansion + "]"
			}
			label += `\n` + n.Type + " (" + n.Provider + ")"
			class := "res"
			if handlers[n.Address.String()] {
				class += " handler"
			}
			fmt.Fprintf(&dot, "%s%s [id=%s, class=%s, label=%s];\n", indent, quoteDOT(n.Address.String()), quoteDOT(nodeID(n.Address)), quoteDOT(class), quoteDOT(label))
		}
		for _, c := range children[prefix] {
			fmt.Fprintf(&dot, "%ssubgraph %s {\n%s  label=%s; id=%s; class=\"group\";\n", indent, quoteDOT("cluster_"+c.String()), indent, quoteDOT(c[len(c)-1].Name), quoteDOT("g:"+c.String()))
			cluster(c.String(), indent+"  ")
			fmt.Fprintf(&dot, "%s}\n", indent)
		}
	}
	cluster("", "  ")
	for _, e := range g.Edges {
		style := ""
		switch e.Kind {
		case hclsource.EdgeState:
			style = ", style=dashed"
		case hclsource.EdgeDependsOn:
			style = ", style=dotted"
		}
		fmt.Fprintf(&dot, "  %s -> %s [class=%s%s];\n", quoteDOT(e.From.String()), quoteDOT(e.To.String()), quoteDOT("dep "+string(e.Kind)), style)
	}
	dot.WriteString("}\n")

	if helper == "" {
		h, err := layout.Find()
		if err != nil {
			return nil, err
		}
		helper = h
	}
	svg, err := layout.SVG(ctx, helper, dot.Bytes())
	if err != nil {
		return nil, err
	}
	s := string(svg)
	// The page inserts the <svg> element itself; the XML prologue and
	// doctype before it mean nothing there.
	if i := strings.Index(s, "<svg"); i > 0 {
		s = s[i:]
	}
	out.SVG = s
	return out, nil
}

// quoteDOT quotes s as a DOT string; label text keeps its \n line breaks.
func quoteDOT(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"`
}

func (s *Server) handleGraph(w http.ResponseWriter, r *http.Request) {
	g, err := s.graph(r.Context())
	if err != nil {
		s.fail(w, err)
		return
	}
	writeJSON(w, g)
}

// graph lays the deployment out once; the layout depends only on its
// files, which a run does not change.
func (s *Server) graph(ctx context.Context) (*graphJSON, error) {
	s.graphMu.Lock()
	defer s.graphMu.Unlock()
	if s.graphCache != nil {
		return s.graphCache, nil
	}
	g, err := s.dep.Graph(ctx)
	if err != nil {
		return nil, err
	}
	out, err := layOut(ctx, s.opts.LayoutHelper, g)
	if err != nil {
		return nil, err
	}
	s.graphCache = out
	return out, nil
}
