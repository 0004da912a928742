package plan

import (
	"fmt"
	"maps"
	"slices"

	"github.com/pierhq/pier/host/execgraph"
	"github.com/pierhq/pier/host/statedoc"
)

// This file is what a plan says of the pending operations an interrupted
// run left in its states: what apply will refuse ([engine.PendingError]), what it
// retries, and what another live pier is doing. Recording and clearing
// intents is host/apply's (intents.go); their shape is host/statedoc's.

// inProgress says that op is the work of the live command holding the
// state's lock, not an interrupted run's.
func inProgress(addr, handler string, op *statedoc.PendingOperation, h *statedoc.LockHolder) string {
	return fmt.Sprintf("in progress: provider %q is %s %s (type %s), started %s, for %s; state %s records it as pending until that command records the outcome. Plan again once it finishes", op.Provider, op.Operation.Verb(), addr, op.Type, op.Started, h, handler)
}

// notePending tells the plan about every pending operation in its states:
// what apply will refuse, what it retries, and what stays pending.
func (pl *planner) notePending() {
	p := pl.plan
	for _, h := range slices.Sorted(maps.Keys(p.States)) {
		v := p.States[h]
		for _, addr := range slices.Sorted(maps.Keys(v.Pending)) {
			op := v.Pending[addr]
			pe := pl.e.PendingError(addr, h, op, v.Entries[addr] != nil)
			c := p.Change(addr)
			action := execgraph.ActionNoOp
			if c != nil {
				action = c.Action
			}
			creates := c != nil && c.Stateful() && (action == execgraph.ActionCreate || action == execgraph.ActionReplace)
			switch {
			case v.HeldBy != nil:
				if c != nil && action != execgraph.ActionNoOp {
					c.Note = joinNote(c.Note, "in progress in another pier; see the warning above")
				}
				p.Warnings = append(p.Warnings, inProgress(addr, h, op, v.HeldBy))
			case op.Operation == statedoc.PendingCreate && creates:
				c.Note = joinNote(c.Note, "refused: a create of it was interrupted; see the warning above")
				p.Warnings = append(p.Warnings, pe.Error()+". Until then apply refuses to create it; independent resources still apply.")
			case op.Operation == statedoc.PendingDestroy && (action == execgraph.ActionDestroy || action == execgraph.ActionReplace):
				c.Note = joinNote(c.Note, fmt.Sprintf("retries the destroy interrupted at %s", op.Started))
				p.Warnings = append(p.Warnings, fmt.Sprintf("pier was interrupted while provider %q was destroying %s (type %s), started %s (a pending destroy is recorded in state %s); this plan destroys it again, which a provider's destroy accepts for an object already gone", op.Provider, addr, op.Type, op.Started, h))
			case op.Operation == statedoc.PendingDestroy && action == execgraph.ActionUpdate:
				c.Note = joinNote(c.Note, "refused: a destroy of it was interrupted; see the warning above")
				p.Warnings = append(p.Warnings, pe.Error()+". Until then apply refuses to update it.")
			default:
				pe.Gone = c == nil && op.Operation == statedoc.PendingCreate
				p.Warnings = append(p.Warnings, pe.Error())
			}
		}
	}
}

func joinNote(note, more string) string {
	if note == "" {
		return more
	}
	return note + "; " + more
}
