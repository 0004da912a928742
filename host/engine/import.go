package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/host/statedoc"
	"github.com/pierhq/pier/schema"
)

// ImportResult says what an import recorded.
type ImportResult struct {
	Address  source.Address
	Handler  string
	Provider string
	Entry    statedoc.Entry
	// ResolvedPending says the import cleared a pending create of the
	// address, left by an interrupted apply.
	ResolvedPending bool
}

// Import adopts an object that already exists into state: it asks the
// resource's provider (which must declare import) for the object with id,
// and records the inputs and outputs it reports under addr with an
// "import" event, as if pier had created it. addr must be a resource of
// the deployment with a state handler, and recorded nowhere yet. A plan
// afterwards diffs the configuration against what was imported.
func (e *Engine) Import(ctx context.Context, addr, id string) (ImportResult, error) {
	a, err := source.ParseAddress(addr)
	if err != nil {
		return ImportResult{}, err
	}
	pl, snap, err := e.readStatesOnly(ctx)
	if err != nil {
		return ImportResult{}, err
	}
	return e.importInto(ctx, pl, snap, a, id)
}

// readStatesOnly reads the states, as readOnly does, and returns the
// snapshot they were read for.
func (e *Engine) readStatesOnly(ctx context.Context) (*planner, *source.Snapshot, error) {
	snap, err := e.Snapshot(ctx, source.Outputs{})
	if err != nil {
		return nil, nil, err
	}
	pl := &planner{e: e, plan: &Plan{States: map[string]*statedoc.View{}, Known: source.Outputs{}, handlers: map[string]*HandlerRef{}}, recorded: map[string]*statedoc.Recorded{}}
	if err := pl.readStates(ctx, snap); err != nil {
		return nil, nil, err
	}
	return pl, snap, nil
}

// importInto imports into states already read. Recording the object
// clears a pending create of a (see pending.go): importing is how the
// object an interrupted create made is adopted.
func (e *Engine) importInto(ctx context.Context, pl *planner, snap *source.Snapshot, a source.Address, id string) (ImportResult, error) {
	r := findResource(snap, a)
	if r == nil {
		return ImportResult{}, fmt.Errorf("%s is not a resource of this deployment: write its resource block first, then import the object into it", a)
	}
	if r.State == nil {
		return ImportResult{}, fmt.Errorf("%s (%s) has no state handler: import records an object in state, so give the resource state = resource.NAME", a, r.Range)
	}
	if rec := pl.recorded[a.String()]; rec != nil {
		return ImportResult{}, fmt.Errorf("%s is already recorded in state %s; to import another object, forget it first (pier state forget %s)", a, rec.Handler, a)
	}
	if !e.providers.Supports(r.Provider, schema.OperationImport) {
		ops := []string{}
		for _, op := range e.providers.operations(r.Provider) {
			ops = append(ops, string(op))
		}
		return ImportResult{}, fmt.Errorf("%s (%s): provider %s does not declare the import operation (it declares: %s), so pier cannot adopt an object into it", a, r.Range, r.Provider, strings.Join(ops, ", "))
	}
	h := r.State.String()
	ref := pl.plan.handlers[h]
	if ref == nil {
		return ImportResult{}, fmt.Errorf("%s (%s): state handler %s was not read", a, r.Range, h)
	}
	entry, err := e.importObject(ctx, r, id)
	if err != nil {
		return ImportResult{}, err
	}
	rd := NewRecorder(e, h, ref)
	defer rd.Close()
	if err := rd.Record(ctx, "import", func(pb *statedoc.PatchBuilder) error { return pb.Put(a, entry) }); err != nil {
		return ImportResult{}, fmt.Errorf("import %s: record it in state %s (provider %s): %w", a, h, ref.Resource.Provider, err)
	}
	_, pending := ref.View.Pending[a.String()]
	return ImportResult{Address: a, Handler: h, Provider: r.Provider, Entry: entry, ResolvedPending: pending}, nil
}

// findResource returns the resource at a, ready or blocked on outputs.
func findResource(snap *source.Snapshot, a source.Address) *source.Resource {
	for _, r := range snap.Ready {
		if r.Address.String() == a.String() {
			return r
		}
	}
	for _, b := range snap.Blocked {
		if b.Resource != nil && b.Address.String() == a.String() {
			return b.Resource
		}
	}
	return nil
}
