package apply

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/pierhq/pier/host/engine"
	"github.com/pierhq/pier/host/execgraph"
	"github.com/pierhq/pier/host/plan"
	"github.com/pierhq/pier/host/provider"
	"github.com/pierhq/pier/host/statedoc"
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
func (a *applier) recordIntent(ctx context.Context, c *plan.Change, op statedoc.PendingKind) error {
	if err := a.refusePending(c, op); err != nil {
		return err
	}
	h, p, ok := intentOf(c, op)
	if !ok {
		return nil
	}
	// Noted first: were the handler lost while it records this, retake
	// tells by it whether the intent became durable.
	a.noteIntent(c.Address, p)
	if err := a.record(ctx, h, engine.EventPending, func(pb *statedoc.PatchBuilder) error { return pb.PutPending(c.Address, p) }); err != nil {
		a.noteStranded(h, c, op, true)
		return err
	}
	return nil
}

// intentOf says where c's intent for op is recorded, and what it is.
func intentOf(c *plan.Change, op statedoc.PendingKind) (handler string, p statedoc.PendingOperation, ok bool) {
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
func (a *applier) intentFailed(ctx context.Context, c *plan.Change, op statedoc.PendingKind, err error) error {
	h, _, ok := intentOf(c, op)
	if !ok {
		return err
	}
	var pe *provider.Error
	if errors.As(err, &pe) {
		return &IntentKeptError{Address: c.Address.String(), Handler: h, Operation: op, Err: err}
	}
	if cerr := a.record(ctx, h, engine.EventPending, func(pb *statedoc.PatchBuilder) error { pb.ClearPending(c.Address); return nil }); cerr != nil {
		if a.noteStranded(h, c, op, notSent(err)) {
			return fmt.Errorf("%w; clearing its pending %s failed, as the state handler was lost: pier clears it once the state's lock is held again, or says it could not: %w", err, op, cerr)
		}
		return fmt.Errorf("%w; its pending %s stays recorded, as clearing it failed (the next plan says how to resolve it): %w", err, op, cerr)
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
func (a *applier) refusePending(c *plan.Change, op statedoc.PendingKind) error {
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
		creates := op == statedoc.PendingCreate || c.Action == execgraph.ActionReplace
		if (creates && p.Operation == statedoc.PendingCreate) || (op == pendingUpdate && p.Operation == statedoc.PendingDestroy) {
			return a.e.PendingError(c.Address.String(), h, p, a.states[h].Entries[c.Address.String()] != nil)
		}
	}
	return nil
}
