package plan

import (
	"context"
	"fmt"
	"strings"

	"github.com/pierhq/pier/host/engine"
	"github.com/pierhq/pier/host/execgraph"
	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/host/statedoc"
	"github.com/pierhq/pier/schema"
	"golang.org/x/sync/errgroup"
)

// Import blocks (source.Import), as Terraform 1.5+ plans them: the plan
// asks the provider for the object (the import operation only reads), and
// diffs the configuration against what it reports, so one plan says the
// object "will be imported" and, where the configuration differs, also
// updated or replaced. Apply records the imported object ("import" event)
// and then makes that change. Nothing is written while planning.
//
// A block whose address is recorded already is done: it is ignored, as
// Terraform ignores it, unless the object was imported by another id,
// which is an error. The record keeps the id it was imported by
// (Entry.ImportID) for that comparison.

// ImportSpec is an import block's part in a change: the change first
// records the object its provider reported for ID.
type ImportSpec struct {
	ID    string
	Range source.Range
}

// importBlocks asks the providers for the objects the import blocks name
// that are not recorded yet, in parallel within the engine's bound, and
// plans against them as if recorded.
func (pl *planner) importBlocks(ctx context.Context, snap *source.Snapshot) error {
	type job struct {
		im *source.Import
		r  *source.Resource
	}
	var jobs []job
	for _, im := range snap.Imports {
		addr := im.To.String()
		r := engine.FindResource(snap, im.To)
		if r == nil {
			return fmt.Errorf("%s: import into %s: the resource is not known before apply (its for_each or count depends on outputs); apply first, then import", im.Range, addr)
		}
		if r.State == nil {
			return fmt.Errorf("%s: import into %s (%s): the resource has no state handler: import records an object in state, so give it state = resource.NAME", im.Range, addr, r.Range)
		}
		if rec := pl.recorded[addr]; rec != nil {
			// Compared with the id the object was imported by, never with
			// its id output: a provider's import id is often composite
			// (time_offset's "BASE,YEARS,MONTHS,…"), unlike the id it
			// reports. An object pier created, or imported before ids
			// were recorded, satisfies the block.
			if was := rec.Entry.ImportID; was != "" && was != im.ID {
				return fmt.Errorf("%s: import into %s: it is already managed, as the object imported by id %q in state %s, not %q: remove the import block, or forget the record first (pier state forget %s)", im.Range, addr, was, rec.Handler, im.ID, addr)
			}
			continue // imported already
		}
		if !pl.e.Providers().Supports(r.Provider, schema.OperationImport) {
			ops := []string{}
			for _, op := range pl.e.Providers().Operations(r.Provider) {
				ops = append(ops, string(op))
			}
			return fmt.Errorf("%s: import into %s: provider %s does not declare the import operation (it declares: %s), so pier cannot adopt an object into it", im.Range, addr, r.Provider, strings.Join(ops, ", "))
		}
		if _, ok := pl.plan.States[r.State.String()]; !ok {
			return fmt.Errorf("%s: import into %s: state handler %s was not read", im.Range, addr, r.State)
		}
		jobs = append(jobs, job{im, r})
	}
	entries := make([]statedoc.Entry, len(jobs))
	errs := make([]error, len(jobs))
	// Every import runs, and the first error in declaration order is the
	// one reported, so each keeps its own error and Go returns nil.
	var g errgroup.Group
	g.SetLimit(pl.e.Parallelism())
	for i, j := range jobs {
		g.Go(func() error {
			if err := ctx.Err(); err != nil {
				errs[i] = err
				return nil
			}
			entries[i], errs[i] = pl.e.ImportObject(ctx, j.r, j.im.ID)
			if errs[i] != nil {
				errs[i] = fmt.Errorf("%s: %w", j.im.Range, errs[i])
			}
			return nil
		})
	}
	_ = g.Wait() // every Go returns nil: errors are in errs
	for i, j := range jobs {
		if errs[i] != nil {
			return errs[i]
		}
		pl.recorded[j.im.To.String()] = &statedoc.Recorded{Address: j.im.To, Handler: j.r.State.String(), Entry: entries[i]}
		pl.imports[j.im.To.String()] = &ImportSpec{ID: j.im.ID, Range: j.im.Range}
	}
	return nil
}

// markImports puts each import on its resource's change: a change the
// configuration does not otherwise need is the import alone.
func (pl *planner) markImports() {
	for addr, spec := range pl.imports {
		c := pl.plan.Change(addr)
		if c == nil {
			continue
		}
		c.Import = spec
		if c.Action == execgraph.ActionNoOp {
			c.Action = execgraph.ActionImport
		}
	}
}
