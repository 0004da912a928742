package engine

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/host/statedoc"
	"github.com/pierhq/pier/schema"
)

// ResolveRequest says what became of the object of a pending operation,
// as the user found out by checking.
type ResolveRequest struct {
	Address string
	// State names the state handler, when several hold a pending
	// operation for Address.
	State string
	// Created says the object exists; otherwise it is absent. For a
	// pending create, ID is the object's provider-specific id, to import
	// it: pier records an object only with the outputs its provider
	// reports, never with outputs made up.
	Created bool
	ID      string
}

// ResolveResult says what Resolve recorded.
type ResolveResult struct {
	Address string
	Handler string
	Pending statedoc.PendingOperation
	// Imported is set when a pending create was resolved by importing
	// the object.
	Imported *ImportResult
	// Forgot says the record of the object went with the pending destroy.
	Forgot bool
}

// Resolve settles a pending operation (see pending.go) the way the user
// says, with one "resolve" event (an "import" event for an imported
// object), in the state that holds it. No provider is asked to change
// anything:
//
//   - a pending create, absent: the intent is cleared and the next apply
//     creates the resource;
//   - a pending create, created with an id: the object is imported, which
//     records it and clears the intent in one event; its provider must
//     declare import;
//   - a pending destroy, created (the object still exists): the intent is
//     cleared and the record stays;
//   - a pending destroy, absent: the record and the intent go.
func (e *Engine) Resolve(ctx context.Context, req ResolveRequest) (ResolveResult, error) {
	a, err := source.ParseAddress(req.Address)
	if err != nil {
		return ResolveResult{}, err
	}
	addr := a.String()
	set, snap, err := e.readStatesOnly(ctx)
	if err != nil {
		return ResolveResult{}, err
	}
	states := set.Views()
	if req.State != "" && states[req.State] == nil {
		return ResolveResult{}, fmt.Errorf("%s is not a state handler of this deployment (its state handlers: %s)", req.State, strings.Join(slices.Sorted(maps.Keys(states)), ", "))
	}
	var in []string
	for _, h := range slices.Sorted(maps.Keys(states)) {
		if states[h].Pending[addr] != nil && (req.State == "" || req.State == h) {
			in = append(in, h)
		}
	}
	switch {
	case len(in) == 0 && req.State != "":
		return ResolveResult{}, fmt.Errorf("%s has no pending operation in state %s; pier plan names every pending operation", addr, req.State)
	case len(in) == 0:
		return ResolveResult{}, fmt.Errorf("%s has no pending operation in any state of this deployment; pier plan names every pending operation", addr)
	case len(in) > 1:
		return ResolveResult{}, fmt.Errorf("%s has pending operations in states %s; name one with --state", addr, strings.Join(in, ", "))
	}
	h := in[0]
	v := states[h]
	p := *v.Pending[addr]
	res := ResolveResult{Address: addr, Handler: h, Pending: p}
	event := "resolve"
	var build func(*statedoc.PatchBuilder) error
	switch {
	case p.Operation == statedoc.PendingCreate && req.Created:
		if err := e.canImportPending(a, h, p, req.ID, v.Entries[addr] != nil); err != nil {
			return res, err
		}
		im, err := e.importInto(ctx, set, snap, a, req.ID)
		if err != nil {
			return res, err
		}
		res.Imported = &im
		return res, nil
	case req.ID != "":
		return res, fmt.Errorf("an id is only for a pending create of an object that exists (--created ID); this is a pending %s", p.Operation)
	case p.Operation == statedoc.PendingCreate:
		build = func(pb *statedoc.PatchBuilder) error { pb.ClearPending(a); return nil }
	case req.Created:
		build = func(pb *statedoc.PatchBuilder) error { pb.ClearPending(a); return nil }
	default:
		// remove clears the intent too: one event.
		res.Forgot = true
		build = func(pb *statedoc.PatchBuilder) error { pb.Remove(a); return nil }
	}
	ref := set.Handlers[h]
	r := NewRecorder(e, h, ref)
	defer r.Close()
	if err := r.Record(ctx, event, build); err != nil {
		return res, fmt.Errorf("resolve the pending %s of %s in state %s (provider %s): %w", p.Operation, addr, h, ref.Resource.Provider, err)
	}
	return res, nil
}

// canImportPending checks that a pending create can be resolved as
// created: by importing the object, which needs its id and a provider
// that declares import.
func (e *Engine) canImportPending(a source.Address, h string, p statedoc.PendingOperation, id string, recorded bool) error {
	switch {
	case recorded:
		return fmt.Errorf("state %s still records the object %s was replacing, so a second object cannot be recorded there: if the new object exists, remove it yourself, then run pier state resolve %s --absent, and the next apply replaces it again", h, a, a)
	case !e.providers.Supports(p.Provider, schema.OperationImport):
		return fmt.Errorf("provider %q does not declare import, so pier cannot learn the outputs of the object its interrupted create may have made, and records no object with made-up outputs: if it exists, remove it yourself, then run pier state resolve %s --absent, and the next apply creates it", p.Provider, a)
	case id == "":
		return fmt.Errorf("--created needs the object's id, to import it from provider %q: pier state resolve %s --created ID (the id pier import takes)", p.Provider, a)
	}
	return nil
}
