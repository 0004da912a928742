package plan

import (
	"maps"
	"slices"

	"github.com/pierhq/pier/host/engine"
	"github.com/pierhq/pier/host/execgraph"
	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/host/statedoc"
)

// Plan is what an apply will do: the changes per resource, the states they
// were planned against, and the deployment's outputs.
type Plan struct {
	Changes []*Change
	// States are the states read while planning, by handler address.
	States map[string]*statedoc.View
	// Snapshot is the source's last answer during planning.
	Snapshot *source.Snapshot
	// Known are the outputs known at plan time: recorded outputs of
	// unchanged resources and the state handlers' outputs.
	Known source.Outputs
	// Destroy means the plan destroys everything in state (pier destroy).
	Destroy bool
	// Warnings are problems found while planning that do not stop it.
	Warnings []string
	// Targets are the --target addresses the plan is limited to; empty
	// means the whole deployment.
	Targets []string
	// Drift is what a refresh found changed or gone; see refresh.go.
	Drift []*Drift
	// RefreshOnly marks a --refresh-only plan: its changes only record
	// Drift; see refresh_only.go.
	RefreshOnly bool

	byAddr map[string]*Change
	// replace are the addresses --replace names, for resources decided
	// during apply too.
	replace map[string]bool
	// handlers are the state handlers as read while planning, by
	// address: apply records through them. They belong to the plan, not
	// the engine, so that a plan runs on any engine.
	handlers map[string]*engine.HandlerRef
	// exec is the execution graph, built once the plan is complete;
	// shown the changes as its operations show them (see Shown).
	exec  *execgraph.Graph
	shown []*Change
	// madeBy is the engine that planned: its state handlers are running,
	// and applying there reads no state again.
	madeBy *engine.Engine
	// readFirst says the states were read before the deployment
	// resolved (see planner.first).
	readFirst bool
}

// MadeBy reports whether e planned p: its state handlers still run, and
// the states it read are the ones p's graph reads.
func (p *Plan) MadeBy(e *engine.Engine) bool { return p.madeBy == e }

// HandlerRef is the state handler h as read while planning, or nil.
func (p *Plan) HandlerRef(h string) *engine.HandlerRef { return p.handlers[h] }

// Summary counts the changes by action. Its JSON keys are snake_case,
// as every other key of pier's --json output.
type Summary struct {
	Create  int `json:"create"`
	Update  int `json:"update"`
	Destroy int `json:"destroy"`
	Replace int `json:"replace"`
	NoOp    int `json:"no_op"`
	// Forget counts the records a removed block lets go of.
	Forget int `json:"forget,omitempty"`
	// Import counts the objects import blocks adopt, whatever else their
	// change does.
	Import int `json:"import,omitempty"`
	// Move counts the records moved blocks move, whatever else their
	// change does.
	Move int `json:"move,omitempty"`
}

// Summary counts the plan's changes as they are shown (see [Plan.Shown]);
// state handlers are not counted.
func (p *Plan) Summary() Summary {
	var s Summary
	for _, c := range p.Shown() {
		if c.StateHandler || c.Structural || c.OfReplace {
			continue
		}
		switch c.Action {
		case execgraph.ActionCreate:
			s.Create++
		case execgraph.ActionUpdate:
			s.Update++
		case execgraph.ActionDestroy:
			s.Destroy++
		case execgraph.ActionReplace:
			s.Replace++
		case execgraph.ActionNoOp:
			s.NoOp++
		case execgraph.ActionForget:
			s.Forget++
		}
		if c.Import != nil {
			s.Import++
		}
		if c.Move != nil {
			s.Move++
		}
	}
	return s
}

// HasChanges reports whether applying the plan would do anything beyond
// running state handlers and stateless resources.
func (p *Plan) HasChanges() bool {
	s := p.Summary()
	return s.Create+s.Update+s.Destroy+s.Replace+s.Forget+s.Import+s.Move > 0 || p.RefreshOnly && len(p.Drift) > 0
}

func (p *Plan) add(c *Change) {
	if p.byAddr == nil {
		p.byAddr = map[string]*Change{}
	}
	p.Changes = append(p.Changes, c)
	p.byAddr[c.Addr()] = c
}

// addAt is add for a change whose Addr the caller has spelt already.
func (p *Plan) addAt(addr string, c *Change) {
	if p.byAddr == nil {
		p.byAddr = map[string]*Change{}
	}
	p.Changes = append(p.Changes, c)
	p.byAddr[addr] = c
}

// reserve makes room for n more changes, so that a large plan's list and
// index are not grown change by change.
func (p *Plan) reserve(n int) {
	p.Changes = slices.Grow(p.Changes, n)
	if len(p.byAddr) < n {
		byAddr := make(map[string]*Change, len(p.byAddr)+n)
		maps.Copy(byAddr, p.byAddr)
		p.byAddr = byAddr
	}
}

// Change returns the change of one address, or nil.
func (p *Plan) Change(addr string) *Change { return p.byAddr[addr] }

func (p *Plan) sort() {
	// Each address spelt once, not at every comparison.
	type keyed struct {
		key string
		c   *Change
	}
	ks := make([]keyed, len(p.Changes))
	for i, c := range p.Changes {
		ks[i] = keyed{c.Addr(), c}
	}
	slices.SortStableFunc(ks, func(a, b keyed) int { return source.CompareAddresses(a.key, b.key) })
	for i, k := range ks {
		p.Changes[i] = k.c
	}
}
