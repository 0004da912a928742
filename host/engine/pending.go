package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/pierhq/pier/host/provider"
	"github.com/pierhq/pier/host/statedoc"
	"github.com/pierhq/pier/schema"
)

// This file keeps pier from being silent about an operation it started
// and never saw finish. Before a create or destroy is sent to a provider,
// its intent, a pending operation, is recorded in the state the resource
// is (or will be) recorded in; the record of the outcome clears it in the
// same event. A v0 create cannot be made idempotent, so an intent found
// later means an object may exist that pier never recorded: apply refuses
// to create that resource again until the user resolves it (pier import,
// or pier state resolve), rather than make a second copy. The model is
// Pulumi's pending_operations in its checkpoint. See docs/state.md.

// eventPending names an event that records only intents, or clears one
// whose operation the provider refused.
const eventPending = "pending"

// pendingUpdate is never recorded; recordIntent only checks that no
// pending destroy makes the object doubtful.
const pendingUpdate statedoc.PendingKind = "update"

// recordIntent is called before each provider request that creates,
// updates or destroys c's object (for a replace, once per half). It
// refuses what an earlier interrupted operation makes unsafe: a create of
// a resource whose earlier create may have made an object, an update of
// one whose earlier destroy may have removed it. Then, for a create or a
// destroy of a stateful resource, it records the intent in the state the
// outcome will be recorded in and waits until it is durable: the record
// of the outcome ([statedoc.PatchBuilder.Put], [statedoc.PatchBuilder.Remove]) clears it in
// the same event. The recorder commits in groups, so intents of parallel
// operations share one sync.
func (a *applier) recordIntent(ctx context.Context, c *Change, op statedoc.PendingKind) error {
	if err := a.refusePending(c, op); err != nil {
		return err
	}
	h, p, ok := intentOf(c, op)
	if !ok {
		return nil
	}
	if err := a.commitRecord(ctx, h, eventPending, func(pb *statedoc.PatchBuilder) error { return pb.PutPending(c.Address, p) }); err != nil {
		return err
	}
	a.noteIntent(c.Address, p)
	return nil
}

// intentOf says where c's intent for op is recorded, and what it is.
func intentOf(c *Change, op statedoc.PendingKind) (handler string, p statedoc.PendingOperation, ok bool) {
	p = statedoc.PendingOperation{Operation: op, Started: time.Now().UTC().Format(time.RFC3339Nano)}
	switch {
	case op == statedoc.PendingCreate && c.Resource != nil && c.Resource.Stateful():
		r := c.Resource
		p.Provider, p.Type, p.InputProperties, p.SensitiveInputs = r.Provider, r.Type, r.Inputs, r.SensitiveInputs
		return r.State.String(), p, true
	case op == statedoc.PendingDestroy && c.Prior != nil && c.Deposed == "":
		// A deposed object's destroy records no intent: it stays recorded
		// until its destroy is, and every apply destroys it again.
		p.Provider, p.Type = c.Prior.Entry.Provider, c.Prior.Entry.Type
		return c.Prior.Handler, p, true
	}
	return "", p, false
}

// intentFailed is called when the provider request after recordIntent
// failed, with its error. When the provider answered with an error, or
// the request never reached it, nothing was done, so the intent is
// cleared. When the provider failed mid-request (crashed, timed out, was
// cancelled), the operation may have happened: the intent stays, and the
// error says so.
func (a *applier) intentFailed(ctx context.Context, c *Change, op statedoc.PendingKind, err error) error {
	h, _, ok := intentOf(c, op)
	if !ok {
		return err
	}
	var pe *provider.Error
	if errors.As(err, &pe) {
		return &IntentKeptError{Address: c.Address.String(), Handler: h, Operation: op, Err: err}
	}
	if cerr := a.record(ctx, h, eventPending, func(pb *statedoc.PatchBuilder) error { pb.ClearPending(c.Address); return nil }); cerr != nil {
		return errors.Join(err, cerr)
	}
	return err
}

// IntentKeptError is a provider request that failed part way (the
// provider crashed, timed out or was stopped) after its intent was
// recorded: the operation may have happened, so the intent stays.
type IntentKeptError struct {
	Address   string
	Handler   string
	Operation statedoc.PendingKind
	Err       error
}

func (e *IntentKeptError) Error() string { return e.Err.Error() + "\n" + e.Note() }

func (e *IntentKeptError) Unwrap() error { return e.Err }

// Note says what the kept intent means.
func (e *IntentKeptError) Note() string {
	return fmt.Sprintf("(the provider may have %s it: pier keeps a pending %s of %s in state %s, and the next plan says how to resolve it)", pastTense(e.Operation), e.Operation, e.Address, e.Handler)
}

func pastTense(op statedoc.PendingKind) string {
	if op == statedoc.PendingDestroy {
		return "destroyed"
	}
	return "created"
}

// refusePending checks op on c against the operations pending in the
// states as they were read for the plan.
func (a *applier) refusePending(c *Change, op statedoc.PendingKind) error {
	if c.Deposed != "" {
		return nil
	}
	for _, h := range slices.Sorted(maps.Keys(a.states)) {
		p := a.states[h].Pending[c.Address.String()]
		if p == nil {
			continue
		}
		// A replace is refused before its first half: its destroy must not
		// run when its create would be refused.
		creates := op == statedoc.PendingCreate || c.Action == ActionReplace
		if (creates && p.Operation == statedoc.PendingCreate) || (op == pendingUpdate && p.Operation == statedoc.PendingDestroy) {
			return a.e.pendingError(c.Address.String(), h, p, a.states[h].Entries[c.Address.String()] != nil)
		}
	}
	return nil
}

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

func (e *Engine) pendingError(addr, handler string, p *statedoc.PendingOperation, recorded bool) *PendingError {
	return &PendingError{Address: addr, Handler: handler, Pending: *p, Recorded: recorded, CanImport: e.providers.supports(p.Provider, schema.OperationImport)}
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
			pe := pl.e.pendingError(addr, h, op, v.Entries[addr] != nil)
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
