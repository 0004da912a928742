package plan

import (
	"context"

	"github.com/pierhq/pier/host/engine"
	"github.com/pierhq/pier/host/source"
)

// readStatesFirst lets a plan read its states before the deployment
// resolves; tests turn it off to compare with the plan made without.
var readStatesFirst = true

// first settles a plan whose states were read before the deployment
// resolved (see [engine.Engine.ReadStatesFirst]): the deployment resolves
// once with the recorded outputs known, where run resolves it with none
// known first and then again for every block that reads an output.
//
// It is the plan run makes, step for step, when nothing run does with
// the first snapshot depends on it. The source's ResolveHandlers checked
// that much of the deployment (no import, moved or removed block, no
// refresh = true, no count or for_each reading a resource, handlers that
// read no resource), the options that there is no refresh, and
// ReadStatesFirst that the states hold no pending operation, no resource
// twice and no entry without its provider (adoptProviders then has
// nothing to adopt). What is left is checked here: the first snapshot
// with the recorded outputs must have the state handlers read, as read;
// and the deployment must resolve with them, since the first resolve
// with none known reports the configuration's errors first. When either
// fails it reports false, and run plans as it always has, from the
// resolve with no outputs known: its errors are then today's.
//
// An error reported with true is that of the rounds that follow the
// first snapshot, which are run's.
func (pl *planner) first(ctx context.Context, fs *engine.FirstStates) (*source.Snapshot, bool, error) {
	pl.readSet(fs.Set)
	pl.plan.readFirst = true
	// What moveBlocks and importBlocks leave when there are no such
	// blocks.
	pl.moves = map[string]*MoveSpec{}
	pl.imports = map[string]*ImportSpec{}
	guessed := pl.guess()
	// With nothing guessed, run settles from its first snapshot itself,
	// which knows no outputs, not even the handlers'.
	known := pl.plan.Known
	if len(guessed) == 0 {
		known = source.Outputs{}
	}
	next, err := pl.e.Snapshot(ctx, known)
	if err != nil || !fs.Same(pl.e, next) {
		return nil, false, nil
	}
	if len(guessed) == 0 {
		snap, err := pl.settleRounds(ctx, next, map[*source.Resource]bool{})
		return snap, true, err
	}
	snap, same, err := pl.speculateFrom(ctx, guessed, next)
	if err != nil {
		return nil, true, err
	}
	snap, err = pl.settleRounds(ctx, snap, same)
	return snap, true, err
}
