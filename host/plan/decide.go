package plan

import (
	"fmt"

	"github.com/pierhq/pier/host/engine"
	"github.com/pierhq/pier/host/execgraph"
	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/host/statedoc"
	"github.com/pierhq/pier/schema"
)

// changeFor classifies a resource whose inputs are known, with its
// lifecycle's ignore_changes applied and --replace honoured.
func (pl *planner) changeFor(r *source.Resource, rec *statedoc.Recorded) *Change {
	// Spelt only when something is to be replaced: most plans replace
	// nothing, and spelling every address is a part of a large no-op.
	return decide(r, rec, len(pl.replace) > 0 && pl.replace[r.Address.String()], pl.same[r])
}

// Decide classifies a resource whose inputs are known, with its
// lifecycle's ignore_changes applied; replace forces a replacement.
func Decide(r *source.Resource, rec *statedoc.Recorded, replace bool) *Change {
	return decide(r, rec, replace, false)
}

// decide is Decide; same says that [planner.unchanged] found r unchanged
// against rec already, so its inputs, as kept, are rec's: comparing them
// again was a part of every large no-op.
func decide(r *source.Resource, rec *statedoc.Recorded, replace, same bool) *Change {
	if rec != nil {
		rec = adopted(r, rec)
	}
	if rec != nil && r.Stateful() {
		r = withKeptInputs(r, rec)
	}
	c := changeFor(r, rec, same)
	if replace && rec != nil && r.Stateful() && (c.Action == execgraph.ActionNoOp || c.Action == execgraph.ActionUpdate) {
		c.Action, c.Note = execgraph.ActionReplace, "replacement requested with --replace"
	}
	return c
}

// changeFor classifies a resource whose inputs are known; same says its
// inputs are known to be rec's.
func changeFor(r *source.Resource, rec *statedoc.Recorded, same bool) *Change {
	c := &Change{Address: r.Address, Resource: r, SensitiveInputs: r.SensitiveInputs}
	switch {
	case !r.Stateful():
		c.Action, c.Note = execgraph.ActionCreate, "stateless, runs every apply"
	case rec == nil:
		c.Action = execgraph.ActionCreate
	case rec.Entry.Type != r.Type:
		// A provider updates an object of one type; another type is
		// another object.
		c.Action, c.Prior = execgraph.ActionReplace, rec
	case (same || SameInputs(r.Inputs, rec.Entry.InputProperties)) && !MovesState(r, rec):
		c.Action, c.Prior = execgraph.ActionNoOp, rec
	default:
		c.Action, c.Prior = execgraph.ActionUpdate, rec
	}
	switch {
	case rec != nil && rec.Entry.Type != r.Type:
		c.Note = fmt.Sprintf("type changed from %s to %s: destroyed, then created", rec.Entry.Type, r.Type)
	case rec != nil && MovesState(r, rec):
		c.Note = fmt.Sprintf("moves from state %s to %s", rec.Handler, r.State)
	}
	return c
}

// MovesState reports whether a stateful resource now names another state
// handler than the one that records it: the entry must move.
func MovesState(r *source.Resource, rec *statedoc.Recorded) bool {
	return r.State != nil && r.State.String() != rec.Handler
}

func DestroyChange(e *engine.Engine, rec *statedoc.Recorded) *Change {
	c := &Change{Address: rec.Address, Action: execgraph.ActionDestroy, Prior: rec}
	if !e.Providers().Declared(rec.Entry.Provider) {
		c.Note = "apply will fail for this resource: " + OrphanAdvice(rec.Entry.Provider, rec.Address)
	} else if !e.Providers().Supports(rec.Entry.Provider, schema.OperationDestroy) {
		c.Note = fmt.Sprintf("provider %q does not declare the destroy operation; apply will fail for this resource: remove the real object yourself, then run: pier state forget %s", rec.Entry.Provider, rec.Address)
	}
	return c
}

// adopted is rec, with r's provider if it was recorded without one.
func adopted(r *source.Resource, rec *statedoc.Recorded) *statedoc.Recorded {
	if rec.Entry.Provider != "" {
		return rec
	}
	// A copy: the state view's entries stay as read.
	own := *rec
	own.Entry.Provider = r.Provider
	return &own
}

// SameInputs compares JSON inputs as values, so that 1 and 1.0, or a
// json.Number and a float64 of the same value, are equal, and
// 9007199254740993 and 9007199254740992 are not.
func SameInputs(a, b map[string]any) bool {
	return equalJSON(a, b)
}
