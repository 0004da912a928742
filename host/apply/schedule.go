package apply

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/pierhq/pier/host/engine"
	"github.com/pierhq/pier/host/execgraph"
	"github.com/pierhq/pier/host/plan"
	"github.com/pierhq/pier/host/redact"
	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/host/statedoc"
)

// This file is the scheduler of an apply: which node runs when, what a
// finished or failed node wakes or skips, and the resolves that make
// pending nodes runnable. The graph's operations are its nodes; the
// members of an expanded composite join them at run time.

// node is one operation in the running graph.
type node struct {
	// run is the node's operation: compiled from the graph, or decided at
	// run time.
	run execgraph.Operation[*statedoc.Recorded]
	// ref is the node's element in the graph; None for a node added at
	// run time.
	ref execgraph.Ref
	// change is what the node does to its resource (see subject).
	change *plan.Change
	// quiet nodes (destroy-absent) are not resources: no events.
	quiet   bool
	waiting int // unfinished nodes this one waits for
	linked  bool
	// dependents are woken when this node finishes.
	dependents []*node
	status     engine.Status
	started    time.Time
	// ahead is the provider the node counts against until a request of
	// its is answered, or nil; requests counts the call slots granted it
	// (see calls.go).
	ahead    *providerCalls
	requests int
	// inLine says the node waits for its first request to be granted;
	// want is that request once its worker asks. shown says it has been
	// shown as applying.
	inLine bool
	want   *callWant
	shown  bool
	// address caches change.Addr() for the scheduler's searches.
	address string
}

// addr is the node's change's address.
func (n *node) addr() string {
	if n.address == "" {
		n.address = n.change.Addr()
	}
	return n.address
}

// nodeResult is a worker's message to the scheduler: its node's outcome,
// or, with want or answered set, a step of one of its provider requests
// (see calls.go). Both travel on one channel, so that a node's outcome
// cannot pass its requests.
type nodeResult struct {
	n       *node
	outputs map[string]any
	err     error
	// want asks for a call slot; answered gives one back.
	want, answered *callWant
}

type resolveResult struct {
	snap *source.Snapshot
	err  error
}

// addNode adds a node the graph did not have, running op: a member of an
// expanded composite, or the destroy of one that is gone.
func (a *applier) addNode(c *plan.Change, op execgraph.Operation[*statedoc.Recorded]) *node {
	n := &node{run: op, ref: execgraph.None, change: c, status: engine.StatusPending}
	a.byAddr[c.Addr()] = n
	a.nodes = append(a.nodes, n)
	a.unlinked = append(a.unlinked, n)
	a.deps.Add(c)
	a.e.Emit(engine.Event{Type: engine.EventStatus, Address: c.Addr(), Deposed: c.Deposed, Action: c.Action, Status: engine.StatusPending, Provider: c.Provider()})
	return n
}

// addDecided adds a node for a change decided at run time; one that
// cannot be compiled fails.
func (a *applier) addDecided(c *plan.Change) {
	d, err := a.compileChange(c)
	n := a.addNode(c, d)
	if err != nil {
		a.fail(n, err)
	}
}

// dependencies lists the nodes a node must wait for: for an operation of
// the graph, its operands and waiters; for one added at run time, the
// changes its own change follows.
func (a *applier) dependencies(n *node) []*node {
	var out []*node
	if n.ref != execgraph.None {
		for _, d := range a.graph.Dependencies(n.ref) {
			if dn := a.nodes[d]; dn != nil {
				out = append(out, dn)
			}
		}
		return out
	}
	for _, d := range a.deps.Deps(n.change) {
		if dn := a.byAddr[d]; dn != nil {
			out = append(out, dn)
		}
	}
	return out
}

// link wires dependencies between the nodes not yet linked. It costs the
// number of new nodes, not of all nodes: it runs after every resolve.
func (a *applier) link() {
	// Each node's address is named once: sorting by Addr named two a
	// comparison, a string each, 20,000 for 1000 nodes.
	type keyed struct {
		addr string
		n    *node
	}
	batch := make([]keyed, len(a.unlinked))
	for i, n := range a.unlinked {
		batch[i] = keyed{n.change.Addr(), n}
	}
	a.unlinked = nil
	slices.SortStableFunc(batch, func(x, y keyed) int { return strings.Compare(x.addr, y.addr) })
	for _, k := range batch {
		n, addr := k.n, k.addr
		if n.linked || n.status != engine.StatusPending {
			n.linked = true
			continue
		}
		n.linked = true
		var failed *node
		for _, d := range a.dependencies(n) {
			switch {
			case d == n || d.status == engine.StatusApplied:
			case d.status == engine.StatusErrored || d.status == engine.StatusSkipped:
				failed = d
			default:
				d.dependents = append(d.dependents, n)
				n.waiting++
			}
		}
		if failed != nil {
			why := fmt.Errorf("depends on %s, which did not apply", failed.change.Addr())
			a.skip(n, why)
			// Nodes linked before this one may already wait on it.
			a.skipDependents(n, why)
			continue
		}
		if n.change.Pending {
			a.pending[addr] = n
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

// run is the scheduling loop. The engine's parallelism sem bounds the
// provider requests in flight, and a provider's own is its process pool's
// size; twice as many nodes may be started, so that the next ones'
// intents are recorded while those requests run (see calls.go).
func (a *applier) run(ctx context.Context, stop <-chan struct{}) {
	sem := a.e.Parallelism()
	a.calls = newCallSlots(sem)
	started := startBound(sem)
	for {
		if !a.stopped {
			select {
			case <-stop:
				a.stopped = true
				a.result.Interrupted = true
			default:
			}
		}
		a.drainLost()
		for !a.stopped && len(a.control) > 0 {
			n := a.control[0]
			a.control = a.control[1:]
			a.destroyAbsent(ctx, n)
		}
		a.grantCalls()
		for !a.stopped && a.running < started {
			n := a.dequeue()
			if n == nil {
				break
			}
			a.start(ctx, n)
		}
		if a.running == 0 && !a.resolving {
			if a.stopped {
				a.skipAll(a.haltReason())
				return
			}
			if a.queued == 0 && len(a.control) == 0 {
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
			switch {
			case r.want != nil:
				a.wantCall(r.want)
				continue
			case r.answered != nil:
				// Its call slot is free, and its provider may have another
				// node started: grant and dequeue again.
				a.freeCall(r.answered)
				continue
			}
			a.running--
			a.finish(r)
			if len(a.pending) > 0 {
				a.resolveAgain = true
			}
		case r := <-a.resolved:
			a.resolving = false
			a.absorb(ctx, r)
		case h := <-a.lostState.lost:
			a.loseHandler(h)
		case <-stop:
			if !a.stopped {
				a.stopped = true
				a.result.Interrupted = true
			}
			stop = nil
		}
		if a.resolveAgain && !a.resolving && !a.stopped && resolveDue(a.knownGen-a.resolvedGen, len(a.nodes)+len(a.planned), a.queued, sem) && a.needResolve() {
			a.startResolve(ctx)
		}
	}
}

// resolveShare is how many resolves a deployment's outputs pay for while
// the ready queues are well stocked: a resolve costs the size of the
// deployment (the source lists every resource, and the applier reads the
// list), so resolving after each output would make an apply cost its
// size squared; after every 1/resolveShare of it, a constant number of
// sizes.
const resolveShare = 32

// resolveDue reports whether a resolve should start now that changed
// outputs arrived since the last one, in a deployment of size resources
// whose ready queues hold queued nodes and whose operations run sem at a
// time. It is due once the queues run short (fewer than two rounds of
// sem), so that the resources it would make ready are there before the
// running operations end, or once the outputs that arrived are a
// 1/resolveShare of the deployment. The run loop resolves regardless of
// this when nothing runs.
func resolveDue(changed, size, queued, sem int) bool {
	return changed > 0 && (queued < 2*sem || changed*resolveShare >= size)
}

// needResolve reports whether some pending node has all it waits on done
// and outputs arrived since the last resolve.
func (a *applier) needResolve() bool {
	if a.knownGen == a.resolvedGen {
		return false
	}
	if a.conditionsWait() {
		return true
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
		snap, err := a.e.Snapshot(ctx, known)
		a.resolved <- resolveResult{snap, err}
	}()
}

// absorb takes a new snapshot: the resolve nodes whose inputs are now
// known decide what they do, and the members of expanded composites join
// the run as nodes of their own. The graph is not changed.
func (a *applier) absorb(ctx context.Context, r resolveResult) {
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
		if !a.absorbed[res] {
			a.absorbed[res] = true
			a.absorbReady(res)
		}
	}
	for _, b := range r.snap.Blocked {
		if !a.absorbedBlocked[b] {
			a.absorbedBlocked[b] = true
			a.absorbBlocked(b)
		}
	}
	a.endExpands(ctx, r.snap)
	a.link()
}

// absorbReady takes a resource the source now resolves: a pending node's
// inputs are known, and it decides what it does; a resource the plan did
// not know (a member of a composite that was structurally blocked) joins
// the run as a node of its own.
func (a *applier) absorbReady(res *source.Resource) {
	if a.absorbConditions(res) {
		return
	}
	addr := res.Address.String()
	if n := a.pending[addr]; n != nil {
		delete(a.pending, addr)
		prior := n.change.Prior
		if prior == nil {
			prior = a.recordedEntry(addr)
		}
		c := a.planner.Decide(res, prior, a.replaceAddrs[addr])
		if c.Action != execgraph.ActionNoOp {
			// The resolved resource may depend on more than the blocked
			// one said (a lazy source may not know a blocked member's
			// dependencies at all): follow those too.
			a.rewait(n, res.DependsOn)
			if n.status != engine.StatusPending {
				return
			}
		}
		// The run-time decision: the node's own change, not the plan's,
		// and its operation, with the inputs now known.
		n.change.Resource, n.change.Action, n.change.Prior, n.change.Pending = res, c.Action, c.Prior, false
		n.run = execgraph.Resolve[*statedoc.Recorded]{Address: addr, Desired: res, Prior: prior, WaitsOn: n.change.WaitsOn}
		if c.Action == execgraph.ActionNoOp {
			a.complete(n, c.Prior.Entry.OutputProperties)
			return
		}
		if n.waiting == 0 {
			a.enqueue(n)
		}
		return
	}
	if a.byAddr[addr] != nil || a.planned[addr] || !a.inTargets(addr) {
		return
	}
	c := a.planner.Decide(res, a.recordedEntry(addr), a.replaceAddrs[addr])
	if c.Action == execgraph.ActionNoOp {
		a.planned[addr] = true
		a.setKnown(addr, c.Prior.Entry.OutputProperties)
		return
	}
	a.addDecided(c)
}

// absorbBlocked takes a resource the source still cannot resolve: a
// pending node follows what it now waits on, and one the plan did not
// know joins the run, pending.
func (a *applier) absorbBlocked(b *source.Blocked) {
	addr := b.Address.String()
	if n := a.byAddr[addr]; n != nil {
		if a.pending[addr] == n {
			a.rewait(n, b.WaitsOn)
		}
		return
	}
	if a.planned[addr] || !a.inTargets(addr) {
		return
	}
	var waits []string
	for _, w := range b.WaitsOn {
		waits = append(waits, w.String())
	}
	c := &plan.Change{Address: b.Address, Action: execgraph.ActionCreate, Resource: b.Resource, Pending: true, WaitsOn: waits, Structural: b.Structural}
	if b.Resource != nil && b.Resource.Stateful() {
		if prior := a.recordedEntry(addr); prior != nil {
			c.Action, c.Prior = execgraph.ActionUpdate, prior
		}
	}
	// Its operation until the source resolves it: a composite found
	// only at run time has no destroy-absent in the graph, so what it
	// held is checked once its members are known.
	var op execgraph.Operation[*statedoc.Recorded] = execgraph.Resolve[*statedoc.Recorded]{Address: addr, Desired: b.Resource, Prior: c.Prior, WaitsOn: waits}
	if b.Structural {
		op = execgraph.DestroyAbsent[*statedoc.Recorded]{Composite: addr}
	}
	a.addNode(c, op)
}

// endExpands ends the expands whose structural blocks cleared: they have
// resolved into members.
func (a *applier) endExpands(ctx context.Context, snap *source.Snapshot) {
	var blocked map[string]bool
	for addr, n := range a.pending {
		if n.change.Resource != nil {
			continue
		}
		if blocked == nil {
			blocked = make(map[string]bool, len(snap.Blocked))
			for _, b := range snap.Blocked {
				blocked[b.Address.String()] = true
			}
		}
		if !blocked[addr] {
			delete(a.pending, addr)
			// An expand of the graph has nothing left to do; a composite
			// found only at run time checks what it held (see above).
			if _, err := n.run.Run(ctx, a); err != nil {
				a.fail(n, err)
				continue
			}
			n.status = engine.StatusApplied
			a.wake(n)
		}
	}
}

// destroyAbsent carries out a destroy-absent node once its expand is
// done, on the scheduling goroutine.
func (a *applier) destroyAbsent(ctx context.Context, n *node) {
	if _, err := n.run.Run(ctx, a); err != nil {
		a.fail(n, err)
		return
	}
	n.status = engine.StatusApplied
	a.wake(n)
	a.link()
}

// Expand ends an expand of the graph once its composite's members are
// known: they run as nodes of their own, and what it held before is its
// destroy-absent's to check, so nothing is left to do.
func (a *applier) Expand(context.Context, execgraph.Expand[*statedoc.Recorded]) error { return nil }

// DestroyAbsent destroys, each by a node of its own, the recorded objects
// op names (every one under the composite when it names none) that the
// composite no longer holds. It runs on the scheduling goroutine.
func (a *applier) DestroyAbsent(_ context.Context, op execgraph.DestroyAbsent[*statedoc.Recorded]) error {
	prefix, err := source.ParseAddress(op.Composite)
	if err != nil {
		return err
	}
	a.destroyAbsentUnder(prefix, op.Priors)
	return nil
}

// destroyAbsentUnder adds the destroys of the objects recorded under
// prefix (candidates, or else every recorded object under it) that the
// last snapshot does not have. Objects under a composite still blocked
// wait for that one.
func (a *applier) destroyAbsentUnder(prefix source.Address, candidates []*statedoc.Recorded) {
	if candidates == nil {
		for _, h := range slices.Sorted(maps.Keys(a.states)) {
			for _, addr := range slices.Sorted(maps.Keys(a.states[h].Entries)) {
				if rec := a.states[h].Entries[addr]; rec.Address.HasPrefix(prefix) && !a.planned[addr] {
					candidates = append(candidates, rec)
				}
			}
		}
	}
	present := map[string]bool{}
	if s := a.lastSnap; s != nil {
		for _, r := range s.Ready {
			present[r.Address.String()] = true
		}
		for _, b := range s.Blocked {
			present[b.Address.String()] = true
		}
	}
	for _, rec := range candidates {
		addr := rec.Address.String()
		if present[addr] || a.byAddr[addr] != nil || a.planned[addr] || !a.inTargets(addr) || (a.lastSnap != nil && plan.UnderStructural(rec.Address, a.lastSnap)) {
			continue
		}
		a.addDecided(a.planner.Destroy(rec))
	}
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
		d := a.byAddr[ws]
		switch {
		case d == nil || d == n || d.status == engine.StatusApplied:
		case d.status == engine.StatusErrored || d.status == engine.StatusSkipped:
			why := fmt.Errorf("depends on %s, which did not apply", ws)
			delete(a.pending, n.change.Addr())
			a.skip(n, why)
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
	return len(a.controls.Targets) == 0 || plan.Targeted(addr, a.controls.Targets)
}

func (a *applier) recordedEntry(addr string) *statedoc.Recorded {
	for _, v := range a.states {
		if r := v.Entries[addr]; r != nil {
			return r
		}
	}
	return nil
}

// enqueue makes a node runnable.
func (a *applier) enqueue(n *node) {
	if a.gate(n) {
		return
	}
	if n.run.Opcode() == execgraph.OpDestroyAbsent {
		a.control = append(a.control, n)
		return
	}
	p := n.change.Provider()
	if _, ok := a.ready[p]; !ok {
		a.providers = append(a.providers, p)
	}
	a.ready[p] = append(a.ready[p], n)
	a.queued++
}

// dequeue takes the next runnable node whose provider admits one more
// started (see [applier.admits]), or returns nil.
func (a *applier) dequeue() *node {
	for _, p := range a.providers {
		q := a.ready[p]
		if len(q) == 0 || !a.admits(p) {
			continue
		}
		// Take the first node whose provider process is warm for it
		// (it previewed the change), keeping the others in order.
		i := a.e.Providers().WarmIndex(p, min(len(q), warmScan), func(i int) string { return q[i].addr() })
		n := q[i]
		copy(q[1:i+1], q[:i])
		q[0] = nil
		a.ready[p] = q[1:]
		a.queued--
		return n
	}
	return nil
}

// warmScan bounds how far into a provider's ready queue dequeue looks for
// a node whose process is warm: far enough that, with a few processes,
// nearly every freed process finds one, and cheap per dequeue.
const warmScan = 64

// finish handles a worker's result.
func (a *applier) finish(r nodeResult) {
	a.endAhead(r.n)
	a.leaveLine(r.n)
	if notSent(r.err) {
		// Refused its first request once the run stopped: it changed
		// nothing, as a node that never started.
		a.skip(r.n, a.haltReason())
		return
	}
	if r.err != nil {
		a.fail(r.n, r.err)
		return
	}
	a.complete(r.n, r.outputs)
	a.count(r.n.change)
}

// count adds a change that is done to the result's totals.
func (a *applier) count(c *plan.Change) {
	switch c.Action {
	case execgraph.ActionCreate:
		a.result.Created++
	case execgraph.ActionUpdate:
		a.result.Updated++
	case execgraph.ActionDestroy:
		a.result.Destroyed++
	case execgraph.ActionRefresh:
		a.result.Recorded++
	case execgraph.ActionForget:
		a.result.Forgotten++
	case execgraph.ActionImport:
		a.result.Imported++
	case execgraph.ActionMove:
		a.result.Moved++
	case execgraph.ActionReplace:
		a.result.Created++
		if !c.CreateBeforeDestroy {
			// Otherwise its deposed half counts the destroy.
			a.result.Destroyed++
		}
	}
}

func (a *applier) complete(n *node, outputs map[string]any) {
	c := n.change
	if c.Action != execgraph.ActionDestroy {
		a.setKnown(c.Addr(), outputs)
	}
	if a.hold(n) {
		return
	}
	a.applied(n)
}

// applied marks a node done and wakes its dependents.
func (a *applier) applied(n *node) {
	n.status = engine.StatusApplied
	c := n.change
	var elapsed time.Duration
	if !n.started.IsZero() {
		elapsed = time.Since(n.started)
	}
	a.e.Emit(engine.Event{Type: engine.EventStatus, Address: c.Addr(), Deposed: c.Deposed, Action: c.Action, Status: engine.StatusApplied, Provider: c.Provider(), Elapsed: elapsed})
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
		if d.waiting == 0 && d.status == engine.StatusPending && a.pending[d.change.Addr()] != d {
			a.enqueue(d)
		}
	}
}

func (a *applier) fail(n *node, err error) {
	n.status = engine.StatusErrored
	c := n.change
	err = redact.Error(err, c.SecretTexts())
	re := &ResourceError{Address: c.Addr(), Provider: c.Provider(), Action: c.Action, Err: err}
	a.result.Errors = append(a.result.Errors, re)
	a.e.Emit(engine.Event{Type: engine.EventStatus, Address: c.Addr(), Deposed: c.Deposed, Action: c.Action, Status: engine.StatusErrored, Provider: c.Provider(), Err: err})
	a.skipDependents(n, fmt.Errorf("depends on %s, which failed", c.Addr()))
}

// skip marks a node skipped and says so, once per address: the two steps
// of a replace are one resource.
func (a *applier) skip(n *node, why error) {
	n.status = engine.StatusSkipped
	if n.quiet {
		return
	}
	addr := n.change.Addr()
	if !slices.Contains(a.result.Skipped, addr) {
		a.result.Skipped = append(a.result.Skipped, addr)
	}
	a.e.Emit(engine.Event{Type: engine.EventStatus, Address: addr, Action: n.change.Action, Status: engine.StatusSkipped, Provider: n.change.Provider(), Err: why})
}

func (a *applier) skipDependents(n *node, why error) {
	for _, d := range n.dependents {
		if d.status != engine.StatusPending {
			continue
		}
		delete(a.pending, d.change.Addr())
		a.skip(d, why)
		a.skipDependents(d, why)
	}
}

// skipAll marks every node that has not run as skipped.
func (a *applier) skipAll(why error) {
	a.releaseHeld()
	for _, n := range a.sortedNodes() {
		if n.status == engine.StatusPending {
			a.skip(n, why)
		}
	}
}

func (a *applier) sortedNodes() []*node {
	var out []*node
	for _, n := range a.nodes {
		if n != nil {
			out = append(out, n)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].change.Addr() < out[j].change.Addr() })
	return out
}

// failPending fails resources that never became ready although nothing is
// left to run: the source kept them blocked.
func (a *applier) failPending() {
	a.failConditionWaits()
	for _, addr := range slices.Sorted(maps.Keys(a.pending)) {
		n := a.pending[addr]
		delete(a.pending, addr)
		if n.status != engine.StatusPending {
			continue
		}
		a.fail(n, fmt.Errorf("%s", failPendingMessage(n)))
	}
	// Nothing may end the run unreported: a node still waiting here lost
	// its wake-up, which is a bug, but the user must see it.
	for _, n := range a.sortedNodes() {
		if n.status == engine.StatusPending && !n.quiet {
			a.fail(n, fmt.Errorf("never became ready (waits on %d unfinished operations): this is a bug in pier", n.waiting))
		}
	}
}
