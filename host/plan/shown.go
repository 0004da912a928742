package plan

import (
	"github.com/pierhq/pier/host/execgraph"
	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/host/statedoc"
)

// Shown lists the plan's changes as every face shows them (pier plan and
// its summary, a saved plan, the RPC service's planned changes, the web
// view): in the plan's order, each with the action its operations in the
// execution graph carry out ([execgraph.Graph.Shows]), so that what a
// plan shows is what apply runs. A change no operation carries out (a
// no-op) keeps its own; so does every change of a plan rebuilt from a
// saved one ([Showable]), whose actions its graph gave when it was saved,
// and of a plan whose graph cannot be built, which apply refuses.
//
// A change whose action differs from its graph's is shown as a copy; the
// others are the plan's own. The list is computed once, when the plan is
// complete.
func (p *Plan) Shown() []*Change {
	if p.shown != nil || p.madeBy == nil {
		if p.shown == nil {
			return p.Changes
		}
		return p.shown
	}
	g, err := p.Graph()
	if err != nil {
		return p.Changes
	}
	shown := make([]*Change, len(p.Changes))
	var deposed map[string]execgraph.Ref
	for i, c := range p.Changes {
		shown[i] = c
		r, ok := g.Result(c.Address.String())
		if c.Deposed != "" {
			if deposed == nil {
				deposed = deposedDestroys(g)
			}
			r, ok = deposed[c.Addr()]
		}
		if !ok {
			continue
		}
		if a := shows(g, r); a != c.Action {
			own := *c
			own.Action = a
			shown[i] = &own
		}
	}
	p.shown = shown
	return shown
}

// deposedDestroys are the graph's destroys of deposed objects, by the
// name of the change each carries out.
func deposedDestroys(g *execgraph.Graph) map[string]execgraph.Ref {
	out := map[string]execgraph.Ref{}
	for _, i := range g.Operations() {
		if g.Element(i).Op == execgraph.OpDestroyDeposed {
			out[g.Subject(i)] = i
		}
	}
	return out
}

// shows is what the graph shows for the change operation r yields. A
// resolve of an object recorded with another type than the resource now
// has is a replace: the graph holds both, and only the engine knows what
// they are.
func shows(g *execgraph.Graph, r execgraph.Ref) execgraph.Action {
	a := g.Shows(r)
	if el := g.Element(r); el.Op == execgraph.OpResolve && a == execgraph.ActionUpdate {
		desired, _ := g.Element(el.Operands[0]).Value.(*source.Resource)
		prior, _ := g.Element(el.Operands[1]).Value.(*statedoc.Recorded)
		if desired != nil && prior != nil && desired.Type != prior.Entry.Type {
			return execgraph.ActionReplace
		}
	}
	return a
}
