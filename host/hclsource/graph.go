package hclsource

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/pierhq/pier/host/source"
)

// Graph is the static dependency graph of a deployment's resource blocks:
// one node per block (instances of count and for_each share it), one edge
// per block that another one references.
type Graph struct {
	// Nodes are in declaration order.
	Nodes []GraphNode
	// Edges go from a dependency to its dependent, in declaration order of
	// the dependent.
	Edges []GraphEdge
	// Deployments are the deployment blocks and module instances,
	// parents before children.
	Deployments []source.Address
}

// GraphNode is one resource block.
type GraphNode struct {
	// Address has no instance key.
	Address  source.Address
	Provider string
	Type     string
	// Expansion is "count", "for_each" or "".
	Expansion string
	Range     source.Range
}

// EdgeKind says why one resource follows another.
type EdgeKind string

// Edge kinds.
const (
	EdgeReference EdgeKind = "reference"  // an expression reads the dependency
	EdgeState     EdgeKind = "state"      // the dependency is the state handler
	EdgeDependsOn EdgeKind = "depends_on" // listed in depends_on
)

// GraphEdge is a dependency between two resource blocks.
type GraphEdge struct {
	From, To source.Address
	Kind     EdgeKind
}

// Graph returns the static graph. It needs no outputs and evaluates
// nothing.
func (d *Deployment) Graph() *Graph {
	g := &Graph{}
	var walk func(s *scope)
	walk = func(s *scope) {
		if len(s.path) > 0 {
			g.Deployments = append(g.Deployments, s.path)
		}
		for _, name := range s.members {
			if c, ok := s.children[name]; ok {
				walk(c)
			}
		}
		for _, u := range s.instances {
			walk(u.scope)
		}
	}
	walk(d.scope)
	for _, r := range d.resources {
		n := GraphNode{Address: r.addr, Provider: r.provider, Type: r.typ, Range: toSourceRange(r.defRange)}
		if r.expand != expandNone {
			n.Expansion = expansionName(r.expand)
		}
		g.Nodes = append(g.Nodes, n)
		seen := map[string]bool{}
		add := func(t *resourceDecl, kind EdgeKind) {
			k := t.addr.String() + " " + string(kind)
			if !seen[k] {
				seen[k] = true
				g.Edges = append(g.Edges, GraphEdge{From: t.addr, To: r.addr, Kind: kind})
			}
		}
		for _, x := range r.refs {
			add(x.target, EdgeReference)
		}
		if r.stateRef != nil {
			add(r.stateRef.target, EdgeState)
		}
		for _, x := range r.dependsOn {
			add(x.target, EdgeDependsOn)
		}
	}
	return g
}

// WriteDOT renders the graph in Graphviz DOT: a cluster per deployment
// block, state edges dashed, depends_on edges dotted. The output depends
// only on the graph, so it can be compared with a golden file.
func (g *Graph) WriteDOT(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "digraph pier {")
	fmt.Fprintln(bw, "  node [shape=box];")
	byParent := map[string][]GraphNode{}
	for _, n := range g.Nodes {
		parent := n.Address[:len(n.Address)-1].String()
		byParent[parent] = append(byParent[parent], n)
	}
	children := map[string][]source.Address{}
	for _, dep := range g.Deployments {
		parent := dep[:len(dep)-1].String()
		children[parent] = append(children[parent], dep)
	}
	var cluster func(prefix string, indent string)
	cluster = func(prefix, indent string) {
		for _, n := range byParent[prefix] {
			label := n.Address[len(n.Address)-1].Name
			if n.Expansion != "" {
				label += "[" + n.Expansion + "]"
			}
			label += `\n` + n.Type + " (" + n.Provider + ")"
			fmt.Fprintf(bw, "%s%s [label=%s];\n", indent, dotID(n.Address.String()), dotQuote(label))
		}
		for _, c := range children[prefix] {
			fmt.Fprintf(bw, "%ssubgraph %s {\n", indent, dotID("cluster_"+c.String()))
			fmt.Fprintf(bw, "%s  label=%s;\n", indent, dotQuote(c[len(c)-1:].String()))
			cluster(c.String(), indent+"  ")
			fmt.Fprintf(bw, "%s}\n", indent)
		}
	}
	cluster("", "  ")
	for _, e := range g.Edges {
		attr := ""
		switch e.Kind {
		case EdgeState:
			attr = " [style=dashed]"
		case EdgeDependsOn:
			attr = " [style=dotted]"
		}
		fmt.Fprintf(bw, "  %s -> %s%s;\n", dotID(e.From.String()), dotID(e.To.String()), attr)
	}
	fmt.Fprintln(bw, "}")
	return bw.Flush()
}

func dotID(s string) string { return dotQuote(s) }

// dotQuote quotes s as a DOT string. Label text may carry \n, which DOT
// reads as a line break, so backslashes are kept as they are.
func dotQuote(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"`
}
