package engine

import (
	"context"
	"maps"
	"slices"

	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/host/statedoc"
)

// This file reads the states before the deployment resolves, for a plan
// whose source can evaluate its state handlers alone
// ([source.HandlersFirst]): the deployment then resolves once with the
// recorded outputs known, instead of once with none and again for every
// block that reads an output.

// FirstStates are the states read before the deployment resolved.
type FirstStates struct {
	// Snap is the handlers' snapshot.
	Snap *source.Snapshot
	// Set is the states read, when Complete.
	Set *StateSet
	// Complete says every state was read, with no pending operation and
	// no resource recorded twice, and every entry names its provider:
	// what a plan may plan against without first resolving the rest of
	// the deployment with no outputs known.
	Complete bool
	order    []string
	early    *EarlyStates
}

// ReadStatesFirst evaluates the state handlers alone and reads their
// states, in address order as ReadStates does. It returns nil, having
// evaluated nothing, when the source cannot (see [source.HandlersFirst]).
// Pass the result's Early to [Engine.ReadStatesAfter] when the plan
// resolves with no outputs known after all.
func (e *Engine) ReadStatesFirst(ctx context.Context) *FirstStates {
	hf, ok := e.cfg.Source.(source.HandlersFirst)
	l, ok2 := e.cfg.Source.(source.StateHandlerLister)
	_, ok3 := e.cfg.Source.(source.HandlerWatcher)
	if !ok || !ok2 || !ok3 {
		return nil
	}
	// Only a built-in provider's process may run before the deployment
	// resolves (see [Engine.PrestartHandlers]): another's starts once the
	// whole deployment resolved, which fails first when it has an error.
	listed := l.StateHandlers()
	for _, h := range listed {
		if h.Provider == nil || h.Provider.Builtin == "" {
			return nil
		}
	}
	snap, ok := hf.ResolveHandlers(ctx)
	if !ok {
		return nil
	}
	fs := &FirstStates{Snap: snap}
	// The handlers of the state types are a built-in provider's.
	handlers := e.stateHandlers(snap)
	for _, h := range listed {
		handlers[h.Address] = true
	}
	fs.order = slices.Sorted(maps.Keys(handlers))
	es := &EarlyStates{e: e, cancel: func() {}, done: make(chan struct{}), wake: make(chan struct{}, 1)}
	close(es.done)
	fs.early = es
	// The providers are declared and checked as Snapshot does; a check
	// that fails fails the Snapshot that follows, in its place.
	e.providers.Declare(snap.Providers)
	for _, d := range snap.Providers {
		if _, err := e.cfg.declaredOperations(d); err != nil {
			return fs
		}
	}
	ready := map[string]*source.Resource{}
	for _, r := range snap.Ready {
		ready[r.Address.String()] = r
	}
	for _, h := range fs.order {
		r := ready[h]
		if r == nil || r.Stateful() {
			return fs
		}
		ref, err := e.ReadState(ctx, r)
		es.reads = append(es.reads, earlyRead{r: r, ref: ref, err: err})
		if err != nil {
			return fs
		}
	}
	set := &StateSet{Handlers: map[string]*HandlerRef{}, Recorded: map[string]*statedoc.Recorded{}}
	for _, rd := range es.reads {
		h := rd.r.Address.String()
		set.Handlers[h] = rd.ref
		if len(rd.ref.View.Pending) > 0 {
			return fs
		}
		for addr, rec := range rd.ref.View.Entries {
			if _, dup := set.Recorded[addr]; dup || rec.Entry.Provider == "" {
				return fs
			}
			set.Recorded[addr] = rec
		}
	}
	fs.Set, fs.Complete = set, true
	return fs
}

// Early is what ReadStatesAfter takes from the reads: nil for a nil fs.
func (fs *FirstStates) Early() *EarlyStates {
	if fs == nil {
		return nil
	}
	return fs.early
}

// Same reports whether snap has the state handlers read, as read: then
// [Engine.ReadStatesAfter] would have read them from it as they are.
func (fs *FirstStates) Same(e *Engine, snap *source.Snapshot) bool {
	handlers := e.stateHandlers(snap)
	if len(handlers) != len(fs.order) || len(fs.early.reads) != len(fs.order) {
		return false
	}
	for _, h := range fs.order {
		if !handlers[h] {
			return false
		}
	}
	ready := map[string]*source.Resource{}
	for _, r := range snap.Ready {
		if mayBeOneOf(r.Address, handlers) {
			ready[r.Address.String()] = r
		}
	}
	return usable(fs.early.reads, fs.order, ready)
}
