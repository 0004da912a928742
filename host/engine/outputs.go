package engine

import (
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/host/statedoc"
)

// This file keeps the deployment's outputs in state after an apply.

// recordOutputs keeps the deployment's outputs in the first state handler,
// so that `pier output` can show them without running any resource's
// provider. Only differences are written.
func (a *applier) recordOutputs(ctx context.Context) error {
	handler := a.primaryHandler()
	if handler == "" {
		return nil
	}
	if a.controls.Destroy {
		return a.writeOutputs(ctx, handler, nil, false)
	}
	snap := a.lastSnap
	if len(a.pending) == 0 && len(a.result.Errors) == 0 && (a.result.Created+a.result.Updated+a.result.Destroyed > 0 || snap == nil) {
		s, err := a.e.resolve(ctx, maps.Clone(a.known))
		if err != nil {
			return err
		}
		snap = s
	}
	if snap == nil {
		return nil
	}
	a.result.Outputs = snap.Outputs
	a.result.Checks, a.result.CheckWarnings = snap.Checks, checkWarnings(snap)
	// After a failure an output may be unknown only because what it reads
	// failed to change; the object, and so the recorded value, is still
	// there.
	partial := len(a.result.Errors) > 0 || len(a.pending) > 0 || len(a.controls.Targets) > 0 || a.controls.RefreshOnly
	return a.writeOutputs(ctx, handler, snap.Outputs, partial)
}

// writeOutputs records outputs as the deployment's, writing only
// differences from what the state holds. keep keeps recorded outputs
// that outputs lacks.
func (a *applier) writeOutputs(ctx context.Context, handler string, outputs []*source.Output, keep bool) error {
	want := map[string]statedoc.RecordedOutput{}
	for _, o := range outputs {
		ro := statedoc.RecordedOutput{Sensitive: o.Sensitive}
		if !o.Sensitive {
			ro.Value = o.Value
		}
		want[o.Name] = ro
	}
	view := a.states[handler]
	var put, remove []string
	for _, name := range slices.Sorted(maps.Keys(want)) {
		o := want[name]
		if old, ok := view.Outputs[name]; !ok || old.Sensitive != o.Sensitive || !sameInputs(map[string]any{"v": old.Value}, map[string]any{"v": o.Value}) {
			put = append(put, name)
		}
	}
	if !keep {
		for _, name := range slices.Sorted(maps.Keys(view.Outputs)) {
			if _, ok := want[name]; !ok {
				remove = append(remove, name)
			}
		}
	}
	if len(put)+len(remove) == 0 {
		return nil
	}
	return a.record(ctx, handler, "outputs", func(pb *statedoc.PatchBuilder) error {
		for _, name := range remove {
			pb.RemoveOutput(name)
		}
		for _, name := range put {
			if err := pb.PutOutput(name, want[name]); err != nil {
				return err
			}
		}
		return nil
	})
}

// primaryHandler is the state handler that keeps deployment outputs: the
// first by address.
func (a *applier) primaryHandler() string {
	handlers := slices.Sorted(maps.Keys(a.states))
	if len(handlers) == 0 {
		return ""
	}
	return handlers[0]
}

// OutputChange is a deployment output that applying the plan records
// differently from the state: "Changes to Outputs" in a plan.
type OutputChange struct {
	Name string
	// Action is ActionCreate (not recorded yet), ActionUpdate or
	// ActionDestroy (no longer declared).
	Action        Action
	Before, After any
	// Unknown says After is known only after apply.
	Unknown bool
	// Sensitive says a side is sensitive: neither value may be shown.
	Sensitive bool
}

// OutputChanges compares the deployment's outputs as planned with those
// recorded in the state that keeps them (the first state handler, as
// apply writes them), by name. A plan with no state handler records no
// outputs, and a refresh-only plan changes none. A targeted plan keeps
// the outputs it does not evaluate, so it removes none.
func (p *Plan) OutputChanges() []OutputChange {
	handlers := slices.Sorted(maps.Keys(p.States))
	if len(handlers) == 0 || p.RefreshOnly || p.Snapshot == nil && !p.Destroy {
		return nil
	}
	recorded := p.States[handlers[0]].Outputs
	var out []OutputChange
	declared := map[string]bool{}
	if !p.Destroy {
		for _, o := range p.Snapshot.Outputs {
			declared[o.Name] = true
			c := OutputChange{Name: o.Name, After: o.Value, Sensitive: o.Sensitive}
			rec, ok := recorded[o.Name]
			switch {
			case !ok:
				c.Action = ActionCreate
			case rec.Sensitive != o.Sensitive:
				c.Action, c.Before, c.Sensitive = ActionUpdate, rec.Value, true
			case o.Sensitive || sameInputs(map[string]any{"v": rec.Value}, map[string]any{"v": o.Value}):
				// Unchanged, or sensitive on both sides: pier keeps no
				// sensitive value to compare with.
				continue
			default:
				c.Action, c.Before = ActionUpdate, rec.Value
			}
			out = append(out, c)
		}
		for _, name := range p.Snapshot.PendingOutputs {
			declared[name] = true
			c := OutputChange{Name: name, Action: ActionCreate, Unknown: true}
			if rec, ok := recorded[name]; ok {
				c.Action, c.Before, c.Sensitive = ActionUpdate, rec.Value, rec.Sensitive
			}
			out = append(out, c)
		}
	}
	if len(p.Targets) == 0 {
		for _, name := range slices.Sorted(maps.Keys(recorded)) {
			if !declared[name] {
				rec := recorded[name]
				out = append(out, OutputChange{Name: name, Action: ActionDestroy, Before: rec.Value, Sensitive: rec.Sensitive})
			}
		}
	}
	slices.SortFunc(out, func(a, b OutputChange) int { return strings.Compare(a.Name, b.Name) })
	return out
}
