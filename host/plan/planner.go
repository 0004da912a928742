package plan

import (
	"context"
	"maps"
	"slices"

	"github.com/pierhq/pier/host/engine"
	"github.com/pierhq/pier/host/execgraph"
	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/host/statedoc"
)

// planner builds a plan; it runs on one goroutine.
type planner struct {
	e    *engine.Engine
	plan *Plan
	// recorded are all entries across the states, by address.
	recorded map[string]*statedoc.Recorded
	// duplicate is the first resource found recorded in two states:
	// planning refuses it, while the state commands must still work, to
	// let pier state forget resolve it.
	duplicate error
	// replace are the addresses --replace names.
	replace map[string]bool
	// imports are the import blocks planned, by address.
	imports map[string]*ImportSpec
	// moves are the moved blocks' moves, by new address.
	moves map[string]*MoveSpec
	// same are the resources settle found unchanged: their inputs, as
	// kept, are their entries' (see [planner.unchanged]).
	same map[*source.Resource]bool
}

// Make plans the deployment on e against its recorded state, steered by
// o. It starts the state handlers' providers (to read state) and no other
// provider, except those a --refresh reads through or a preview asks.
func Make(ctx context.Context, e *engine.Engine, o Options) (*Plan, error) {
	return run(ctx, e, false, o)
}

// MakeDestroy plans the destruction of everything the deployment's states
// hold.
func MakeDestroy(ctx context.Context, e *engine.Engine) (*Plan, error) {
	return run(ctx, e, true, Options{})
}

// run is Make and MakeDestroy: the steps of a plan, in order.
func run(ctx context.Context, e *engine.Engine, destroyAll bool, o Options) (*Plan, error) {
	pl := newPlanner(e, destroyAll, o)
	e.PrestartHandlers(ctx)
	// A plan that reads nothing and destroys nothing reads its states
	// first, when its source can (see [planner.first]).
	var first *engine.FirstStates
	if readStatesFirst && !destroyAll && !o.Refresh && !o.RefreshOnly {
		first = e.ReadStatesFirst(ctx)
	}
	if first != nil && first.Complete {
		fp := newPlanner(e, destroyAll, o)
		snap, ok, err := fp.first(ctx, first)
		if ok {
			if err != nil {
				return nil, err
			}
			return fp.planSettled(ctx, snap)
		}
	}
	// The states are read while the deployment resolves.
	early := first.Early()
	if first == nil {
		early = e.StartStateReads(ctx)
	}
	snap, err := e.Snapshot(ctx, pl.plan.Known)
	if err != nil {
		early.Abandon()
		return nil, err
	}
	if err := pl.readStates(ctx, snap, early); err != nil {
		return nil, err
	}
	if pl.duplicate != nil {
		return nil, pl.duplicate
	}
	if !destroyAll {
		if err := pl.moveBlocks(snap); err != nil {
			return nil, err
		}
	}
	pl.adoptProviders(snap)
	// A destroy reads nothing: an object a read found gone would be
	// left recorded instead of destroyed.
	if !destroyAll {
		if err := pl.refresh(ctx, snap, o); err != nil {
			return nil, err
		}
	}
	if o.RefreshOnly && !destroyAll {
		return pl.planRefreshOnly(ctx)
	}
	pl.imports = map[string]*ImportSpec{}
	if !destroyAll {
		if err := pl.importBlocks(ctx, snap); err != nil {
			return nil, err
		}
	}
	if destroyAll {
		pl.plan.Snapshot = snap
		pl.planDestroyAll()
		if err := pl.finish(snap); err != nil {
			return nil, err
		}
		return pl.plan, nil
	}
	snap, err = pl.settle(ctx, snap)
	if err != nil {
		return nil, err
	}
	return pl.planSettled(ctx, snap)
}

// newPlanner is a planner that has read nothing yet.
func newPlanner(e *engine.Engine, destroyAll bool, o Options) *planner {
	pl := &planner{e: e, plan: &Plan{States: map[string]*statedoc.View{}, Known: source.Outputs{}, Destroy: destroyAll, Targets: o.Targets, replace: map[string]bool{}, handlers: map[string]*engine.HandlerRef{}, madeBy: e}, recorded: map[string]*statedoc.Recorded{}}
	for _, a := range o.Replace {
		pl.plan.replace[a] = true
	}
	pl.replace = pl.plan.replace
	return pl
}

// planSettled plans the settled snapshot's changes: the steps of a plan
// after settle.
func (pl *planner) planSettled(ctx context.Context, snap *source.Snapshot) (*Plan, error) {
	e := pl.e
	var err error
	if snap, err = pl.markSchemaSensitive(ctx, snap); err != nil {
		return nil, err
	}
	pl.plan.Snapshot = snap
	if err := pl.classify(snap); err != nil {
		return nil, err
	}
	pl.markImports()
	pl.markMoves()
	pl.noteDrift()
	// Before any provider is asked about a change: a precondition says
	// what the provider would otherwise fail on less clearly.
	if err := pl.checkConditions(); err != nil {
		return nil, err
	}
	if err := checkExecutables(e, pl.plan); err != nil {
		return nil, err
	}
	if err := checkTerraformInputs(ctx, e, pl.plan); err != nil {
		return nil, err
	}
	// After the input check: an input a provider does not know is better
	// reported with its position than as a failed preview.
	if err := previewChanges(ctx, e, pl.plan); err != nil {
		return nil, err
	}
	if err := pl.finish(snap); err != nil {
		return nil, err
	}
	pl.plan.Warnings = append(pl.plan.Warnings, CheckWarnings(snap)...)
	return pl.plan, nil
}

// readStates reads every state (see [engine.Engine.ReadStates]) into the plan:
// the states, their handlers' outputs as known, and each handler's
// change, which runs before planning.
func (pl *planner) readStates(ctx context.Context, snap *source.Snapshot, early *engine.EarlyStates) error {
	set, err := pl.e.ReadStatesAfter(ctx, snap, early)
	if err != nil {
		return err
	}
	pl.readSet(set)
	return nil
}

// readSet takes the states read into the plan.
func (pl *planner) readSet(set *engine.StateSet) {
	for _, h := range slices.Sorted(maps.Keys(set.Handlers)) {
		ref := set.Handlers[h]
		pl.plan.handlers[h] = ref
		pl.plan.States[h] = ref.View
		pl.plan.Known[h] = ref.Outputs
		pl.plan.add(&Change{Address: ref.Resource.Address, Action: execgraph.ActionCreate, Resource: ref.Resource, StateHandler: true, Note: "state handler, read before planning"})
	}
	pl.recorded, pl.duplicate = set.Recorded, set.Duplicate
}

// adoptProviders gives an entry recorded without a provider (NixOps4
// writes none) the provider of the block that declares its address, so
// that a destroy, replace or update goes through it. The entry is written
// with it the next time pier records the resource.
func (pl *planner) adoptProviders(snap *source.Snapshot) {
	// Each address spelt once, and written back only when adopted made a
	// copy: most entries name their provider.
	for _, r := range snap.Ready {
		addr := r.Address.String()
		if rec := pl.recorded[addr]; rec != nil {
			if own := adopted(r, rec); own != rec {
				pl.recorded[addr] = own
			}
		}
	}
	for _, b := range snap.Blocked {
		if b.Resource == nil {
			continue
		}
		addr := b.Address.String()
		if rec := pl.recorded[addr]; rec != nil {
			if own := adopted(b.Resource, rec); own != rec {
				pl.recorded[addr] = own
			}
		}
	}
}
