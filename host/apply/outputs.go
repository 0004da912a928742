package apply

import (
	"context"
	"maps"
	"slices"

	"github.com/pierhq/pier/host/plan"
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
		s, err := a.e.Snapshot(ctx, maps.Clone(a.known))
		if err != nil {
			return err
		}
		snap = s
	}
	if snap == nil {
		return nil
	}
	a.result.Outputs = snap.Outputs
	a.result.Checks, a.result.CheckWarnings = snap.Checks, plan.CheckWarnings(snap)
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
		if old, ok := view.Outputs[name]; !ok || old.Sensitive != o.Sensitive || !plan.SameInputs(map[string]any{"v": old.Value}, map[string]any{"v": o.Value}) {
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
