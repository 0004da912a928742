package hclsource

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// edge is a static dependency of one resource block on another.
type edge struct {
	target *resourceDecl
	rng    hcl.Range
}

// edges lists r's dependencies: references, state and depends_on.
func (r *resourceDecl) edges() []edge {
	var es []edge
	for _, x := range r.refs {
		es = append(es, edge{x.target, x.rng})
	}
	if r.stateRef != nil {
		es = append(es, edge{r.stateRef.target, r.stateRef.rng})
	}
	for _, x := range r.dependsOn {
		es = append(es, edge{x.target, x.rng})
	}
	return es
}

// order sorts the resource blocks so that every block comes after those it
// depends on, reports every cycle with its whole path, and records the
// reverse dependencies that Resolve follows.
func (d *Deployment) order() hcl.Diagnostics {
	const (
		white = iota
		grey
		black
	)
	var diags hcl.Diagnostics
	color := make(map[*resourceDecl]uint8, len(d.resources))
	var stack []*resourceDecl
	var via []hcl.Range // via[i] is where stack[i-1] refers to stack[i]
	var visit func(r *resourceDecl, rng hcl.Range)
	visit = func(r *resourceDecl, rng hcl.Range) {
		color[r] = grey
		stack = append(stack, r)
		via = append(via, rng)
		for _, e := range r.edges() {
			switch color[e.target] {
			case white:
				visit(e.target, e.rng)
			case grey:
				diags = append(diags, cycleDiag(stack, via, e))
			}
		}
		stack = stack[:len(stack)-1]
		via = via[:len(via)-1]
		color[r] = black
		r.index = len(d.topo)
		d.topo = append(d.topo, r)
	}
	for _, r := range d.resources {
		if color[r] == white {
			visit(r, r.defRange)
		}
	}
	if diags.HasErrors() {
		return diags
	}
	for _, r := range d.resources {
		for _, x := range r.refs {
			addValueDependent(x.target, r)
			if d.watches(x) {
				x.target.watched = true
			}
		}
		// depends_on lists every instance of its target.
		for _, x := range r.dependsOn {
			addValueDependent(x.target, r)
		}
	}
	for _, o := range d.outputs {
		for _, x := range o.refs {
			if len(x.target.outputDependents) == 0 || x.target.outputDependents[len(x.target.outputDependents)-1] != o {
				x.target.outputDependents = append(x.target.outputDependents, o)
			}
			if d.watches(x) {
				x.target.watched = true
			}
		}
	}
	for _, c := range d.checks {
		for _, x := range c.refs {
			if n := len(x.target.checkDependents); n == 0 || x.target.checkDependents[n-1] != c {
				x.target.checkDependents = append(x.target.checkDependents, c)
			}
			if d.watches(x) {
				x.target.watched = true
			}
		}
	}
	for _, r := range d.resources {
		if r.watched {
			d.watched = append(d.watched, r)
		}
	}
	return nil
}

func addValueDependent(t, r *resourceDecl) {
	if n := len(t.valueDependents); n > 0 && t.valueDependents[n-1] == r {
		return
	}
	t.valueDependents = append(t.valueDependents, r)
}

// cycleDiag reports the cycle closed by e, from e's target around the
// stack back to it.
func cycleDiag(stack []*resourceDecl, via []hcl.Range, e edge) *hcl.Diagnostic {
	start := 0
	for i, r := range stack {
		if r == e.target {
			start = i
		}
	}
	members := stack[start:]
	var names []string
	var detail strings.Builder
	for i, r := range members {
		names = append(names, r.addr.String())
		rng := e.rng
		next := e.target
		if i+1 < len(members) {
			rng, next = via[start+i+1], members[i+1]
		}
		fmt.Fprintf(&detail, "\n  %s (%s) refers to %s at %s", r.addr, rangeString(r.defRange), next.addr, rangeString(rng))
	}
	names = append(names, e.target.addr.String())
	subject := via[min(start+1, len(via)-1)]
	if len(members) == 1 {
		subject = e.rng
	}
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Dependency cycle",
		Detail:   strings.Join(names, " → ") + ":" + detail.String(),
		Subject:  &subject,
	}
}

// watches reports whether a reference needs its target's known outputs:
// to read them, or, for a Terraform resource's inputs, to learn from them
// which inputs are sensitive (their __tf.sensitive_paths).
func (d *Deployment) watches(x *ref) bool {
	if x.kinds&refOutputs != 0 {
		return true
	}
	p := d.providers[x.target.provider]
	return p != nil && p.Terraform != ""
}
