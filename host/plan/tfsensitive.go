package plan

import (
	"context"
	"maps"
	"slices"
	"sync"

	"github.com/pierhq/pier/host/source"
)

// markSchemaSensitive tells the source which inputs the schemas of the
// Terraform resources that change call sensitive, and resolves again, so
// that a resource reading such an input of a resource this plan creates
// or updates hides it (and an output holding it must be declared
// sensitive) in this plan already: those resources' outputs, which list
// the sensitive paths, are not known yet. Unchanged resources need no
// schema, so an unchanged deployment starts no provider here; the
// schemas fetched are the ones checkTerraformInputs checks with next.
func (pl *planner) markSchemaSensitive(ctx context.Context, snap *source.Snapshot) (*source.Snapshot, error) {
	src, ok := pl.e.Source().(source.SchemaSensitive)
	if !ok {
		return snap, nil
	}
	types := map[string]map[string]bool{} // provider → types
	count := map[string]int{}             // provider → ready resources
	want := func(r *source.Resource, ready bool) {
		if r == nil {
			return
		}
		if _, unchanged := pl.plan.Known[r.Address.String()]; unchanged {
			return
		}
		if d := pl.e.Providers().Decl(r.Provider); d == nil || d.Terraform == "" {
			return
		}
		if types[r.Provider] == nil {
			types[r.Provider] = map[string]bool{}
		}
		types[r.Provider][r.Type] = true
		if ready {
			count[r.Provider]++
		}
	}
	for _, r := range snap.Ready {
		want(r, true)
	}
	for _, b := range snap.Blocked {
		want(b.Resource, false)
	}
	if len(types) == 0 {
		return snap, nil
	}
	names := slices.Sorted(maps.Keys(types))
	var wg sync.WaitGroup
	paths := make([]map[string][]string, len(names))
	for i, name := range names {
		// The provider starts now, and behind it the first bridge,
		// when a ready resource will be previewed: a blocked one's
		// inputs are not known yet, so it is not.
		pl.e.Providers().StartTerraform(name, count[name])
		wg.Go(func() {
			// A schema that cannot be read is reported by
			// checkTerraformInputs, at the resource that needs it.
			s, err := pl.e.Providers().TerraformSchema(ctx, name)
			if err != nil {
				return
			}
			paths[i] = map[string][]string{}
			for typ := range types[name] {
				if t := s.Types[typ]; t != nil {
					paths[i][typ] = t.SensitivePaths()
				}
			}
		})
	}
	wg.Wait()
	changed := false
	for i, name := range names {
		for _, typ := range slices.Sorted(maps.Keys(paths[i])) {
			if src.SetSchemaSensitive(name, typ, paths[i][typ]) {
				changed = true
			}
		}
	}
	if !changed {
		return snap, nil
	}
	return pl.e.Snapshot(ctx, pl.plan.Known)
}
