package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sort"

	"github.com/pierhq/pier/host/source"
)

// ResourceError is one resource's failure during apply.
type ResourceError struct {
	Address  string
	Provider string
	Action   Action
	Err      error
}

func (e *ResourceError) Error() string {
	return fmt.Sprintf("%s (provider %s): %s: %v", e.Address, e.Provider, e.Action, e.Err)
}

func (e *ResourceError) Unwrap() error { return e.Err }

// ErrInterrupted marks resources not started because apply was
// interrupted.
var ErrInterrupted = errors.New("interrupted before it started")

// Result is what an apply did.
type Result struct {
	Created, Updated, Destroyed int
	// Recorded counts the objects a --refresh-only apply recorded as
	// read.
	Recorded int
	// Forgotten counts the records removed blocks let go of.
	Forgotten int
	// Errors are the resources that failed, in address order.
	Errors []*ResourceError
	// Skipped are resources that did not run because something they depend
	// on failed, or because apply was interrupted.
	Skipped []string
	// Interrupted is set when apply stopped early on request.
	Interrupted bool
	// Outputs are the deployment outputs after apply.
	Outputs []*source.Output
}

// Err summarises the result's failures as one error, or nil.
func (r *Result) Err() error {
	if len(r.Errors) == 0 && !r.Interrupted {
		return nil
	}
	var errs []error
	for _, e := range r.Errors {
		errs = append(errs, e)
	}
	if r.Interrupted {
		errs = append(errs, context.Canceled)
	}
	return errors.Join(errs...)
}

// applier runs one plan. Its fields are owned by the scheduling goroutine
// (Apply's); workers communicate only through channels.
type applier struct {
	e      *Engine
	plan   *Plan
	nodes  map[string]*node
	known  source.Outputs
	result *Result
	// ready holds runnable nodes per provider, so that a provider at its
	// parallelism limit does not hold up the others (or global slots).
	ready      map[string][]*node
	providers  []string // providers with a ready queue, in first-use order
	queued     int
	running    int
	perRunning map[string]int
	// pending nodes wait for the source to resolve their inputs.
	pending   map[string]*node
	resolving bool
	// resolveAgain is set when outputs arrived during a resolve.
	resolveAgain bool
	done         chan nodeResult
	resolved     chan resolveResult
	recorders    map[string]*recorder
	stopped      bool
	lastSnap     *source.Snapshot
	// deps orders the nodes; see deps.go.
	deps *depIndex
	// unlinked are the nodes added since the last link.
	unlinked []*node
	// absorbed are the ready resources absorbed already: a source returns
	// the same resource for an instance it did not re-evaluate, so each
	// resolve costs the resources it changed, not an address per resource.
	absorbed        map[*source.Resource]bool
	absorbedBlocked map[*source.Blocked]bool
	// deferredDone is set once resources absent from a complete snapshot
	// were planned for destroy: at plan time, or on the first complete
	// snapshot during apply.
	deferredDone bool
	// knownGen counts changes to known; resolvedGen is its value at the
	// last resolve. A source answers from the known outputs alone, so
	// resolving again with nothing new would only repeat its answer.
	knownGen, resolvedGen int
}

// Apply carries out a plan. Closing stop makes it start nothing new and
// wait for running operations, which are still recorded; cancelling ctx
// also cancels the running provider requests. Apply returns an error only
// when it could not run at all; per-resource failures are in the Result.
func (e *Engine) Apply(ctx context.Context, stop <-chan struct{}, plan *Plan) (*Result, error) {
	a := &applier{
		e: e, plan: plan,
		nodes:      map[string]*node{},
		known:      maps.Clone(plan.Known),
		result:     &Result{},
		pending:    map[string]*node{},
		ready:      map[string][]*node{},
		perRunning: map[string]int{},
		done:       make(chan nodeResult),
		resolved:   make(chan resolveResult, 1),
		recorders:  map[string]*recorder{},
		lastSnap:   plan.Snapshot,

		deps:     newDepIndex(),
		absorbed: map[*source.Resource]bool{},

		absorbedBlocked: map[*source.Blocked]bool{},
		deferredDone:    plan.Snapshot == nil || plan.Snapshot.Complete(),
	}
	if plan.Snapshot != nil {
		// The plan may come from another engine: its providers are the
		// ones to run.
		e.providers.declare(plan.Snapshot.Providers)
	}
	for h, ref := range plan.handlers {
		a.recorders[h] = newRecorder(e, h, ref)
	}
	defer func() {
		for _, r := range a.recorders {
			r.close()
		}
	}()
	if err := a.recordDrift(ctx); err != nil {
		return a.result, err
	}
	a.build()
	a.run(ctx, stop)
	// After a complete destroy the outputs name things that are gone, so
	// they are dropped; a partial one leaves them, like the resources.
	if !a.result.Interrupted && (!plan.Destroy || len(a.result.Errors) == 0) {
		if err := a.recordOutputs(ctx); err != nil {
			return a.result, err
		}
	}
	sort.Slice(a.result.Errors, func(i, j int) bool { return a.result.Errors[i].Address < a.result.Errors[j].Address })
	sort.Strings(a.result.Skipped)
	return a.result, nil
}

// build turns the plan's changes into nodes and edges.
func (a *applier) build() {
	for _, c := range a.plan.Changes {
		if c.StateHandler || c.Action == ActionNoOp {
			continue
		}
		a.addNode(c)
	}
	a.link()
}

func (a *applier) addNode(c *Change) *node {
	n := &node{change: c, status: StatusPending}
	a.nodes[c.Addr()] = n
	a.unlinked = append(a.unlinked, n)
	a.deps.add(c)
	a.e.emit(Event{Type: EventStatus, Address: c.Addr(), Action: c.Action, Status: StatusPending, Provider: c.Provider()})
	return n
}
