package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/schema"
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

// node is one operation in the running graph.
type node struct {
	change  *Change
	waiting int // unfinished nodes this one waits for
	linked  bool
	// dependents are woken when this node finishes.
	dependents []*node
	status     Status
	started    time.Time
}

type nodeResult struct {
	n       *node
	outputs map[string]any
	err     error
}

type resolveResult struct {
	snap *source.Snapshot
	err  error
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

// link wires dependencies between the nodes not yet linked: creates and
// updates follow what they depend on; destroys run in reverse dependency
// order, after everything that depended on them is gone. It costs the
// number of new nodes, not of all nodes: it runs after every resolve.
func (a *applier) link() {
	batch := make([]struct {
		addr string
		n    *node
	}, len(a.unlinked))
	for i, n := range a.unlinked {
		batch[i].addr, batch[i].n = n.change.Addr(), n
	}
	a.unlinked = a.unlinked[:0]
	sort.Slice(batch, func(i, j int) bool { return batch[i].addr < batch[j].addr })
	for _, b := range batch {
		addr, n := b.addr, b.n
		if n.linked || n.status != StatusPending {
			n.linked = true
			continue
		}
		n.linked = true
		var failed *node
		for _, dep := range a.dependencies(n) {
			d := a.nodes[dep]
			switch {
			case d == nil || d == n || d.status == StatusApplied:
			case d.status == StatusErrored || d.status == StatusSkipped:
				failed = d
			default:
				d.dependents = append(d.dependents, n)
				n.waiting++
			}
		}
		if failed != nil {
			why := fmt.Errorf("depends on %s, which did not apply", failed.change.Addr())
			n.status = StatusSkipped
			a.result.Skipped = append(a.result.Skipped, addr)
			a.e.emit(Event{Type: EventStatus, Address: addr, Action: n.change.Action, Status: StatusSkipped, Provider: n.change.Provider(), Err: why})
			// Nodes linked before this one may already wait on it.
			a.skipDependents(n, why)
			continue
		}
		if n.change.Pending {
			a.pending[n.change.Addr()] = n
		} else if n.waiting == 0 {
			a.enqueue(n)
		}
	}
}

// follows reports whether a node already waits for addr.
func (n *node) follows(addr string) bool {
	if slices.Contains(n.change.WaitsOn, addr) {
		return true
	}
	if r := n.change.Resource; r != nil {
		for _, d := range r.DependsOn {
			if d.String() == addr {
				return true
			}
		}
	}
	return false
}

// dependencies lists the nodes a node must wait for.
func (a *applier) dependencies(n *node) []string { return a.deps.deps(n.change) }

// run is the scheduling loop.
func (a *applier) run(ctx context.Context, stop <-chan struct{}) {
	sem := a.e.cfg.parallelism()
	for {
		if !a.stopped {
			select {
			case <-stop:
				a.stopped = true
				a.result.Interrupted = true
			default:
			}
		}
		for !a.stopped && a.running < sem {
			n := a.dequeue()
			if n == nil {
				break
			}
			a.start(ctx, n)
		}
		if a.running == 0 && !a.resolving {
			if a.stopped {
				a.skipAll(ErrInterrupted)
				return
			}
			if a.queued == 0 {
				if a.needResolve() {
					a.startResolve(ctx)
				} else {
					a.failPending()
					return
				}
			}
			continue
		}
		select {
		case r := <-a.done:
			a.running--
			a.perRunning[r.n.change.Provider()]--
			a.finish(r)
			if len(a.pending) > 0 {
				a.resolveAgain = true
			}
		case r := <-a.resolved:
			a.resolving = false
			a.absorb(r)
		case <-stop:
			if !a.stopped {
				a.stopped = true
				a.result.Interrupted = true
			}
			stop = nil
		}
		if a.resolveAgain && !a.resolving && !a.stopped && a.needResolve() {
			a.startResolve(ctx)
		}
	}
}

// needResolve reports whether some pending node has all it waits on done
// and outputs arrived since the last resolve.
func (a *applier) needResolve() bool {
	if a.knownGen == a.resolvedGen {
		return false
	}
	for _, n := range a.pending {
		if n.waiting == 0 {
			return true
		}
	}
	return false
}

func (a *applier) startResolve(ctx context.Context) {
	a.resolving = true
	a.resolveAgain = false
	a.resolvedGen = a.knownGen
	known := maps.Clone(a.known)
	go func() {
		snap, err := a.e.resolve(ctx, known)
		a.resolved <- resolveResult{snap, err}
	}()
}

// absorb takes a new snapshot: pending resources whose inputs are now
// known become runnable, and resources the source newly revealed join the
// graph.
func (a *applier) absorb(r resolveResult) {
	if r.err != nil {
		// The source cannot say what the pending resources are; they fail
		// with its error, and independent work goes on.
		for addr, n := range a.pending {
			if n.waiting == 0 {
				delete(a.pending, addr)
				a.fail(n, r.err)
			}
		}
		return
	}
	a.lastSnap = r.snap
	for _, res := range r.snap.Ready {
		if a.absorbed[res] {
			continue
		}
		a.absorbed[res] = true
		addr := res.Address.String()
		if n := a.pending[addr]; n != nil {
			delete(a.pending, addr)
			prior := n.change.Prior
			if prior == nil {
				prior = a.recordedEntry(addr)
			}
			c := decide(res, prior, a.plan.replace[addr])
			if c.Action != ActionNoOp {
				// The resolved resource may depend on more than the
				// blocked one said (a lazy source may not know a blocked
				// member's dependencies at all): follow those too.
				a.rewait(n, res.DependsOn)
				if n.status != StatusPending {
					continue
				}
			}
			n.change.Resource, n.change.Action, n.change.Prior, n.change.Pending = res, c.Action, c.Prior, false
			if c.Action == ActionNoOp {
				a.complete(n, c.Prior.Entry.OutputProperties)
				continue
			}
			if n.waiting == 0 {
				a.enqueue(n)
			}
			continue
		}
		if a.nodes[addr] != nil || a.plan.Change(addr) != nil || !a.inTargets(addr) {
			continue
		}
		// A resource the plan did not know: a member of a composite that
		// was structurally blocked.
		c := decide(res, a.recordedEntry(addr), a.plan.replace[addr])
		a.plan.add(c)
		if c.Action == ActionNoOp {
			a.setKnown(addr, c.Prior.Entry.OutputProperties)
			continue
		}
		a.addNode(c)
	}
	for _, b := range r.snap.Blocked {
		if a.absorbedBlocked[b] {
			continue
		}
		a.absorbedBlocked[b] = true
		addr := b.Address.String()
		if n := a.nodes[addr]; n != nil {
			if a.pending[addr] == n {
				a.rewait(n, b.WaitsOn)
			}
			continue
		}
		if !a.inTargets(addr) {
			continue
		}
		var waits []string
		for _, w := range b.WaitsOn {
			waits = append(waits, w.String())
		}
		c := &Change{Address: b.Address, Action: ActionCreate, Resource: b.Resource, Pending: true, WaitsOn: waits, Structural: b.Structural}
		if b.Resource != nil && b.Resource.Stateful() {
			if prior := a.recordedEntry(addr); prior != nil {
				c.Action, c.Prior = ActionUpdate, prior
			}
		}
		a.plan.add(c)
		a.addNode(c)
	}
	// Structural blocks that cleared may have resolved into resources; the
	// blocked composite itself is done.
	var blocked map[string]bool
	for addr, n := range a.pending {
		if n.change.Resource != nil {
			continue
		}
		if blocked == nil {
			blocked = make(map[string]bool, len(r.snap.Blocked))
			for _, b := range r.snap.Blocked {
				blocked[b.Address.String()] = true
			}
		}
		if !blocked[addr] {
			delete(a.pending, addr)
			n.status = StatusApplied
			a.wake(n)
		}
	}
	if !a.deferredDone && r.snap.Complete() {
		a.deferredDone = true
		a.planDeferredDestroys(r.snap)
	}
	a.link()
}

// rewait follows a pending node's blockers as the source now names them:
// a lazy source (Nix) names only the first unknown output it met, so once
// that is known the node may wait on another resource. The node must
// follow that one too, and be skipped if it failed.
func (a *applier) rewait(n *node, waits []source.Address) {
	for _, w := range waits {
		ws := w.String()
		if n.follows(ws) {
			continue
		}
		n.change.WaitsOn = append(n.change.WaitsOn, ws)
		d := a.nodes[ws]
		switch {
		case d == nil || d == n || d.status == StatusApplied:
		case d.status == StatusErrored || d.status == StatusSkipped:
			why := fmt.Errorf("depends on %s, which did not apply", ws)
			n.status = StatusSkipped
			delete(a.pending, n.change.Addr())
			a.result.Skipped = append(a.result.Skipped, n.change.Addr())
			a.e.emit(Event{Type: EventStatus, Address: n.change.Addr(), Action: n.change.Action, Status: StatusSkipped, Provider: n.change.Provider(), Err: why})
			a.skipDependents(n, why)
			return
		default:
			d.dependents = append(d.dependents, n)
			n.waiting++
		}
	}
}

// inTargets reports whether a resource learnt of during apply belongs to
// a targeted plan.
func (a *applier) inTargets(addr string) bool {
	return len(a.plan.Targets) == 0 || targeted(addr, a.plan.Targets)
}

func (a *applier) recordedEntry(addr string) *Recorded {
	for _, v := range a.plan.States {
		if r := v.Entries[addr]; r != nil {
			return r
		}
	}
	return nil
}

// planDeferredDestroys destroys resources recorded under composites whose
// members were unknown at plan time and turned out not to include them.
func (a *applier) planDeferredDestroys(snap *source.Snapshot) {
	present := map[string]bool{}
	for _, r := range snap.Ready {
		present[r.Address.String()] = true
	}
	for _, b := range snap.Blocked {
		present[b.Address.String()] = true
	}
	for _, v := range a.plan.States {
		for addr, rec := range v.Entries {
			if present[addr] || a.nodes[addr] != nil || a.plan.Change(addr) != nil || !a.inTargets(addr) {
				continue
			}
			c := a.e.destroyChange(rec)
			a.plan.add(c)
			a.addNode(c)
		}
	}
}

// enqueue makes a node runnable.
func (a *applier) enqueue(n *node) {
	p := n.change.Provider()
	if _, ok := a.ready[p]; !ok {
		a.providers = append(a.providers, p)
	}
	a.ready[p] = append(a.ready[p], n)
	a.queued++
}

// dequeue takes the next runnable node whose provider has a free process,
// or returns nil.
func (a *applier) dequeue() *node {
	for _, p := range a.providers {
		q := a.ready[p]
		if len(q) == 0 || a.perRunning[p] >= a.e.providers.parallelism(p) {
			continue
		}
		n := q[0]
		q[0] = nil
		a.ready[p] = q[1:]
		a.queued--
		return n
	}
	return nil
}

func (a *applier) start(ctx context.Context, n *node) {
	a.running++
	a.perRunning[n.change.Provider()]++
	n.status = StatusApplying
	n.started = time.Now()
	c := n.change
	a.e.emit(Event{Type: EventStatus, Address: c.Addr(), Action: c.Action, Status: StatusApplying, Provider: c.Provider()})
	go func() {
		out, err := a.execute(ctx, c)
		a.done <- nodeResult{n: n, outputs: out, err: err}
	}()
}

// execute performs one change: the provider call and the record of its
// outcome, as one unit. It runs on a worker goroutine and touches only
// the change and the recorders.
func (a *applier) execute(ctx context.Context, c *Change) (map[string]any, error) {
	addr := c.Addr()
	prov := c.Provider()
	if r := c.Resource; r != nil && r.Stateful() && a.recorders[r.State.String()] == nil {
		// Checked before the provider call: a change that cannot be
		// recorded must not be made.
		return nil, fmt.Errorf("%s: state handler %s was not read when planning, so nothing was done: a resource known only during apply must use a state handler the plan already reads", r.Range, r.State)
	}
	switch c.Action {
	case ActionCreate:
		r := c.Resource
		resp, err := a.e.providers.call(ctx, prov, addr, &schema.Request{CreateResourceRequest: &schema.CreateResourceRequest{
			Type: r.Type, InputProperties: r.Inputs, IsStateful: r.Stateful(),
		}})
		if err != nil {
			return nil, err
		}
		out := resp.CreateResourceResponse.OutputProperties
		return out, a.recordPut(ctx, "create", c, out)
	case ActionUpdate, ActionReplace:
		if c.Action == ActionReplace {
			return a.replace(ctx, c)
		}
		r := c.Resource
		prior := c.Prior.Entry
		if moves(r, c.Prior) && prior.Type == r.Type && sameInputs(r.Inputs, prior.InputProperties) {
			// Only the record moves; the provider has nothing to change.
			return prior.OutputProperties, a.recordPut(ctx, "update", c, prior.OutputProperties)
		}
		resp, err := a.e.providers.call(ctx, prov, addr, &schema.Request{UpdateResourceRequest: &schema.UpdateResourceRequest{
			Resource:        schema.ExtantResource{Type: prior.Type, InputProperties: prior.InputProperties, OutputProperties: prior.OutputProperties},
			InputProperties: r.Inputs,
		}})
		if err != nil {
			return nil, err
		}
		out := resp.UpdateResourceResponse.OutputProperties
		return out, a.recordPut(ctx, "update", c, out)
	case ActionDestroy:
		if c.Deposed != "" {
			return nil, a.destroyDeposed(ctx, c)
		}
		prior := c.Prior.Entry
		if !a.e.providers.declared(prov) {
			return nil, fmt.Errorf("provider %q, which recorded this resource, is no longer declared in the deployment, so pier cannot destroy it; declare the provider again, or remove the real object yourself, then run: pier state forget %s", prov, addr)
		}
		if !a.e.providers.supports(prov, schema.OperationDestroy) {
			return nil, fmt.Errorf("provider %q does not declare the destroy operation, so pier cannot destroy this resource; remove the real object yourself, then run: pier state forget %s", prov, addr)
		}
		if _, err := a.e.providers.call(ctx, prov, addr, &schema.Request{DestroyResourceRequest: &schema.DestroyResourceRequest{
			Resource: schema.ExtantResource{Type: prior.Type, InputProperties: prior.InputProperties, OutputProperties: prior.OutputProperties},
		}}); err != nil {
			return nil, err
		}
		return nil, a.record(ctx, c.Prior.Handler, "destroy", func(pb *patchBuilder) error {
			pb.remove(c.Address)
			return nil
		})
	}
	return nil, fmt.Errorf("cannot apply action %s: this is a bug in pier", c.Action)
}

// replace carries out a replacement the provider cannot do itself, a
// change of type: destroy what the resource was, then create what it is.
func (a *applier) replace(ctx context.Context, c *Change) (map[string]any, error) {
	addr := c.Addr()
	prov := c.Provider()
	if c.CreateBeforeDestroy {
		return a.createBeforeDestroy(ctx, c)
	}
	// Destroy first: the new object may need the old one's name. The
	// removal is recorded before the create, so a failed create
	// leaves a state that says the object is gone, as it is.
	prior := c.Prior.Entry
	if !a.e.providers.supports(prior.Provider, schema.OperationDestroy) {
		return nil, fmt.Errorf("replacing it needs the old object destroyed, but provider %q does not declare the destroy operation (or is no longer declared); remove the real object yourself, then run: pier state forget %s", prior.Provider, addr)
	}
	if _, err := a.e.providers.call(ctx, prior.Provider, addr, &schema.Request{DestroyResourceRequest: &schema.DestroyResourceRequest{
		Resource: schema.ExtantResource{Type: prior.Type, InputProperties: prior.InputProperties, OutputProperties: prior.OutputProperties},
	}}); err != nil {
		return nil, fmt.Errorf("destroy the %s it was: %w", prior.Type, err)
	}
	if err := a.record(ctx, c.Prior.Handler, "destroy", func(pb *patchBuilder) error {
		pb.remove(c.Address)
		return nil
	}); err != nil {
		return nil, err
	}
	r := c.Resource
	resp, err := a.e.providers.call(ctx, prov, addr, &schema.Request{CreateResourceRequest: &schema.CreateResourceRequest{
		Type: r.Type, InputProperties: r.Inputs, IsStateful: r.Stateful(),
	}})
	if err != nil {
		return nil, fmt.Errorf("the %s it was is destroyed; create the %s: %w", prior.Type, r.Type, err)
	}
	out := resp.CreateResourceResponse.OutputProperties
	return out, a.recordPut(ctx, "create", c, out)
}

// createBeforeDestroy creates the replacement and records it as current
// with the old object as deposed, in one event: at no point does the
// state lack an object that exists. The change with Deposed ==
// c.DeposeKey destroys the old object later.
func (a *applier) createBeforeDestroy(ctx context.Context, c *Change) (map[string]any, error) {
	r := c.Resource
	resp, err := a.e.providers.call(ctx, r.Provider, c.Addr(), &schema.Request{CreateResourceRequest: &schema.CreateResourceRequest{
		Type: r.Type, InputProperties: r.Inputs, IsStateful: r.Stateful(),
	}})
	if err != nil {
		return nil, fmt.Errorf("create the replacement (the old object is untouched): %w", err)
	}
	out := resp.CreateResourceResponse.OutputProperties
	old := c.Prior.Entry
	return out, a.recordPutWith(ctx, "create", c, out, func(pb *patchBuilder) error {
		return pb.depose(c.Address, c.DeposeKey, old)
	})
}

// destroyDeposed destroys a deposed object and records that it is gone.
func (a *applier) destroyDeposed(ctx context.Context, c *Change) error {
	prior := c.Prior.Entry
	prov := prior.Provider
	if !a.e.providers.supports(prov, schema.OperationDestroy) {
		return fmt.Errorf("provider %q does not declare the destroy operation (or is no longer declared), so pier cannot destroy this deposed object; remove the real object yourself, then run: pier state forget %s", prov, c.Address)
	}
	if _, err := a.e.providers.call(ctx, prov, c.Addr(), &schema.Request{DestroyResourceRequest: &schema.DestroyResourceRequest{
		Resource: schema.ExtantResource{Type: prior.Type, InputProperties: prior.InputProperties, OutputProperties: prior.OutputProperties},
	}}); err != nil {
		return fmt.Errorf("destroy the deposed object (it stays recorded; the next apply tries again): %w", err)
	}
	return a.record(ctx, c.Prior.Handler, "destroy", func(pb *patchBuilder) error {
		pb.removeDeposed(c.Address, c.Deposed)
		return nil
	})
}

func (a *applier) recordPut(ctx context.Context, event string, c *Change, outputs map[string]any) error {
	return a.recordPutWith(ctx, event, c, outputs, nil)
}

// recordPutWith records c's new object, and with also what then
// belongs in the same event.
func (a *applier) recordPutWith(ctx context.Context, event string, c *Change, outputs map[string]any, with func(*patchBuilder) error) error {
	r := c.Resource
	if !r.Stateful() {
		return nil
	}
	var deps []string
	for _, d := range r.DependsOn {
		deps = append(deps, d.String())
	}
	entry := Entry{Type: r.Type, InputProperties: r.Inputs, OutputProperties: outputs, Provider: r.Provider, Dependencies: deps, SensitiveInputs: r.SensitiveInputs}
	if err := a.record(ctx, r.State.String(), event, func(pb *patchBuilder) error {
		if err := pb.put(c.Address, entry); err != nil || with == nil {
			return err
		}
		return with(pb)
	}); err != nil {
		return err
	}
	if c.Prior == nil || !moves(r, c.Prior) {
		return nil
	}
	// Recorded in the new state first: were pier stopped in between, the
	// next plan names both states rather than forgetting the resource.
	return a.record(ctx, c.Prior.Handler, "forget", func(pb *patchBuilder) error {
		pb.remove(c.Address)
		return nil
	})
}

// record appends a change to a state handler's log. A Ctrl-C must never
// lose the record of a real change, so it runs without the caller's
// cancellation, bounded by its own timeout.
func (a *applier) record(ctx context.Context, handler, event string, build func(*patchBuilder) error) error {
	rec := a.recorders[handler]
	if rec == nil {
		return fmt.Errorf("state handler %s was not read before apply: this is a bug in pier", handler)
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
	defer cancel()
	if err := rec.record(ctx, event, build); err != nil {
		return fmt.Errorf("record in state %s: %w (the change was made but not recorded)", handler, err)
	}
	return nil
}

// recordTimeout bounds one state append, which must outlive a Ctrl-C: long
// enough for a slow disk or remote state provider, short enough that a
// hung one does not hold pier forever.
const recordTimeout = 2 * time.Minute

// finish handles a worker's result.
func (a *applier) finish(r nodeResult) {
	if r.err != nil {
		a.fail(r.n, r.err)
		return
	}
	a.complete(r.n, r.outputs)
	switch r.n.change.Action {
	case ActionCreate:
		a.result.Created++
	case ActionUpdate:
		a.result.Updated++
	case ActionDestroy:
		a.result.Destroyed++
	case ActionReplace:
		a.result.Created++
		if !r.n.change.CreateBeforeDestroy {
			// Otherwise its deposed half counts the destroy.
			a.result.Destroyed++
		}
	}
}

func (a *applier) complete(n *node, outputs map[string]any) {
	n.status = StatusApplied
	c := n.change
	if c.Action != ActionDestroy {
		a.setKnown(c.Addr(), outputs)
	}
	var elapsed time.Duration
	if !n.started.IsZero() {
		elapsed = time.Since(n.started)
	}
	a.e.emit(Event{Type: EventStatus, Address: c.Addr(), Action: c.Action, Status: StatusApplied, Provider: c.Provider(), Elapsed: elapsed})
	a.wake(n)
}

func (a *applier) setKnown(addr string, outputs map[string]any) {
	if outputs == nil {
		outputs = map[string]any{}
	}
	a.known[addr] = outputs
	a.knownGen++
}

func (a *applier) wake(n *node) {
	for _, d := range n.dependents {
		d.waiting--
		if d.waiting == 0 && d.status == StatusPending && a.pending[d.change.Addr()] == nil {
			a.enqueue(d)
		}
	}
}

func (a *applier) fail(n *node, err error) {
	n.status = StatusErrored
	c := n.change
	re := &ResourceError{Address: c.Addr(), Provider: c.Provider(), Action: c.Action, Err: err}
	a.result.Errors = append(a.result.Errors, re)
	a.e.emit(Event{Type: EventStatus, Address: c.Addr(), Action: c.Action, Status: StatusErrored, Provider: c.Provider(), Err: err})
	a.skipDependents(n, fmt.Errorf("depends on %s, which failed", c.Addr()))
}

func (a *applier) skipDependents(n *node, why error) {
	for _, d := range n.dependents {
		if d.status != StatusPending {
			continue
		}
		d.status = StatusSkipped
		delete(a.pending, d.change.Addr())
		a.result.Skipped = append(a.result.Skipped, d.change.Addr())
		a.e.emit(Event{Type: EventStatus, Address: d.change.Addr(), Action: d.change.Action, Status: StatusSkipped, Provider: d.change.Provider(), Err: why})
		a.skipDependents(d, why)
	}
}

// skipAll marks every node that has not run as skipped.
func (a *applier) skipAll(why error) {
	for _, addr := range sortedAddresses(a.nodes) {
		n := a.nodes[addr]
		if n.status != StatusPending {
			continue
		}
		n.status = StatusSkipped
		a.result.Skipped = append(a.result.Skipped, addr)
		a.e.emit(Event{Type: EventStatus, Address: addr, Action: n.change.Action, Status: StatusSkipped, Provider: n.change.Provider(), Err: why})
	}
}

// failPending fails resources that never became ready although nothing is
// left to run: the source kept them blocked.
func (a *applier) failPending() {
	for _, addr := range sortedAddresses(a.pending) {
		n := a.pending[addr]
		delete(a.pending, addr)
		if n.status != StatusPending {
			continue
		}
		a.fail(n, fmt.Errorf("inputs never became known (waits on %s)", strings.Join(n.change.WaitsOn, ", ")))
	}
	// Nothing may end the run unreported: a node still waiting here lost
	// its wake-up, which is a bug, but the user must see it.
	for _, addr := range sortedAddresses(a.nodes) {
		if n := a.nodes[addr]; n.status == StatusPending {
			a.fail(n, fmt.Errorf("never became ready (waits on %d unfinished operations): this is a bug in pier", n.waiting))
		}
	}
}

// recordOutputs keeps the deployment's outputs in the first state handler,
// so that `pier output` can show them without running any resource's
// provider. Only differences are written.
func (a *applier) recordOutputs(ctx context.Context) error {
	handler := a.primaryHandler()
	if handler == "" {
		return nil
	}
	if a.plan.Destroy {
		return a.writeOutputs(ctx, handler, nil, false)
	}
	snap := a.lastSnap
	if len(a.pending) == 0 && len(a.result.Errors) == 0 && (a.result.Created+a.result.Updated+a.result.Destroyed > 0 || snap == nil) {
		s, err := a.e.resolve(ctx, maps.Clone(a.known))
		if err != nil {
			return err
		}
		snap = s
	}
	if snap == nil {
		return nil
	}
	a.result.Outputs = snap.Outputs
	// After a failure an output may be unknown only because what it reads
	// failed to change; the object, and so the recorded value, is still
	// there.
	partial := len(a.result.Errors) > 0 || len(a.pending) > 0 || len(a.plan.Targets) > 0
	return a.writeOutputs(ctx, handler, snap.Outputs, partial)
}

// writeOutputs records outputs as the deployment's, writing only
// differences from what the state holds. keep keeps recorded outputs
// that outputs lacks.
func (a *applier) writeOutputs(ctx context.Context, handler string, outputs []*source.Output, keep bool) error {
	want := map[string]RecordedOutput{}
	for _, o := range outputs {
		ro := RecordedOutput{Sensitive: o.Sensitive}
		if !o.Sensitive {
			ro.Value = o.Value
		}
		want[o.Name] = ro
	}
	view := a.plan.States[handler]
	var put, remove []string
	for _, name := range sortedAddresses(want) {
		o := want[name]
		if old, ok := view.Outputs[name]; !ok || old.Sensitive != o.Sensitive || !sameInputs(map[string]any{"v": old.Value}, map[string]any{"v": o.Value}) {
			put = append(put, name)
		}
	}
	if !keep {
		for _, name := range sortedAddresses(view.Outputs) {
			if _, ok := want[name]; !ok {
				remove = append(remove, name)
			}
		}
	}
	if len(put)+len(remove) == 0 {
		return nil
	}
	return a.record(ctx, handler, "outputs", func(pb *patchBuilder) error {
		for _, name := range remove {
			pb.removeOutput(name)
		}
		for _, name := range put {
			if err := pb.putOutput(name, want[name]); err != nil {
				return err
			}
		}
		return nil
	})
}

// primaryHandler is the state handler that keeps deployment outputs: the
// first by address.
func (a *applier) primaryHandler() string {
	handlers := sortedAddresses(a.plan.States)
	if len(handlers) == 0 {
		return ""
	}
	return handlers[0]
}
