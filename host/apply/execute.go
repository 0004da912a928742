package apply

import (
	"context"
	"fmt"

	"github.com/pierhq/pier/host/engine"
	"github.com/pierhq/pier/host/plan"

	"github.com/pierhq/pier/host/execgraph"
	"github.com/pierhq/pier/host/statedoc"
	"github.com/pierhq/pier/schema"
)

// This file carries out one node: its operation, compiled from the graph
// (or decided at run time), called on the applier as the graph's
// [execgraph.Operations], on a worker goroutine. Each method makes the
// provider calls of its opcode and the records that go with them.

var _ execgraph.Operations[*statedoc.Recorded] = (*applier)(nil)

func (a *applier) start(ctx context.Context, n *node) {
	a.running++
	n.status = engine.StatusApplying
	c := n.change
	a.e.Secrets().Set(c.Addr(), c.SecretTexts())
	if callsProvider(n.run) {
		// Shown as applying once its first request is granted.
		a.startAhead(n)
	} else {
		a.showApplying(n)
	}
	ctx = withChange(withNode(ctx, n), c)
	op := n.run
	a.workers.Go(func() {
		var out map[string]any
		err := a.recordable(c)
		if err == nil {
			out, err = op.Run(ctx, a)
		}
		a.done <- nodeResult{n: n, outputs: out, err: err}
	})
}

// recordable refuses, before any provider call, a change that cannot be
// recorded: one whose state handler the plan did not read.
func (a *applier) recordable(c *plan.Change) error {
	if r := c.Resource; r != nil && r.Stateful() && a.recorders[r.State.String()] == nil {
		return fmt.Errorf("%s: state handler %s was not read when planning, so nothing was done: a resource known only during apply must use a state handler the plan already reads", r.Range, r.State)
	}
	return nil
}

// Create creates a resource and records it. When it replaces an object
// (op.Replaces), that object's Destroy ran first.
func (a *applier) Create(ctx context.Context, op execgraph.Create[*statedoc.Recorded]) (map[string]any, error) {
	r := op.Desired
	c := &plan.Change{Address: r.Address, Action: execgraph.ActionCreate, Resource: r}
	if err := a.recordIntent(ctx, c, statedoc.PendingCreate); err != nil {
		return nil, err
	}
	resp, err := a.call(ctx, r.Provider, c.Addr(), &schema.Request{CreateResourceRequest: &schema.CreateResourceRequest{
		Type: r.Type, InputProperties: r.Inputs, IsStateful: r.Stateful(), Plan: r.ProviderPlan,
	}})
	if err != nil {
		err = a.intentFailed(ctx, c, statedoc.PendingCreate, err)
		if was := op.Replaces; was != nil {
			err = fmt.Errorf("the %s it was is destroyed; create the %s: %w", was.Entry.Type, r.Type, err)
		}
		return nil, err
	}
	out := resp.CreateResourceResponse.OutputProperties
	return out, a.recordPut(ctx, "create", c, out)
}

// Update updates a resource in place and records it; when only its
// record moves to another state, the provider is not asked.
func (a *applier) Update(ctx context.Context, op execgraph.Update[*statedoc.Recorded]) (map[string]any, error) {
	r := op.Desired
	c := &plan.Change{Address: r.Address, Action: execgraph.ActionUpdate, Resource: r, Prior: op.Prior}
	prior := op.Prior.Entry
	if plan.MovesState(r, op.Prior) && prior.Type == r.Type && plan.SameInputs(r.Inputs, prior.InputProperties) {
		// Only the record moves; the provider has nothing to change.
		return prior.OutputProperties, a.recordPut(ctx, "update", c, prior.OutputProperties)
	}
	if err := a.recordIntent(ctx, c, pendingUpdate); err != nil {
		return nil, err
	}
	resp, err := a.call(ctx, r.Provider, c.Addr(), &schema.Request{UpdateResourceRequest: &schema.UpdateResourceRequest{
		Resource:        schema.ExtantResource{Type: prior.Type, InputProperties: prior.InputProperties, OutputProperties: prior.OutputProperties},
		InputProperties: r.Inputs, Plan: r.ProviderPlan,
	}})
	if err != nil {
		return nil, err
	}
	out := resp.UpdateResourceResponse.OutputProperties
	return out, a.recordPut(ctx, "update", c, out)
}

// Destroy destroys a recorded object and records that it is gone. As a
// replace's first step (op.Replacing) it runs before the create: the new
// object may need the old one's name, and the removal is recorded first,
// so a failed create leaves a state that says the object is gone, as it
// is.
func (a *applier) Destroy(ctx context.Context, op execgraph.Destroy[*statedoc.Recorded]) error {
	rec := op.Prior
	c := &plan.Change{Address: rec.Address, Action: execgraph.ActionDestroy, Prior: rec}
	prior, prov, addr := rec.Entry, rec.Entry.Provider, c.Addr()
	if op.Replacing {
		if !a.e.Providers().Supports(prov, schema.OperationDestroy) {
			return fmt.Errorf("replacing it needs the old object destroyed, but provider %q does not declare the destroy operation (or is no longer declared); remove the real object yourself, then run: pier state forget %s", prov, addr)
		}
		// A replace is refused before its first step when its create
		// would be: the destroy must not run then.
		if err := a.refusePending(c, statedoc.PendingCreate); err != nil {
			return err
		}
	} else {
		if !a.e.Providers().Declared(prov) {
			return fmt.Errorf("%s", plan.OrphanAdvice(prov, c.Address))
		}
		if !a.e.Providers().Supports(prov, schema.OperationDestroy) {
			return fmt.Errorf("provider %q does not declare the destroy operation, so pier cannot destroy this resource; remove the real object yourself, then run: pier state forget %s", prov, addr)
		}
	}
	if err := a.recordIntent(ctx, c, statedoc.PendingDestroy); err != nil {
		return err
	}
	if _, err := a.call(ctx, prov, addr, &schema.Request{DestroyResourceRequest: &schema.DestroyResourceRequest{
		Resource: schema.ExtantResource{Type: prior.Type, InputProperties: prior.InputProperties, OutputProperties: prior.OutputProperties},
	}}); err != nil {
		err = a.intentFailed(ctx, c, statedoc.PendingDestroy, err)
		if op.Replacing {
			err = fmt.Errorf("destroy the %s it was: %w", prior.Type, err)
		}
		return err
	}
	return a.record(ctx, rec.Handler, "destroy", func(pb *statedoc.PatchBuilder) error {
		pb.Remove(c.Address)
		return nil
	})
}

// CreateDepose creates the replacement and records it as current with
// the old object as deposed, in one event: at no point does the state
// lack an object that exists. A DestroyDeposed of op.DeposeKey destroys
// the old object later.
func (a *applier) CreateDepose(ctx context.Context, op execgraph.CreateDepose[*statedoc.Recorded]) (map[string]any, error) {
	r := op.Desired
	c := &plan.Change{Address: r.Address, Action: execgraph.ActionReplace, Resource: r, Prior: op.Prior, CreateBeforeDestroy: true, DeposeKey: op.DeposeKey}
	if err := a.recordIntent(ctx, c, statedoc.PendingCreate); err != nil {
		return nil, err
	}
	resp, err := a.call(ctx, r.Provider, c.Addr(), &schema.Request{CreateResourceRequest: &schema.CreateResourceRequest{
		Type: r.Type, InputProperties: r.Inputs, IsStateful: r.Stateful(), Plan: r.ProviderPlan,
	}})
	if err != nil {
		return nil, fmt.Errorf("create the replacement (the old object is untouched): %w", a.intentFailed(ctx, c, statedoc.PendingCreate, err))
	}
	out := resp.CreateResourceResponse.OutputProperties
	old := op.Prior.Entry
	return out, a.recordPutWith(ctx, "create", c, out, func(pb *statedoc.PatchBuilder) error {
		return pb.Depose(c.Address, op.DeposeKey, old)
	})
}

// DestroyDeposed destroys a deposed object and records that it is gone.
// It records no intent: the object stays recorded until its destroy is,
// and every apply destroys it again.
func (a *applier) DestroyDeposed(ctx context.Context, op execgraph.DestroyDeposed[*statedoc.Recorded]) error {
	rec := op.Deposed
	prior := rec.Entry
	prov := prior.Provider
	if !a.e.Providers().Supports(prov, schema.OperationDestroy) {
		return fmt.Errorf("provider %q does not declare the destroy operation (or is no longer declared), so pier cannot destroy this deposed object; remove the real object yourself, then run: pier state forget %s", prov, rec.Address)
	}
	if _, err := a.call(ctx, prov, rec.Address.String()+engine.DeposedSuffix(op.Key), &schema.Request{DestroyResourceRequest: &schema.DestroyResourceRequest{
		Resource: schema.ExtantResource{Type: prior.Type, InputProperties: prior.InputProperties, OutputProperties: prior.OutputProperties},
	}}); err != nil {
		return fmt.Errorf("destroy the deposed object (it stays recorded; the next apply tries again): %w", err)
	}
	return a.record(ctx, rec.Handler, "destroy", func(pb *statedoc.PatchBuilder) error {
		pb.RemoveDeposed(rec.Address, op.Key)
		return nil
	})
}

// Resolve carries out a resource the plan left to run time, once the
// source has resolved it (op.Desired) and the scheduler has found it
// changes: it decides as the scheduler did (see absorb) and carries that
// out. A replace decided at run time destroys first, whatever the
// resource's lifecycle says: nothing would destroy a deposed object
// later in this run.
func (a *applier) Resolve(ctx context.Context, op execgraph.Resolve[*statedoc.Recorded]) (map[string]any, error) {
	c := a.planner.Decide(op.Desired, op.Prior, a.replaceAddrs[op.Address])
	c.Resource, c.CreateBeforeDestroy, c.DeposeKey = op.Desired, false, ""
	d, err := a.compileChange(c)
	if err != nil {
		return nil, err
	}
	return d.Run(ctx, a)
}

// decided is a change decided at run time (a resolved resource, a member
// of an expanded composite, the destroy of one gone) as the operations
// that carry it out, run in order by one node.
type decided []execgraph.Operation[*statedoc.Recorded]

// compileChange gives a change decided at run time the operations a
// plan's graph carries the same change out by: the opcodes
// [execgraph.Steps] lowers its action to, as the graph builder lowers a
// planned change. They are built directly, not through a graph of their
// own: a chain of resources known only during apply runs one per
// resource, and a builder's maps would cost more than the change.
func (a *applier) compileChange(c *plan.Change) (decided, error) {
	steps, err := execgraph.Steps(execgraph.Change{Action: c.Action, CreateBeforeDestroy: c.CreateBeforeDestroy})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.Addr(), err)
	}
	r, prior := c.Resource, c.Prior
	state := ""
	if r != nil && r.State != nil {
		state = r.State.String()
	}
	out := make(decided, 0, len(steps))
	for _, op := range steps {
		switch op {
		case execgraph.OpCreate:
			// A replace's create names the object its destroy removed.
			var replaces *statedoc.Recorded
			if c.Action == execgraph.ActionReplace {
				replaces = prior
			}
			out = append(out, execgraph.Create[*statedoc.Recorded]{Desired: r, Provider: a.decls[r.Provider], State: state, Replaces: replaces})
		case execgraph.OpUpdate:
			out = append(out, execgraph.Update[*statedoc.Recorded]{Desired: r, Prior: prior, Provider: a.decls[r.Provider], State: state, PriorState: prior.Handler})
		case execgraph.OpDestroy:
			out = append(out, execgraph.Destroy[*statedoc.Recorded]{Prior: prior, Provider: a.decls[prior.Entry.Provider], State: prior.Handler, Replacing: c.Action == execgraph.ActionReplace})
		case execgraph.OpCreateDepose:
			out = append(out, execgraph.CreateDepose[*statedoc.Recorded]{Desired: r, Prior: prior, Provider: a.decls[r.Provider], State: state, DeposeKey: c.DeposeKey})
		default:
			return nil, fmt.Errorf("%s: cannot apply action %s at run time: this is a bug in pier", c.Addr(), c.Action)
		}
	}
	return out, nil
}

// Opcode is that of the last operation, which yields the final state.
func (d decided) Opcode() execgraph.Opcode {
	if len(d) == 0 {
		return execgraph.OpInvalid
	}
	return d[len(d)-1].Opcode()
}

// Run runs the operations in order; the outputs are the last one's.
func (d decided) Run(ctx context.Context, ops execgraph.Operations[*statedoc.Recorded]) (map[string]any, error) {
	var out map[string]any
	for _, op := range d {
		var err error
		if out, err = op.Run(ctx, ops); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Refresh records one object as a refresh-only read found it (op.Now):
// its entry as read, or, when it is gone, no entry, in the state the read
// was of. No provider is called.
func (a *applier) Refresh(ctx context.Context, op execgraph.Refresh[*statedoc.Recorded]) (map[string]any, error) {
	addr := op.Prior.Address
	if op.Now == nil {
		return nil, a.record(ctx, op.State, "refresh", func(pb *statedoc.PatchBuilder) error {
			pb.Remove(addr)
			return nil
		})
	}
	now := op.Now.Entry
	return now.OutputProperties, a.record(ctx, op.State, "refresh", func(pb *statedoc.PatchBuilder) error { return pb.Put(addr, now) })
}

// Import records the object an import block adopts, with an
// "import" event: the graph's import operation (OpImport). For an import
// alone that is the whole change; an update or replace of the imported
// object is an operation that follows it, so that a failed update leaves
// the object recorded as it is.
func (a *applier) Import(ctx context.Context, op execgraph.Import[*statedoc.Recorded]) (map[string]any, error) {
	rec := op.Imported
	entry := rec.Entry
	if err := a.record(ctx, rec.Handler, "import", func(pb *statedoc.PatchBuilder) error { return pb.Put(rec.Address, entry) }); err != nil {
		return nil, fmt.Errorf("import id %q: %w", op.ID, err)
	}
	return entry.OutputProperties, nil
}

// Move records a move (the graph's move operation), as pier state mv
// does: one "move" event in the record's state that adds it at its new
// address and removes it from the old one, so it happens entirely or not
// at all.
func (a *applier) Move(ctx context.Context, op execgraph.Move[*statedoc.Recorded]) (map[string]any, error) {
	from, to, entry := op.Prior.Address, op.Desired.Address, op.Prior.Entry
	err := a.record(ctx, op.Prior.Handler, "move", func(pb *statedoc.PatchBuilder) error {
		if err := pb.Put(to, entry); err != nil {
			return err
		}
		pb.Remove(from)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("move %s to %s in state %s: %w", from, to, op.Prior.Handler, err)
	}
	return entry.OutputProperties, nil
}

// Forget removes a record a removed block with destroy = false lets go
// of, with a "forget" event; its provider is not asked.
func (a *applier) Forget(ctx context.Context, op execgraph.Forget[*statedoc.Recorded]) error {
	return a.record(ctx, op.Prior.Handler, "forget", func(pb *statedoc.PatchBuilder) error {
		pb.Remove(op.Prior.Address)
		return nil
	})
}
