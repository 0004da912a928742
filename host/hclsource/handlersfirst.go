package hclsource

import (
	"context"

	"github.com/hashicorp/hcl/v2"
	"github.com/pierhq/pier/host/source"
)

var _ source.HandlersFirst = (*Deployment)(nil)

// ResolveHandlers implements [source.HandlersFirst]: it evaluates the
// state handler blocks, which read no resource, as the first Resolve
// would, and leaves every other block queued for the next Resolve, which
// then evaluates it once, with whatever outputs that Resolve knows.
func (d *Deployment) ResolveHandlers(ctx context.Context) (*source.Snapshot, bool) {
	handlers := d.handlersFirst()
	if handlers == nil || ctx.Err() != nil {
		return nil, false
	}
	evaluations := d.evaluations
	d.started = true
	for _, o := range d.outputs {
		o.dirty = true
	}
	for _, c := range d.checks {
		c.dirty = true
	}
	for r := range handlers {
		d.queueBlock(r)
	}
	var diags hcl.Diagnostics
	for d.pending.len() > 0 {
		// A handler's evaluation queues its readers: they are left for
		// the next Resolve, which evaluates every block not evaluated.
		r := d.pending.pop()
		r.whole, r.dirty = false, nil
		if handlers[r] {
			diags = append(diags, d.evalResource(r, source.Outputs{})...)
		}
	}
	if len(diags) > 0 {
		// Undone: the first Resolve evaluates the handlers again and
		// reports what they found, in its order.
		for r := range handlers {
			r.eval, r.hoist, r.hoisted = resourceEval{}, nil, false
		}
		d.retry, d.started, d.evaluations = nil, false, evaluations
		return nil, false
	}
	d.rest = true
	lastReady, lastBlocked := d.lastReady, d.lastBlocked
	s := d.snapshot()
	d.lastReady, d.lastBlocked = lastReady, lastBlocked
	return s, true
}

// handlersFirst returns the state handler blocks when ResolveHandlers can
// evaluate them alone (see [source.HandlersFirst]), and nil otherwise.
// They are the blocks a state = names and those of a built-in provider's
// state types: with no count or for_each reading a resource, every block
// has the same instances in every Resolve, so these are the handlers of
// every snapshot. A deployment where no block reads another's outputs
// gains nothing from it, and is left to the first Resolve.
func (d *Deployment) handlersFirst() map[*resourceDecl]bool {
	if d.started || len(d.imports) > 0 || len(d.removed) > 0 || len(d.moved) > 0 || len(d.units) > 1 {
		return nil
	}
	// With no block reading outputs, the first Resolve is the one that
	// evaluates anything, and it converts no outputs to cty; one with the
	// recorded outputs known would convert every instance's (in a no-op
	// of 1000 time_static, 4 MB and a third of the run).
	if len(d.watched) == 0 {
		return nil
	}
	for _, p := range d.providers {
		if p.Refresh {
			return nil
		}
	}
	handlers := map[*resourceDecl]bool{}
	for _, r := range d.resources {
		if r.expandRefs || r.refresh {
			return nil
		}
		if r.stateRef != nil {
			handlers[r.stateRef.target] = true
		}
		if p := d.providers[r.provider]; p != nil && p.Builtin != "" && r.state == nil && d.builtins[p.Builtin].IsStateType(r.typ) {
			handlers[r] = true
		}
	}
	for r := range handlers {
		if r == nil || len(r.refs) > 0 || len(r.dependsOn) > 0 || len(r.conditions) > 0 {
			return nil
		}
	}
	if len(handlers) == 0 {
		return nil
	}
	return handlers
}
