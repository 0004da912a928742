package plan

import (
	"fmt"
	"maps"
	"slices"

	"github.com/pierhq/pier/host/engine"
	"github.com/pierhq/pier/host/execgraph"
	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/host/statedoc"
)

// Moved blocks (source.Moved), as Terraform plans them: before anything
// is classified, each record at a moved block's from address is taken
// as the record of its to address, so the resource there plans against
// it (usually as unchanged) instead of being created while the old one
// is destroyed. Chains (a to b, b to c) are followed. Apply records each
// move first, as pier state mv does: one "move" event in the record's
// state whose patch adds the new entry and removes the old, with no
// provider called. Whatever else the change does follows it.

// MoveSpec is a moved block's part in a change: the record at From is
// moved to the change's address first.
type MoveSpec struct {
	From  source.Address
	Range source.Range
	// prior is the record at From, for the graph's move operation.
	prior *statedoc.Recorded
}

// MoveError is a moved block pier refuses to carry out.
type MoveError struct {
	From, To source.Address
	Range    source.Range
	Reason   string
}

func (e *MoveError) Error() string {
	return fmt.Sprintf("%s: moved block: cannot move %s to %s: %s", e.Range, e.From, e.To, e.Reason)
}

// moveBlocks rewrites pl.recorded by the snapshot's moved blocks and
// remembers each move for its change. It costs a pass over the records
// only when there are moved blocks.
func (pl *planner) moveBlocks(snap *source.Snapshot) error {
	pl.moves = map[string]*MoveSpec{}
	if len(snap.Moved) == 0 {
		return nil
	}
	type move struct {
		rec *statedoc.Recorded
		to  source.Address
		by  *source.Moved // the last block of the chain
	}
	var moves []move
	for _, addr := range slices.Sorted(maps.Keys(pl.recorded)) {
		rec := pl.recorded[addr]
		cur, by := rec.Address, (*source.Moved)(nil)
		used := map[*source.Moved]bool{}
		for {
			var next source.Address
			var m *source.Moved
			for _, cand := range snap.Moved {
				if used[cand] {
					continue
				}
				if to, ok := cand.Rewrite(cur); ok {
					next, m = to, cand
					break
				}
			}
			if m == nil {
				break
			}
			used[m] = true
			cur, by = next, m
		}
		if by == nil || cur.String() == addr {
			continue
		}
		if r := engine.FindResource(snap, rec.Address); r != nil {
			return &MoveError{From: rec.Address, To: cur, Range: by.Range, Reason: fmt.Sprintf("%s is still declared at %s; remove its block, or the moved block", rec.Address, r.Range)}
		}
		if engine.FindResource(snap, cur) == nil {
			// Nothing is declared there (or not yet known): the record
			// stays where it is, and is planned like any other record.
			continue
		}
		if len(rec.Entry.Deposed) > 0 {
			return &MoveError{From: rec.Address, To: cur, Range: by.Range, Reason: fmt.Sprintf("it has %d deposed object(s) left by a create-before-destroy replacement; apply without the moved block first to destroy them", len(rec.Entry.Deposed))}
		}
		moves = append(moves, move{rec, cur, by})
	}
	leaving := make(map[string]bool, len(moves))
	for _, m := range moves {
		leaving[m.rec.Address.String()] = true
	}
	arriving := map[string]move{}
	for _, m := range moves {
		to := m.to.String()
		if other, ok := arriving[to]; ok {
			return &MoveError{From: m.rec.Address, To: m.to, Range: m.by.Range, Reason: fmt.Sprintf("%s moves there too (moved block at %s)", other.rec.Address, other.by.Range)}
		}
		arriving[to] = m
		if rec := pl.recorded[to]; rec != nil && !leaving[to] {
			return &MoveError{From: m.rec.Address, To: m.to, Range: m.by.Range, Reason: fmt.Sprintf("%s is already recorded, in state %s; forget or move that record first (pier state forget / pier state mv), or remove the moved block", to, rec.Handler)}
		}
	}
	for _, m := range moves {
		delete(pl.recorded, m.rec.Address.String())
	}
	for _, m := range moves {
		to := m.to.String()
		pl.recorded[to] = &statedoc.Recorded{Address: m.to, Handler: m.rec.Handler, Entry: m.rec.Entry}
		pl.moves[to] = &MoveSpec{From: m.rec.Address, Range: m.by.Range, prior: m.rec}
	}
	return nil
}

// markMoves puts each move on its resource's change: a change the
// configuration does not otherwise need is the move alone.
func (pl *planner) markMoves() {
	for _, addr := range slices.Sorted(mapKeys(pl.moves)) {
		c := pl.plan.Change(addr)
		if c == nil || c.Resource == nil {
			continue
		}
		c.Move = pl.moves[addr]
		if c.Action == execgraph.ActionNoOp {
			c.Action = execgraph.ActionMove
		}
	}
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}
