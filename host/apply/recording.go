package apply

import (
	"context"
	"fmt"
	"time"

	"github.com/pierhq/pier/host/engine"
	"github.com/pierhq/pier/host/execgraph"
	"github.com/pierhq/pier/host/plan"

	"github.com/pierhq/pier/host/statedoc"
)

// This file records what apply did in the state handlers' logs.

func (a *applier) recordPut(ctx context.Context, event string, c *plan.Change, outputs map[string]any) error {
	return a.recordPutWith(ctx, event, c, outputs, nil)
}

// recordPutWith records c's new object, and with also what then
// belongs in the same event.
func (a *applier) recordPutWith(ctx context.Context, event string, c *plan.Change, outputs map[string]any, with func(*statedoc.PatchBuilder) error) error {
	r := c.Resource
	if !r.Stateful() {
		return nil
	}
	var deps []string
	for _, d := range r.DependsOn {
		deps = append(deps, d.String())
	}
	entry := statedoc.Entry{Type: r.Type, InputProperties: r.Inputs, OutputProperties: outputs, Provider: r.Provider, Dependencies: deps, SensitiveInputs: r.SensitiveInputs}
	if c.Action == execgraph.ActionUpdate && c.Prior != nil {
		// Still the object it was imported as; a replacement is not.
		entry.ImportID = c.Prior.Entry.ImportID
	}
	if err := a.record(ctx, r.State.String(), event, func(pb *statedoc.PatchBuilder) error {
		if err := pb.Put(c.Address, entry); err != nil || with == nil {
			return err
		}
		return with(pb)
	}); err != nil {
		return err
	}
	if c.Prior == nil || !plan.MovesState(r, c.Prior) {
		return nil
	}
	// Recorded in the new state first: were pier stopped in between, the
	// next plan names both states rather than forgetting the resource.
	return a.record(ctx, c.Prior.Handler, "forget", func(pb *statedoc.PatchBuilder) error {
		pb.Remove(c.Address)
		return nil
	})
}

// record appends a change to a state handler's log. A Ctrl-C must never
// lose the record of a real change, so it runs without the caller's
// cancellation, bounded by its own timeout.
func (a *applier) record(ctx context.Context, handler, event string, build func(*statedoc.PatchBuilder) error) error {
	rec := a.recorders[handler]
	if rec == nil {
		return fmt.Errorf("state handler %s was not read before apply: this is a bug in pier", handler)
	}
	// The record outlives a Ctrl-C, bounded by recordTimeout.
	ctx = context.WithoutCancel(ctx)
	if err := rec.RecordWithin(ctx, recordTimeout, event, build); err != nil {
		if event == engine.EventPending {
			// An intent, or the clearing of one: no change rides on it.
			return fmt.Errorf("record in state %s: %w", handler, err)
		}
		a.noteFailedRecord(ctx, handler, event, build)
		return &UnrecordedError{Handler: handler, Err: fmt.Errorf("record in state %s: %w", handler, err)}
	}
	return nil
}

// UnrecordedError is a change a provider made whose record in state
// failed.
type UnrecordedError struct {
	Handler string
	Err     error
}

func (e *UnrecordedError) Error() string { return e.Err.Error() + " " + e.Note() }

func (e *UnrecordedError) Unwrap() error { return e.Err }

// Note says what the failure means: the change exists, its record not.
func (e *UnrecordedError) Note() string { return "(the change was made but not recorded)" }

// recordTimeout bounds one state append, which must outlive a Ctrl-C: long
// enough for a slow disk or remote state provider, short enough that a
// hung one does not hold pier forever.
const recordTimeout = 2 * time.Minute
