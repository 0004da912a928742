package plan

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/pierhq/pier/host/engine"
	"github.com/pierhq/pier/host/execgraph"
	"github.com/pierhq/pier/host/internal/workers"
	"github.com/pierhq/pier/host/redact"
	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/host/statedoc"
	"github.com/pierhq/pier/schema"
)

// Refresh is off by default: reading every recorded object starts every
// provider, while an unchanged deployment otherwise starts only its state
// handlers (see docs/refresh.md). Pulumi makes the same choice: pulumi up
// trusts its state unless given --refresh.

// Drift is what a refresh found different from state: a recorded object
// gone, or changed outside of pier.
type Drift struct {
	Address source.Address
	Handler string
	// Gone means the provider's read said the object no longer exists.
	Gone bool
	// Recorded is the entry as it was in state; Now the entry as read
	// (its inputs are the recorded ones unless the provider reported
	// them). Now is zero when Gone.
	Recorded, Now statedoc.Entry
}

// InputDiffs are the inputs the read found changed, redacted as the plan
// redacts inputs.
func (d *Drift) InputDiffs() []Diff {
	return DiffInputs(redact.EntryInputs(d.Recorded), redact.EntryInputs(d.Now))
}

// OutputDiffs are the outputs the read found changed, redacted, without
// the Terraform bridge's private bookkeeping.
func (d *Drift) OutputDiffs() []Diff {
	old, now := redact.EntryOutputs(d.Recorded), redact.EntryOutputs(d.Now)
	delete(old, "__tf")
	delete(now, "__tf")
	return DiffInputs(old, now)
}

// refreshes reports whether a plan with options o reads addr.
func (o Options) refreshes(a source.Address) bool {
	if !o.Refresh && !o.RefreshOnly {
		return false
	}
	if len(o.RefreshTargets) == 0 {
		return true
	}
	for _, t := range o.RefreshTargets {
		if ta, err := source.ParseAddress(t); err == nil && a.HasPrefix(ta) {
			return true
		}
	}
	return false
}

// refresh reads the recorded resources o selects, and those whose block
// sets refresh = true, whose provider declares
// read, in parallel within the engine's bound, and plans against what it
// finds: a changed object's entry is replaced by the one read, so the plan
// diffs the desired inputs against the real object; a gone object present
// in the deployment is dropped from what is recorded, so it is planned for
// creation. A gone object no longer in the deployment stays, to be
// destroyed (a destroy of what is gone records that it is).
func (pl *planner) refresh(ctx context.Context, snap *source.Snapshot, o Options) error {
	if o.NoRefresh {
		return nil
	}
	// always are the resources with refresh = true, their own or their
	// provider's: read on every plan.
	always := map[string]*source.Resource{}
	alwaysRead := func(r *source.Resource) bool {
		if r.Refresh {
			return true
		}
		p := snap.Providers[r.Provider]
		return p != nil && p.Refresh && !r.NoRefresh
	}
	for _, r := range snap.Ready {
		if alwaysRead(r) {
			always[r.Address.String()] = r
		}
	}
	for _, b := range snap.Blocked {
		if b.Resource != nil && alwaysRead(b.Resource) {
			always[b.Address.String()] = b.Resource
		}
	}
	if !o.Refresh && !o.RefreshOnly && len(always) == 0 {
		return nil
	}
	// present are the addresses the deployment declares; only a plan
	// that reads needs them (a plan that reads nothing, most plans,
	// used to name every resource here for nothing).
	present := make(map[string]bool, len(snap.Ready)+len(snap.Blocked))
	for _, r := range snap.Ready {
		present[r.Address.String()] = true
	}
	for _, b := range snap.Blocked {
		present[b.Address.String()] = true
	}
	var todo []*statedoc.Recorded
	for _, addr := range slices.Sorted(maps.Keys(pl.recorded)) {
		rec := pl.recorded[addr]
		if !o.refreshes(rec.Address) && always[addr] == nil {
			continue
		}
		if !pl.e.Providers().Declared(rec.Entry.Provider) || !pl.e.Providers().Supports(rec.Entry.Provider, schema.OperationRead) {
			if r := always[addr]; r != nil {
				who := fmt.Sprintf("%s (%s) sets", addr, r.Range)
				if !r.Refresh {
					who = fmt.Sprintf("the provider of %s (%s) sets", addr, r.Range)
				}
				pl.plan.Warnings = append(pl.plan.Warnings, fmt.Sprintf("%s refresh = true, but provider %q does not declare the read operation: its recorded object is trusted as recorded", who, rec.Entry.Provider))
			}
			continue
		}
		todo = append(todo, rec)
	}
	type result struct {
		resp *schema.ReadResourceResponse
		err  error
	}
	results := make([]result, len(todo))
	// Every read runs, and the first error in plan order is the one
	// reported, so each result keeps its own error.
	workers.Each(len(todo), pl.e.Parallelism(), func(i int) {
		rec := todo[i]
		if err := ctx.Err(); err != nil {
			results[i].err = err
			return
		}
		addr := rec.Address.String()
		secrets := redact.EntrySecrets(rec.Entry)
		pl.e.Secrets().Set(addr, secrets)
		start := time.Now()
		pl.e.Emit(engine.Event{Type: engine.EventStatus, Status: engine.StatusRefreshing, Action: execgraph.ActionNoOp, Address: addr, Provider: rec.Entry.Provider})
		resp, err := pl.e.Providers().Call(ctx, rec.Entry.Provider, addr, &schema.Request{ReadResourceRequest: &schema.ReadResourceRequest{
			Resource: schema.ExtantResource{Type: rec.Entry.Type, InputProperties: rec.Entry.InputProperties, OutputProperties: rec.Entry.OutputProperties},
		}})
		if err != nil {
			results[i].err = redact.Error(fmt.Errorf("refresh %s (provider %s): %w", addr, rec.Entry.Provider, err), secrets)
			return
		}
		results[i].resp = resp.ReadResourceResponse
		pl.e.Emit(engine.Event{Type: engine.EventStatus, Status: engine.StatusRefreshed, Action: execgraph.ActionNoOp, Address: addr, Provider: rec.Entry.Provider, Elapsed: time.Since(start)})
	})
	for i, rec := range todo {
		if err := results[i].err; err != nil {
			return err
		}
		read := results[i].resp
		addr := rec.Address.String()
		if !read.Exists {
			pl.plan.Drift = append(pl.plan.Drift, &Drift{Address: rec.Address, Handler: rec.Handler, Gone: true, Recorded: rec.Entry})
			if present[addr] {
				delete(pl.recorded, addr)
			}
			continue
		}
		now := rec.Entry
		now.OutputProperties = read.OutputProperties
		if now.OutputProperties == nil {
			now.OutputProperties = map[string]any{}
		}
		if read.InputProperties != nil {
			now.InputProperties = read.InputProperties
		}
		if SameInputs(now.InputProperties, rec.Entry.InputProperties) && SameInputs(now.OutputProperties, rec.Entry.OutputProperties) {
			continue
		}
		pl.plan.Drift = append(pl.plan.Drift, &Drift{Address: rec.Address, Handler: rec.Handler, Recorded: rec.Entry, Now: now})
		pl.recorded[addr] = &statedoc.Recorded{Address: rec.Address, Handler: rec.Handler, Entry: now}
	}
	return nil
}

// noteDrift explains, on each change a refresh decided, why.
func (pl *planner) noteDrift() {
	for _, d := range pl.plan.Drift {
		c := pl.plan.Change(d.Address.String())
		if c == nil || !d.Gone {
			continue
		}
		switch c.Action {
		case execgraph.ActionCreate:
			c.Note = "the recorded object no longer exists"
		case execgraph.ActionDestroy:
			c.Note = "the recorded object no longer exists; this records that"
		}
	}
}

// DriftOf returns what a refresh found for addr, or nil.
func (p *Plan) DriftOf(addr string) *Drift {
	for _, d := range p.Drift {
		if d.Address.String() == addr {
			return d
		}
	}
	return nil
}
