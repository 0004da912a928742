package engine

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/host/statedoc"
)

// MoveRequest names a record to move and where to: a new address, another
// state handler, or both. Empty fields default to the record's own.
type MoveRequest struct {
	From, To string
	// FromState names the handler to move it out of, when several record
	// From; ToState the handler to move it into.
	FromState, ToState string
}

// MoveResult says where a record went.
type MoveResult struct {
	From, To           source.Address
	FromState, ToState string
}

// Move moves a recorded resource to another address, another state
// handler, or both, without asking its provider anything. Within one
// handler it is one "move" event whose patch adds the new entry and
// removes the old, so it happens entirely or not at all. Between handlers
// it is two events, in this order: "move" in the target (the entry is
// added), then "move" in the source (it is removed). If pier dies between
// the two, the record is in both states, which the next plan refuses with
// the advice to forget it from one; nothing is lost. The other order could
// lose the only record of a real object.
func (e *Engine) Move(ctx context.Context, req MoveRequest) (MoveResult, error) {
	from, err := source.ParseAddress(req.From)
	if err != nil {
		return MoveResult{}, err
	}
	to := from
	if req.To != "" {
		if to, err = source.ParseAddress(req.To); err != nil {
			return MoveResult{}, err
		}
	}
	set, _, err := e.readStatesOnly(ctx)
	if err != nil {
		return MoveResult{}, err
	}
	states := set.Views()
	var in []string
	for _, h := range slices.Sorted(maps.Keys(states)) {
		if states[h].Entries[from.String()] != nil && (req.FromState == "" || req.FromState == h) {
			in = append(in, h)
		}
	}
	switch {
	case req.FromState != "" && states[req.FromState] == nil:
		return MoveResult{}, fmt.Errorf("%s is not a state handler of this deployment (its state handlers: %s)", req.FromState, strings.Join(slices.Sorted(maps.Keys(states)), ", "))
	case len(in) == 0 && req.FromState != "":
		return MoveResult{}, fmt.Errorf("%s is not recorded in state %s (see pier state list)", from, req.FromState)
	case len(in) == 0:
		return MoveResult{}, fmt.Errorf("%s is not recorded in any state of this deployment (see pier state list)", from)
	case len(in) > 1:
		return MoveResult{}, fmt.Errorf("%s is recorded in states %s; name the one to move it from with --from-state", from, strings.Join(in, ", "))
	}
	src := in[0]
	dst := src
	if req.ToState != "" {
		dst = req.ToState
	}
	if states[dst] == nil {
		return MoveResult{}, fmt.Errorf("%s is not a state handler of this deployment (its state handlers: %s)", dst, strings.Join(slices.Sorted(maps.Keys(states)), ", "))
	}
	if src == dst && from.String() == to.String() {
		return MoveResult{}, fmt.Errorf("%s is already recorded at %s in state %s: nothing to move", from, to, dst)
	}
	// The target address must be free in every state: a plan refuses an
	// address recorded twice.
	for _, h := range slices.Sorted(maps.Keys(states)) {
		if states[h].Entries[to.String()] != nil && !(h == src && to.String() == from.String()) {
			return MoveResult{}, fmt.Errorf("%s is already recorded in state %s; forget or move it first", to, h)
		}
	}
	rec := states[src].Entries[from.String()]
	if len(rec.Entry.Deposed) > 0 {
		// put does not carry deposed objects to a new place; they still
		// exist, so refuse rather than lose them.
		return MoveResult{}, fmt.Errorf("%s has %d deposed object(s) left by a create-before-destroy replacement; apply first to destroy them, then move it", from, len(rec.Entry.Deposed))
	}
	entry := rec.Entry
	res := MoveResult{From: from, To: to, FromState: src, ToState: dst}
	if src == dst {
		r := NewRecorder(e, src, set.Handlers[src])
		defer r.Close()
		err := r.Record(ctx, "move", func(pb *statedoc.PatchBuilder) error {
			if err := pb.Put(to, entry); err != nil {
				return err
			}
			pb.Remove(from)
			return nil
		})
		if err != nil {
			return res, fmt.Errorf("move %s to %s in state %s (provider %s): %w", from, to, src, set.Handlers[src].Resource.Provider, err)
		}
		return res, nil
	}
	// Add first, then remove: see the doc comment.
	rd := NewRecorder(e, dst, set.Handlers[dst])
	err = rd.Record(ctx, "move", func(pb *statedoc.PatchBuilder) error { return pb.Put(to, entry) })
	rd.Close()
	if err != nil {
		return res, fmt.Errorf("move %s: record it in state %s (provider %s): %w; state %s still records it, unchanged", from, dst, set.Handlers[dst].Resource.Provider, err, src)
	}
	rs := NewRecorder(e, src, set.Handlers[src])
	err = rs.Record(ctx, "move", func(pb *statedoc.PatchBuilder) error { pb.Remove(from); return nil })
	rs.Close()
	if err != nil {
		return res, fmt.Errorf("move %s: it is now recorded in state %s as %s, but removing it from state %s (provider %s) failed: %w; finish with: pier state forget --state %s %s", from, dst, to, src, set.Handlers[src].Resource.Provider, err, src, from)
	}
	return res, nil
}
