package engine

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/pierhq/pier/host/source"
)

// This file is the scheduler of an apply: which node runs when, what
// a finished or failed node wakes or skips, and the resolves that make
// pending nodes runnable.

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
	case ActionRefresh:
		a.result.Recorded++
	case ActionForget:
		a.result.Forgotten++
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
	err = redactError(err, c.secretTexts())
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
