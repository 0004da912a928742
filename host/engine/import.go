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
	set, snap, err := e.readStatesOnly(ctx)
	if err != nil {
		return ImportResult{}, err
	}
	return e.importInto(ctx, set, snap, a, id)
}

// importInto imports into states already read. Recording the object
// clears a pending create of a (see pending.go): importing is how the
// object an interrupted create made is adopted.
func (e *Engine) importInto(ctx context.Context, set *StateSet, snap *source.Snapshot, a source.Address, id string) (ImportResult, error) {
	r := FindResource(snap, a)
	if r == nil {
		return ImportResult{}, fmt.Errorf("%s is not a resource of this deployment: write its resource block first, then import the object into it", a)
	}
	if r.State == nil {
		return ImportResult{}, fmt.Errorf("%s (%s) has no state handler: import records an object in state, so give the resource state = resource.NAME", a, r.Range)
	}
	if rec := set.Recorded[a.String()]; rec != nil {
		return ImportResult{}, fmt.Errorf("%s is already recorded in state %s; to import another object, forget it first (pier state forget %s)", a, rec.Handler, a)
	}
	if !e.providers.Supports(r.Provider, schema.OperationImport) {
		ops := []string{}
		for _, op := range e.providers.Operations(r.Provider) {
			ops = append(ops, string(op))
		}
		return ImportResult{}, fmt.Errorf("%s (%s): provider %s does not declare the import operation (it declares: %s), so pier cannot adopt an object into it", a, r.Range, r.Provider, strings.Join(ops, ", "))
	}
	h := r.State.String()
	ref := set.Handlers[h]
	if ref == nil {
		return ImportResult{}, fmt.Errorf("%s (%s): state handler %s was not read", a, r.Range, h)
	}
	entry, err := e.ImportObject(ctx, r, id)
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

// ImportObject asks r's provider for the object id and returns the entry
// that records it, as if pier had created it.
func (e *Engine) ImportObject(ctx context.Context, r *source.Resource, id string) (statedoc.Entry, error) {
	resp, err := e.providers.Call(ctx, r.Provider, r.Address.String(), &schema.Request{ImportResourceRequest: &schema.ImportResourceRequest{Type: r.Type, ID: id}})
	if err != nil {
		return statedoc.Entry{}, fmt.Errorf("import %s (%s %s, id %q): %w", r.Address, r.Provider, r.Type, id, err)
	}
	im := resp.ImportResourceResponse
	deps := make([]string, 0, len(r.DependsOn))
	for _, d := range r.DependsOn {
		deps = append(deps, d.String())
	}
	entry := statedoc.Entry{Type: r.Type, InputProperties: im.InputProperties, OutputProperties: im.OutputProperties, Provider: r.Provider, Dependencies: deps, SensitiveInputs: r.SensitiveInputs, ImportID: id}
	if entry.InputProperties == nil {
		entry.InputProperties = map[string]any{}
	}
	if entry.OutputProperties == nil {
		entry.OutputProperties = map[string]any{}
	}
	return entry, nil
}

// FindResource returns the resource at a, ready or blocked on outputs.
func FindResource(snap *source.Snapshot, a source.Address) *source.Resource {
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
