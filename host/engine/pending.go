package engine

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/pierhq/pier/host/statedoc"
	"github.com/pierhq/pier/schema"
)

// This file is what a plan says of the pending operations an interrupted
// run left in its states: what apply will refuse ([PendingError]), what it
// retries, and what another live pier is doing. Recording and clearing
// intents is host/apply's (intents.go); their shape is host/statedoc's.

// PendingError refuses an operation on a resource with an unresolved
// pending operation from an interrupted run.
type PendingError struct {
	Address string
	// Handler is the state the pending operation is recorded in.
	Handler string
	Pending statedoc.PendingOperation
	// Recorded says the state still records an object at Address (a
	// create-before-destroy's old one, or the one a destroy was for).
	Recorded bool
	// CanImport says the resource's provider declares import.
	CanImport bool
	// Gone says the deployment no longer has the resource: nothing will
	// create it again.
	Gone bool
}

func (e *PendingError) Error() string {
	p := e.Pending
	var b strings.Builder
	fmt.Fprintf(&b, "pier was interrupted while provider %q was %s %s (type %s), started %s: a pending %s is recorded in state %s", p.Provider, p.Operation.Verb(), e.Address, p.Type, p.Started, p.Operation, e.Handler)
	b.WriteString(e.Advice())
	return b.String()
}

// Advice says what the pending operation means and how to resolve it.
func (e *PendingError) Advice() string {
	a := e.Address
	if e.Pending.Operation == statedoc.PendingDestroy {
		return fmt.Sprintf(". The object may be gone although the state records it. Check whether it exists: if it does, run pier state resolve %s --created (the record stays); if it is gone, run pier state resolve %s --absent (the record goes)", a, a)
	}
	s := ". The provider may have made an object that pier never recorded, so pier will not create it again until you say what became of it"
	switch {
	case e.Gone:
		s += fmt.Sprintf(". The deployment no longer has %s, so nothing creates it again: if the object exists, remove it yourself; then run pier state resolve %s --absent", a, a)
	case e.Recorded:
		s += fmt.Sprintf(" (the state still records the object it was replacing). Check by hand: if the new object exists, remove it yourself; then run pier state resolve %s --absent, and the next apply replaces it again", a)
	case e.CanImport:
		s += fmt.Sprintf(". If the object exists, adopt it with pier import %s ID (or pier state resolve %s --created ID); if it does not, or once you have removed it, run pier state resolve %s --absent, and the next apply creates it", a, a, a)
	default:
		s += fmt.Sprintf(". Check by hand whether it exists (provider %q does not declare import, so pier cannot adopt it): if it does, remove it yourself; then run pier state resolve %s --absent, and the next apply creates it", e.Pending.Provider, a)
	}
	return s
}

func (e *Engine) PendingError(addr, handler string, p *statedoc.PendingOperation, recorded bool) *PendingError {
	return &PendingError{Address: addr, Handler: handler, Pending: *p, Recorded: recorded, CanImport: e.providers.Supports(p.Provider, schema.OperationImport)}
}

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
			action := ActionNoOp
			if c != nil {
				action = c.Action
			}
			creates := c != nil && c.Stateful() && (action == ActionCreate || action == ActionReplace)
			switch {
			case v.HeldBy != nil:
				if c != nil && action != ActionNoOp {
					c.Note = joinNote(c.Note, "in progress in another pier; see the warning above")
				}
				p.Warnings = append(p.Warnings, inProgress(addr, h, op, v.HeldBy))
			case op.Operation == statedoc.PendingCreate && creates:
				c.Note = joinNote(c.Note, "refused: a create of it was interrupted; see the warning above")
				p.Warnings = append(p.Warnings, pe.Error()+". Until then apply refuses to create it; independent resources still apply.")
			case op.Operation == statedoc.PendingDestroy && (action == ActionDestroy || action == ActionReplace):
				c.Note = joinNote(c.Note, fmt.Sprintf("retries the destroy interrupted at %s", op.Started))
				p.Warnings = append(p.Warnings, fmt.Sprintf("pier was interrupted while provider %q was destroying %s (type %s), started %s (a pending destroy is recorded in state %s); this plan destroys it again, which a provider's destroy accepts for an object already gone", op.Provider, addr, op.Type, op.Started, h))
			case op.Operation == statedoc.PendingDestroy && action == ActionUpdate:
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
