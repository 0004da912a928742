package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/pierhq/pier/schema"
)

// This file carries out one node: the provider calls of a change and
// the records that go with them, on a worker goroutine.

func (a *applier) start(ctx context.Context, n *node) {
	a.running++
	n.status = StatusApplying
	n.started = time.Now()
	c := n.change
	a.e.secrets.set(c.Addr(), c.secretTexts())
	a.e.emit(Event{Type: EventStatus, Address: c.Addr(), Deposed: c.Deposed, Action: c.Action, Status: StatusApplying, Provider: c.Provider()})
	ctx = withChange(a.withWake(ctx, n), c)
	go func() {
		ctx := ctx
		if n.slot != nil {
			ctx = withSlot(ctx, n.slot)
		}
		var out map[string]any
		var err error
		switch {
		case n.replaceStep && c.Action == ActionDestroy:
			err = a.destroyReplaced(ctx, c)
		case n.replaceStep:
			out, err = a.createReplacement(ctx, c, n.replaced)
		default:
			out, err = a.execute(ctx, c)
		}
		if n.slot != nil {
			// Before the scheduler hears of it: it may reserve the slot
			// again at once.
			n.slot.release()
		}
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
	case ActionImport:
		return a.executeImport(ctx, c)
	case ActionCreate:
		r := c.Resource
		if err := a.recordIntent(ctx, c, PendingCreate); err != nil {
			return nil, err
		}
		resp, err := a.e.providers.call(ctx, prov, addr, &schema.Request{CreateResourceRequest: &schema.CreateResourceRequest{
			Type: r.Type, InputProperties: r.Inputs, IsStateful: r.Stateful(),
		}})
		if err != nil {
			return nil, a.intentFailed(ctx, c, PendingCreate, err)
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
		if err := a.recordIntent(ctx, c, pendingUpdate); err != nil {
			return nil, err
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
	case ActionRefresh:
		return a.executeRefresh(ctx, c)
	case ActionForget:
		return a.executeForget(ctx, c)
	case ActionDestroy:
		if c.Deposed != "" {
			return nil, a.destroyDeposed(ctx, c)
		}
		prior := c.Prior.Entry
		if !a.e.providers.declared(prov) {
			return nil, fmt.Errorf("%s", orphanAdvice(prov, c.Address))
		}
		if !a.e.providers.supports(prov, schema.OperationDestroy) {
			return nil, fmt.Errorf("provider %q does not declare the destroy operation, so pier cannot destroy this resource; remove the real object yourself, then run: pier state forget %s", prov, addr)
		}
		if err := a.recordIntent(ctx, c, PendingDestroy); err != nil {
			return nil, err
		}
		if _, err := a.e.providers.call(ctx, prov, addr, &schema.Request{DestroyResourceRequest: &schema.DestroyResourceRequest{
			Resource: schema.ExtantResource{Type: prior.Type, InputProperties: prior.InputProperties, OutputProperties: prior.OutputProperties},
		}}); err != nil {
			return nil, a.intentFailed(ctx, c, PendingDestroy, err)
		}
		return nil, a.record(ctx, c.Prior.Handler, "destroy", func(pb *patchBuilder) error {
			pb.remove(c.Address)
			return nil
		})
	}
	return nil, fmt.Errorf("cannot apply action %s: this is a bug in pier", c.Action)
}

// replace carries out a replacement decided at run time (a resolved
// resource): both steps of a plan's replace in one node. A planned
// replace is two operations of the graph instead, destroyReplaced and
// createReplacement, each recorded.
func (a *applier) replace(ctx context.Context, c *Change) (map[string]any, error) {
	if c.CreateBeforeDestroy {
		return a.createBeforeDestroy(ctx, c)
	}
	if err := a.destroyReplaced(ctx, c); err != nil {
		return nil, err
	}
	return a.createReplacement(ctx, c, c.Prior)
}

// destroyReplaced is a replace's first step: destroy the old object and
// record that it is gone. Destroy first: the new object may need the old
// one's name. The removal is recorded before the create, so a failed
// create leaves a state that says the object is gone, as it is.
func (a *applier) destroyReplaced(ctx context.Context, c *Change) error {
	addr := c.Addr()
	prior := c.Prior.Entry
	if !a.e.providers.supports(prior.Provider, schema.OperationDestroy) {
		return fmt.Errorf("replacing it needs the old object destroyed, but provider %q does not declare the destroy operation (or is no longer declared); remove the real object yourself, then run: pier state forget %s", prior.Provider, addr)
	}
	// A replace is refused before its first step when its create would
	// be: the destroy must not run then.
	if err := a.refusePending(c, PendingCreate); err != nil {
		return err
	}
	if err := a.recordIntent(ctx, c, PendingDestroy); err != nil {
		return err
	}
	if _, err := a.e.providers.call(ctx, prior.Provider, addr, &schema.Request{DestroyResourceRequest: &schema.DestroyResourceRequest{
		Resource: schema.ExtantResource{Type: prior.Type, InputProperties: prior.InputProperties, OutputProperties: prior.OutputProperties},
	}}); err != nil {
		return fmt.Errorf("destroy the %s it was: %w", prior.Type, a.intentFailed(ctx, c, PendingDestroy, err))
	}
	return a.record(ctx, c.Prior.Handler, "destroy", func(pb *patchBuilder) error {
		pb.remove(c.Address)
		return nil
	})
}

// createReplacement is a replace's second step: create the new object,
// once the old one (was) is destroyed, and record it.
func (a *applier) createReplacement(ctx context.Context, c *Change, was *Recorded) (map[string]any, error) {
	addr := c.Addr()
	prov := c.Provider()
	prior := was.Entry
	r := c.Resource
	if err := a.recordIntent(ctx, c, PendingCreate); err != nil {
		return nil, err
	}
	resp, err := a.e.providers.call(ctx, prov, addr, &schema.Request{CreateResourceRequest: &schema.CreateResourceRequest{
		Type: r.Type, InputProperties: r.Inputs, IsStateful: r.Stateful(),
	}})
	if err != nil {
		return nil, fmt.Errorf("the %s it was is destroyed; create the %s: %w", prior.Type, r.Type, a.intentFailed(ctx, c, PendingCreate, err))
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
	if err := a.recordIntent(ctx, c, PendingCreate); err != nil {
		return nil, err
	}
	resp, err := a.e.providers.call(ctx, r.Provider, c.Addr(), &schema.Request{CreateResourceRequest: &schema.CreateResourceRequest{
		Type: r.Type, InputProperties: r.Inputs, IsStateful: r.Stateful(),
	}})
	if err != nil {
		return nil, fmt.Errorf("create the replacement (the old object is untouched): %w", a.intentFailed(ctx, c, PendingCreate, err))
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
