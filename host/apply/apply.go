package apply

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/pierhq/pier/host/engine"
	"github.com/pierhq/pier/host/execgraph"
	"github.com/pierhq/pier/host/internal/workers"
	"github.com/pierhq/pier/host/plan"
	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/host/statedoc"
)

// ResourceError is one resource's failure during apply.
type ResourceError struct {
	Address  string
	Provider string
	Action   execgraph.Action
	Err      error
}

func (e *ResourceError) Error() string {
	return fmt.Sprintf("%s (provider %s): %s: %v", e.Address, e.Provider, e.Action, e.Err)
}

func (e *ResourceError) Unwrap() error { return e.Err }

// ErrInterrupted marks resources not started because apply was
// interrupted.
var ErrInterrupted = errors.New("interrupted before it started")

// StaleStateError refuses a saved plan whose states moved since it was
// made: nothing was changed.
type StaleStateError struct {
	// Handlers are the state handlers whose content differs.
	Handlers []string
}

func (e *StaleStateError) Error() string {
	return fmt.Sprintf("the state held by %v has changed since the plan was made", e.Handlers)
}

// Result is what an apply did.
type Result struct {
	Created, Updated, Destroyed int
	// Recorded counts the objects a --refresh-only apply recorded as
	// read.
	Recorded int
	// Forgotten counts the records removed blocks let go of.
	Forgotten int
	// Imported counts the objects import blocks adopted.
	Imported int
	// Moved counts the records moved blocks moved.
	Moved int
	// Errors are the resources that failed, in address order.
	Errors []*ResourceError
	// Skipped are resources that did not run because something they depend
	// on failed, or because apply was interrupted.
	Skipped []string
	// Interrupted is set when apply stopped early on request.
	Interrupted bool
	// Lost are the state handlers whose process, and so the state's
	// lock, was lost during apply: apply stopped starting work.
	Lost []*HandlerLostError
	// Outputs are the deployment outputs after apply.
	Outputs []*source.Output
	// Checks are the check blocks' results after apply; CheckWarnings
	// the failed ones, worded for the user.
	Checks        []*source.CheckResult
	CheckWarnings []string
}

// Err summarises the result's failures as one error, or nil.
func (r *Result) Err() error {
	if len(r.Errors) == 0 && !r.Interrupted && len(r.Lost) == 0 {
		return nil
	}
	var errs []error
	for _, e := range r.Errors {
		errs = append(errs, e)
	}
	for _, e := range r.Lost {
		errs = append(errs, e)
	}
	if r.Interrupted {
		errs = append(errs, context.Canceled)
	}
	return errors.Join(errs...)
}

// applier runs one execution graph. The graph is not changed: what is
// decided while it runs (a resolved resource's action, the members of an
// expanded composite) is the applier's own run state. Its fields are
// owned by the scheduling goroutine (Apply's); workers communicate only
// through channels.
type applier struct {
	e *engine.Engine
	// workers run the operations: their goroutines keep the stacks
	// earlier operations grew.
	workers *workers.Pool
	// planner decides what the plan left to run time.
	planner Planner
	graph   *execgraph.Graph
	// live is the plan the graph was built from when it is applied by the
	// engine that planned it (its drift is recorded); nil for a saved plan.
	live     *plan.Plan
	controls execgraph.Controls
	// decls are the graph's providers, by name.
	decls map[string]*source.Provider
	// ops are the graph's operations, compiled, by element.
	ops []execgraph.Operation[*statedoc.Recorded]
	// moved are the state handlers whose content moved since the plan.
	moved []string
	// replaceAddrs are the addresses --replace names.
	replaceAddrs map[string]bool
	// states are the states as the read-state operations read them.
	states map[string]*statedoc.View
	// planned are the addresses the plan decided: the graph's results and
	// the unchanged resources.
	planned map[string]bool
	// nodes by element; byAddr the node that yields each address's final
	// state (and the destroys of deposed objects, by their names).
	nodes  []*node
	byAddr map[string]*node
	known  source.Outputs
	result *Result
	// ready holds runnable nodes per provider, so that a provider with
	// all the nodes started it admits does not hold up the others.
	ready     map[string][]*node
	providers []string // providers with a ready queue, in first-use order
	queued    int
	// running counts the nodes started and not finished; calls are the
	// provider requests' slots (see calls.go).
	running int
	calls   callSlots
	// control are runnable nodes the scheduler carries out itself
	// (destroy-absent): they call no provider.
	control []*node
	// pending nodes wait for the source to resolve their inputs.
	pending   map[string]*node
	resolving bool
	// resolveAgain is set when outputs arrived during a resolve.
	resolveAgain bool
	done         chan nodeResult
	resolved     chan resolveResult
	recorders    map[string]*engine.Recorder
	stopped      bool
	lastSnap     *source.Snapshot
	// deps orders the nodes added at run time; see deps.go.
	deps *plan.DepIndex
	// unlinked are the nodes added since the last link.
	unlinked []*node
	// absorbed are the ready resources absorbed already: a source returns
	// the same resource for an instance it did not re-evaluate, so each
	// resolve costs the resources it changed, not an address per resource.
	absorbed        map[*source.Resource]bool
	absorbedBlocked map[*source.Blocked]bool
	// knownGen counts changes to known; resolvedGen is its value at the
	// last resolve. A source answers from the known outputs alone, so
	// resolving again with nothing new would only repeat its answer.
	knownGen, resolvedGen int
	// lostState follows state handlers whose process is lost; see
	// handler_lost.go.
	lostState lostState
	// conds are the nodes waiting on their conditions; see conditions.go.
	conds conditionWaits
}

// Run carries out a plan on the engine e that made it: it runs the plan's
// execution graph, asking p what the plan left to run time. Closing
// stop makes it start nothing new and wait for running operations, which
// are still recorded; cancelling ctx also cancels the running provider
// requests. Apply returns an error only when it could not run at all;
// per-resource failures are in the Result.
func Run(ctx context.Context, e *engine.Engine, p Planner, stop <-chan struct{}, pl *plan.Plan) (*Result, error) {
	g, err := pl.Graph()
	if err != nil {
		return nil, err
	}
	return run(ctx, e, p, stop, g, pl)
}

// RunGraph carries out a saved plan's execution graph on the engine e,
// asking p what the plan left to run time, without planning: its read-state operations start the state handlers
// and read the states again, and a state whose content moved since the
// plan refuses it with a [*StaleStateError] before anything changes. The
// source is asked only for what the graph leaves to run time (resolve and
// expand operations) and for the deployment's outputs.
func RunGraph(ctx context.Context, e *engine.Engine, p Planner, stop <-chan struct{}, g *execgraph.Graph) (*Result, error) {
	return run(ctx, e, p, stop, g, nil)
}

func run(ctx context.Context, e *engine.Engine, p Planner, stop <-chan struct{}, g *execgraph.Graph, live *plan.Plan) (*Result, error) {
	a := &applier{
		e: e, planner: p, graph: g, live: live,
		states:   map[string]*statedoc.View{},
		planned:  map[string]bool{},
		byAddr:   map[string]*node{},
		known:    source.Outputs{},
		result:   &Result{},
		pending:  map[string]*node{},
		ready:    map[string][]*node{},
		done:     make(chan nodeResult),
		resolved: make(chan resolveResult, 1),

		recorders: map[string]*engine.Recorder{},
		deps:      plan.NewDepIndex(),
		absorbed:  map[*source.Resource]bool{},

		absorbedBlocked: map[*source.Blocked]bool{},
		replaceAddrs:    map[string]bool{},
	}
	a.workers = workers.New()
	defer a.workers.Close()
	if live != nil {
		a.lastSnap = live.Snapshot
		if live.Snapshot != nil {
			e.Providers().Declare(live.Snapshot.Providers)
		}
	}
	ops, err := execgraph.Compile[*statedoc.Recorded](g)
	if err != nil {
		return nil, err
	}
	a.ops = ops
	// The plan may come from another engine: its providers are the ones
	// to run.
	decls := map[string]*source.Provider{}
	for i := range g.Len() {
		el := g.Element(execgraph.Ref(i))
		switch el.Kind {
		case execgraph.KindProvider:
			decls[el.Name] = el.Value.(*source.Provider)
		case execgraph.KindConstant:
			if c, ok := el.Value.(execgraph.Controls); ok && el.Name == plan.ConstControls {
				a.controls = c
			}
		}
	}
	e.Providers().Declare(decls)
	a.decls = decls
	for _, r := range a.controls.Replace {
		a.replaceAddrs[r] = true
	}
	defer func() {
		for _, r := range a.recorders {
			r.Close()
		}
	}()
	if err := a.readStates(ctx); err != nil {
		return nil, err
	}
	if live != nil {
		if err := a.recordDrift(ctx); err != nil {
			return a.result, err
		}
	}
	a.build()
	unwatch := a.watchHandlers()
	a.run(ctx, stop)
	unwatch()
	a.drainLost()
	// A handler whose last request failed as its process died may end
	// the run before its watcher has said so.
	for _, h := range slices.Sorted(maps.Keys(a.recorders)) {
		if a.handlerLost(h) != nil {
			a.loseHandler(h)
		}
	}
	if len(a.lostState.handlers) > 0 {
		a.retake(ctx)
	}
	// After a complete destroy the outputs name things that are gone, so
	// they are dropped; a partial one leaves them, like the resources.
	// After a lost handler nothing more is recorded.
	if !a.result.Interrupted && len(a.result.Lost) == 0 && (!a.controls.Destroy || len(a.result.Errors) == 0) {
		if err := a.recordOutputs(ctx); err != nil {
			return a.result, err
		}
	}
	sort.Slice(a.result.Errors, func(i, j int) bool { return a.result.Errors[i].Address < a.result.Errors[j].Address })
	sort.Strings(a.result.Skipped)
	return a.result, nil
}

// readStates runs the graph's read-state operations, first and in order:
// every state is read, and checked against the plan, before anything
// changes. The handlers the planning engine read already are reused.
func (a *applier) readStates(ctx context.Context) error {
	for _, i := range a.graph.Operations() {
		if op, ok := a.ops[i].(execgraph.ReadState[*statedoc.Recorded]); ok {
			if _, err := op.Run(ctx, a); err != nil {
				return err
			}
		}
	}
	if len(a.moved) > 0 {
		return &StaleStateError{Handlers: a.moved}
	}
	// What the graph does not change keeps its recorded outputs: the
	// unchanged resources, as planning found them.
	absent := map[string]bool{}
	for _, i := range a.graph.Operations() {
		if el := a.graph.Element(i); el.Op == execgraph.OpDestroyAbsent {
			for _, o := range el.Operands[1 : len(el.Operands)-1] {
				absent[a.graph.Element(o).Name] = true
			}
		}
	}
	// Sized once: grown entry by entry, maps of a large state's
	// addresses are rehashed a dozen times.
	n := 0
	for _, v := range a.states {
		n += len(v.Entries)
	}
	a.known, a.planned = withRoom(a.known, n), withRoom(a.planned, n)
	for _, v := range a.states {
		for addr, rec := range v.Entries {
			if _, changes := a.graph.Result(addr); changes || absent[addr] {
				continue
			}
			out := rec.Entry.OutputProperties
			if out == nil {
				out = map[string]any{}
			}
			a.known[addr] = out
			a.planned[addr] = true
		}
	}
	for _, addr := range a.graph.Results() {
		a.planned[addr] = true
	}
	return nil
}

// withRoom is m, or a copy of m with room for n more entries without
// growing, when m has fewer than n.
func withRoom[K comparable, V any](m map[K]V, n int) map[K]V {
	if len(m) >= n {
		return m
	}
	out := make(map[K]V, len(m)+n)
	maps.Copy(out, m)
	return out
}

// ReadState starts a state handler and reads its state; a state whose
// content moved since the plan is noted, and refuses the graph once all
// are read. The handlers the planning engine read already are reused.
func (a *applier) ReadState(ctx context.Context, op execgraph.ReadState[*statedoc.Recorded]) error {
	h := op.Handler.Address.String()
	var ref *engine.HandlerRef
	if a.live != nil && a.live.MadeBy(a.e) {
		// Read by this engine when planning: the same state, its handler
		// still running.
		ref = a.live.HandlerRef(h)
	}
	if ref == nil {
		var err error
		if ref, err = a.e.ReadState(ctx, op.Handler); err != nil {
			return err
		}
		if ref.View.ContentHash() != op.Hash.ContentHash() {
			a.moved = append(a.moved, h)
			return nil
		}
	}
	a.states[h] = ref.View
	a.known[h] = ref.Outputs
	a.planned[h] = true
	a.recorders[h] = engine.NewRecorder(a.e, h, ref)
	return nil
}

// build makes a node of each operation of the graph but the read-states,
// which ran already.
func (a *applier) build() {
	g := a.graph
	a.nodes = make([]*node, g.Len())
	ops := g.Operations()
	// Sized for the graph's operations, which run-time resolves rarely
	// add to: grown one at a time, a fresh apply of 1000 resources
	// made these several times over.
	a.unlinked = slices.Grow(a.unlinked, len(ops))
	if len(a.byAddr) == 0 {
		a.byAddr = make(map[string]*node, len(ops))
	}
	a.lostState.intentsHint = len(ops)
	for _, i := range ops {
		op := a.ops[i]
		if op.Opcode() == execgraph.OpReadState {
			continue
		}
		n := &node{run: op, ref: i, status: engine.StatusPending, change: subject(op)}
		// A destroy-absent is not a resource: no events.
		n.quiet = op.Opcode() == execgraph.OpDestroyAbsent
		a.nodes[i] = n
		if r, ok := g.Result(n.change.Address.String()); (ok && r == i) || op.Opcode() == execgraph.OpDestroyDeposed {
			a.byAddr[n.change.Addr()] = n
		}
		a.deps.Add(n.change)
		a.unlinked = append(a.unlinked, n)
		if !n.quiet {
			a.e.Emit(engine.Event{Type: engine.EventStatus, Address: n.change.Addr(), Deposed: n.change.Deposed, Action: n.change.Action, Status: engine.StatusPending, Provider: n.change.Provider()})
		}
	}
	a.link()
}

// subject is what an operation does to its resource, as a change: what
// the scheduler orders and skips by, what progress events and errors
// name, with the action the graph's vocabulary names it by
// ([execgraph.ActionOf]). It is the node's own copy, which a resolve
// fills in at run time.
func subject(op execgraph.Operation[*statedoc.Recorded]) *plan.Change {
	c := &plan.Change{Action: execgraph.ActionOf(op)}
	switch o := op.(type) {
	case execgraph.Create[*statedoc.Recorded]:
		c.Address, c.Resource = o.Desired.Address, o.Desired
	case execgraph.Update[*statedoc.Recorded]:
		c.Address, c.Resource, c.Prior = o.Desired.Address, o.Desired, o.Prior
	case execgraph.Destroy[*statedoc.Recorded]:
		c.Address, c.Prior = o.Prior.Address, o.Prior
	case execgraph.CreateDepose[*statedoc.Recorded]:
		c.Address, c.Resource, c.Prior, c.CreateBeforeDestroy, c.DeposeKey = o.Desired.Address, o.Desired, o.Prior, true, o.DeposeKey
	case execgraph.DestroyDeposed[*statedoc.Recorded]:
		c.Address, c.Prior, c.Deposed = o.Deposed.Address, o.Deposed, o.Key
	case execgraph.Resolve[*statedoc.Recorded]:
		c.Address, _ = source.ParseAddress(o.Address)
		c.Resource, c.Prior, c.Pending, c.WaitsOn = o.Desired, o.Prior, true, o.WaitsOn
	case execgraph.Expand[*statedoc.Recorded]:
		c.Address, _ = source.ParseAddress(o.Address)
		c.Resource, c.Pending, c.Structural, c.WaitsOn = o.Desired, true, true, o.WaitsOn
	case execgraph.DestroyAbsent[*statedoc.Recorded]:
		c.Address, _ = source.ParseAddress(o.Composite)
		c.Structural = true
	case execgraph.Forget[*statedoc.Recorded]:
		c.Address, c.Prior = o.Prior.Address, o.Prior
	case execgraph.Move[*statedoc.Recorded]:
		c.Address, c.Resource, c.Prior, c.Move = o.Desired.Address, o.Desired, o.Prior, &plan.MoveSpec{From: o.Prior.Address}
	case execgraph.Import[*statedoc.Recorded]:
		c.Address, c.Resource, c.Prior, c.Import = o.Desired.Address, o.Desired, o.Imported, &plan.ImportSpec{ID: o.ID}
	case execgraph.Refresh[*statedoc.Recorded]:
		d := &plan.Drift{Address: o.Prior.Address, Handler: o.State, Recorded: o.Prior.Entry, Gone: true}
		if o.Now != nil {
			d.Now, d.Gone = o.Now.Entry, false
		}
		c.Address, c.Prior, c.Refreshed = o.Prior.Address, o.Prior, d
	default:
		panic(fmt.Sprintf("no subject for a %s operation: this is a bug in pier", op.Opcode()))
	}
	return c
}

// failPendingMessage says what a pending node still waits for.
func failPendingMessage(n *node) string {
	return fmt.Sprintf("inputs never became known (waits on %s)", strings.Join(n.change.WaitsOn, ", "))
}
