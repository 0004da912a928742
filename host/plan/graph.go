package plan

import (
	"container/heap"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/pierhq/pier/host/execgraph"
	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/host/statedoc"
)

// This file builds a plan's execution graph (host/execgraph): the program
// apply runs, for pier apply and for a saved plan alike. Everything apply
// needs is in it: the desired resources, the priors and deposed objects,
// the state handlers and the provider declarations.

// The constants' names, as the dump shows them. The controls
// ([execgraph.Controls]) are a graph's first element.
const (
	ConstControls  = "controls"
	constHash      = "hash"
	constDeposeKey = "depose-key"
	constRefreshed = "refreshed"
	constImportID  = "import-id"
)

// stateHash is a read-state's hash constant, computed only when it is
// needed: when the graph is saved or dumped. Applied by the engine that
// planned it, the graph reads no state again, and a large state's hash
// is not worth its cost.
type stateHash struct{ view *statedoc.View }

// ContentHash computes the hash.
func (s stateHash) ContentHash() string { return s.view.ContentHash() }

// MarshalJSON writes the hash as the string a saved graph holds.
func (s stateHash) MarshalJSON() ([]byte, error) { return json.Marshal(s.view.ContentHash()) }

// Graph returns the plan's execution graph, built once. No-op resources
// are not in it.
func (p *Plan) Graph() (*execgraph.Graph, error) {
	if p.exec == nil {
		g, err := p.buildGraph()
		if err != nil {
			return nil, err
		}
		p.exec = g
	}
	return p.exec, nil
}

func (p *Plan) buildGraph() (*execgraph.Graph, error) {
	ctl := execgraph.Controls{Destroy: p.Destroy, RefreshOnly: p.RefreshOnly, Targets: p.Targets}
	for a := range p.replace {
		ctl.Replace = append(ctl.Replace, a)
	}
	sort.Strings(ctl.Replace)
	var decls map[string]*source.Provider
	if p.Snapshot != nil {
		decls = p.Snapshot.Providers
	}
	gb := newGraphBuilder(decls, ctl)
	b := gb.b
	for _, h := range slices.Sorted(maps.Keys(p.States)) {
		c := p.Change(h)
		if c == nil || c.Resource == nil {
			return nil, fmt.Errorf("state %s has no state handler resource in the plan: this is a bug in pier", h)
		}
		prov := gb.provider(c.Resource.Provider)
		if prov == execgraph.None {
			return nil, fmt.Errorf("state handler %s: provider %q is not declared", h, c.Resource.Provider)
		}
		op, err := b.Operation(execgraph.OpReadState, []execgraph.Ref{b.Desired(h, c.Resource), prov, b.Constant(constHash, stateHash{p.States[h]})}, execgraph.None)
		if err != nil {
			return nil, err
		}
		gb.done[h] = op
		gb.states[h] = true
		if err := b.SetResult(h, op); err != nil {
			return nil, err
		}
	}
	var todo []*Change
	for _, c := range p.Changes {
		if !c.StateHandler && c.Action != execgraph.ActionNoOp {
			todo = append(todo, c)
		}
	}
	order, err := graphOrder(todo)
	if err != nil {
		return nil, err
	}
	gb.grow(order)
	ix := NewDepIndex()
	for _, c := range todo {
		ix.Add(c)
	}
	for _, c := range order {
		var waits []execgraph.Ref
		for _, d := range ix.Deps(c) {
			if r, ok := gb.done[d]; ok {
				waits = append(waits, r)
			}
		}
		result, err := gb.addChange(c, waits)
		if err == nil && c.Structural {
			err = p.addDestroyAbsent(b, c, result, gb.provider)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.Addr(), err)
		}
		gb.done[c.Addr()] = result
		if c.Deposed == "" {
			if err := b.SetResult(c.Address.String(), result); err != nil {
				return nil, err
			}
		}
	}
	return b.Build(), nil
}

// graphBuilder adds changes to a graph as the operations that carry them
// out: each change's action lowered to opcodes by [execgraph.Steps], as
// host/apply lowers a change it decides at run time.
type graphBuilder struct {
	b        *execgraph.Builder
	decls    map[string]*source.Provider
	controls execgraph.Ref
	// done are the operations placed so far, by change name; states are
	// the handlers with a read-state among them.
	done   map[string]execgraph.Ref
	states map[string]bool
}

func newGraphBuilder(decls map[string]*source.Provider, ctl execgraph.Controls) *graphBuilder {
	gb := &graphBuilder{b: execgraph.NewBuilder(), decls: decls, done: map[string]execgraph.Ref{}, states: map[string]bool{}}
	gb.controls = gb.b.Constant(ConstControls, ctl)
	return gb
}

// grow sizes the rest of the graph, after the state handlers' reads, for
// the changes in order, from what addChange adds for each: an operation and at most
// one waiter per step, the change's desired and prior objects, and a
// constant or another object for some steps. A graph of 1000 creates
// grew its elements 25% at a time, 1.3 MB allocated for 0.3 MB kept.
func (gb *graphBuilder) grow(order []*Change) {
	n := 0
	for _, c := range order {
		steps, err := execgraph.Steps(c.shape())
		if err != nil {
			continue // addChange says so
		}
		n += 2 * len(steps)
		if c.Resource != nil {
			n++
		}
		if c.Prior != nil {
			n++
		}
		for _, op := range steps {
			switch op {
			case execgraph.OpImport, execgraph.OpMove, execgraph.OpRefresh, execgraph.OpCreateDepose, execgraph.OpDestroyDeposed:
				n++
			}
		}
	}
	gb.b.Grow(n+len(gb.decls), len(order))
	done := make(map[string]execgraph.Ref, len(gb.done)+len(order))
	maps.Copy(done, gb.done)
	gb.done = done
}

// provider is the element of a declared provider, or None.
func (gb *graphBuilder) provider(name string) execgraph.Ref {
	if gb.decls[name] == nil {
		return execgraph.None
	}
	return gb.b.Provider(name, gb.decls[name])
}

// readState is the read-state of a handler, or None.
func (gb *graphBuilder) readState(h string) execgraph.Ref {
	if r, ok := gb.done[h]; ok && gb.states[h] {
		return r
	}
	return execgraph.None
}

// shape is how c is carried out, for [execgraph.Steps].
func (c *Change) shape() execgraph.Change {
	return execgraph.Change{
		Action: c.Action, Deposed: c.Deposed != "", CreateBeforeDestroy: c.CreateBeforeDestroy,
		Pending: c.Pending, Structural: c.Structural,
		Import: c.Import != nil && c.Resource != nil && c.Prior != nil,
		Move:   c.Move != nil && c.Move.prior != nil,
	}
}

// addChange adds the operations that carry out c, after waits: the
// opcodes [execgraph.Steps] lowers its action to, each given its operands
// here. It returns the one that yields c's final state.
func (gb *graphBuilder) addChange(c *Change, waits []execgraph.Ref) (execgraph.Ref, error) {
	steps, err := execgraph.Steps(c.shape())
	if err != nil {
		return execgraph.None, err
	}
	b, provider := gb.b, gb.provider
	addr := c.Address.String()
	var state execgraph.Ref = execgraph.None
	if r := c.Resource; r != nil && r.State != nil {
		state = gb.readState(r.State.String())
	}
	priorState := execgraph.None
	if c.Prior != nil {
		priorState = gb.readState(c.Prior.Handler)
	}
	result := execgraph.None
	for _, op := range steps {
		var operands []execgraph.Ref
		wait := waits
		switch op {
		case execgraph.OpImport:
			operands = []execgraph.Ref{b.Desired(addr, c.Resource), b.Prior(addr, c.Prior), gb.readState(c.Prior.Handler), b.Constant(constImportID, c.Import.ID)}
		case execgraph.OpMove:
			m := c.Move
			operands = []execgraph.Ref{b.Desired(addr, c.Resource), b.Prior(m.From.String(), m.prior), gb.readState(m.prior.Handler)}
		case execgraph.OpExpand:
			operands = []execgraph.Ref{b.Desired(addr, c.Resource), gb.controls}
		case execgraph.OpResolve:
			prior := execgraph.None
			if c.Prior != nil {
				prior = b.Prior(addr, c.Prior)
			}
			prov := execgraph.None
			if c.Resource != nil {
				prov = provider(c.Resource.Provider)
			}
			operands, wait = []execgraph.Ref{b.Desired(addr, c.Resource), prior, prov, state, gb.controls}, append(waits, priorState)
		case execgraph.OpCreate:
			// A replace's create follows its destroy, and names the
			// object that destroy removed.
			replaces := execgraph.None
			if c.Action == execgraph.ActionReplace {
				replaces, wait = b.Prior(addr, c.Prior), []execgraph.Ref{result}
			}
			operands = []execgraph.Ref{b.Desired(addr, c.Resource), provider(c.Resource.Provider), state, replaces}
		case execgraph.OpUpdate:
			operands = []execgraph.Ref{b.Desired(addr, c.Resource), b.Prior(addr, c.Prior), provider(c.Resource.Provider), state, priorState}
		case execgraph.OpDestroyDeposed:
			operands = []execgraph.Ref{b.Deposed(addr, c.Deposed, c.Prior), provider(c.Prior.Entry.Provider), priorState}
		case execgraph.OpDestroy:
			operands = []execgraph.Ref{b.Prior(addr, c.Prior), provider(c.Prior.Entry.Provider), priorState}
		case execgraph.OpRefresh:
			// The entry as read, or nil when the object is gone.
			var now *statedoc.Recorded
			if d := c.Refreshed; d != nil && !d.Gone {
				now = &statedoc.Recorded{Address: d.Address, Handler: d.Handler, Entry: d.Now}
			}
			handler := execgraph.None
			if c.Refreshed != nil {
				handler = gb.readState(c.Refreshed.Handler)
			}
			operands = []execgraph.Ref{b.Prior(addr, c.Prior), handler, b.Constant(constRefreshed, now)}
		case execgraph.OpForget:
			operands = []execgraph.Ref{b.Prior(addr, c.Prior), priorState}
		case execgraph.OpCreateDepose:
			operands, wait = []execgraph.Ref{b.Desired(addr, c.Resource), b.Prior(addr, c.Prior), provider(c.Resource.Provider), state, b.Constant(constDeposeKey, c.DeposeKey)}, append(waits, priorState)
		default:
			return execgraph.None, fmt.Errorf("a plan's change has no %s operation: this is a bug in pier", op)
		}
		if result, err = b.Operation(op, operands, b.Waiter(wait...)); err != nil {
			return execgraph.None, err
		}
		waits = append(waits, result)
	}
	return result, nil
}

// addDestroyAbsent follows an expand with the destroy of what its
// composite held before and may no longer hold: the recorded objects
// under its address that the plan could not decide.
func (p *Plan) addDestroyAbsent(b *execgraph.Builder, c *Change, expand execgraph.Ref, provider func(string) execgraph.Ref) error {
	operands := []execgraph.Ref{expand}
	for _, h := range slices.Sorted(maps.Keys(p.States)) {
		v := p.States[h]
		for _, addr := range slices.Sorted(maps.Keys(v.Entries)) {
			rec := v.Entries[addr]
			if !rec.Address.HasPrefix(c.Address) || p.Change(addr) != nil || (len(p.Targets) > 0 && !Targeted(addr, p.Targets)) {
				continue
			}
			// Its provider is in the graph: it may be started.
			provider(rec.Entry.Provider)
			operands = append(operands, b.Prior(addr, rec))
		}
	}
	if len(operands) == 1 {
		return nil
	}
	_, err := b.Operation(execgraph.OpDestroyAbsent, operands, execgraph.None)
	return err
}

// graphOrder orders changes so that each follows what it depends on
// (Kahn's algorithm); among the ready ones the earliest in the plan's
// (address) order goes first, so the graph is stable.
func graphOrder(todo []*Change) ([]*Change, error) {
	ix := NewDepIndex()
	for _, c := range todo {
		ix.Add(c)
	}
	pos := map[string]int{}
	for i, c := range todo {
		pos[c.Addr()] = i
	}
	waiting := make([]int, len(todo))
	followers := make([][]int, len(todo))
	for i, c := range todo {
		for _, d := range ix.Deps(c) {
			if j, ok := pos[d]; ok && j != i {
				waiting[i]++
				followers[j] = append(followers[j], i)
			}
		}
	}
	ready := &intHeap{}
	for i := range todo {
		if waiting[i] == 0 {
			heap.Push(ready, i)
		}
	}
	out := make([]*Change, 0, len(todo))
	for ready.Len() > 0 {
		i := heap.Pop(ready).(int)
		out = append(out, todo[i])
		for _, f := range followers[i] {
			if waiting[f]--; waiting[f] == 0 {
				heap.Push(ready, f)
			}
		}
	}
	if len(out) < len(todo) {
		var stuck []string
		for i, c := range todo {
			if waiting[i] > 0 {
				stuck = append(stuck, c.Addr())
			}
		}
		return nil, fmt.Errorf("plan has a dependency cycle among %s", strings.Join(stuck, ", "))
	}
	return out, nil
}

type intHeap []int

func (h intHeap) Len() int           { return len(h) }
func (h intHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h intHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *intHeap) Push(x any)        { *h = append(*h, x.(int)) }
func (h *intHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
