package plan

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/pierhq/pier/host/engine"
	"github.com/pierhq/pier/host/execgraph"
	"github.com/pierhq/pier/host/tfschema"
)

// checkTerraformInputs checks the inputs of the resources the plan creates
// or updates on Terraform providers against their providers' schemas, and
// returns every unknown input as a configuration error with its position.
// Unchanged resources are not checked: their inputs were applied before,
// and checking them would start the provider, which an unchanged
// deployment must not do.
func checkTerraformInputs(ctx context.Context, e *engine.Engine, p *Plan) error {
	byProvider := map[string][]*Change{}
	for _, c := range p.Changes {
		if c.StateHandler || c.Structural || c.Resource == nil {
			continue
		}
		switch c.Action {
		case execgraph.ActionCreate, execgraph.ActionUpdate, execgraph.ActionReplace:
		default:
			continue
		}
		d := e.Providers().Decl(c.Resource.Provider)
		if d == nil || d.Terraform == "" {
			continue
		}
		byProvider[d.Name] = append(byProvider[d.Name], c)
	}
	if len(byProvider) == 0 {
		return nil
	}
	loc := e.UseLocator()
	names := slices.Sorted(maps.Keys(byProvider))
	// Each schema costs a provider start; fetch them side by side. The
	// provider started here is the one the apply's bridges use.
	schemas := make([]*tfschema.Schema, len(names))
	fetchErrs := make([]error, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Go(func() { schemas[i], fetchErrs[i] = e.Providers().TerraformSchema(ctx, name) })
	}
	wg.Wait()

	var errs []error
	seen := map[string]*tfschema.InputError{}
	for i, name := range names {
		plugin := e.Providers().Decl(name).Terraform
		if fetchErrs[i] != nil {
			c := byProvider[name][0]
			errs = append(errs, fmtErr(c, fetchErrs[i]))
			continue
		}
		s := schemas[i]
		for _, c := range byProvider[name] {
			r := c.Resource
			report := func(ie *tfschema.InputError) {
				// Instances of one declaration (count, for_each) share
				// their mistakes: say it once.
				key := ie.Range.String() + "\x00" + ie.Type + "\x00" + ie.Attribute
				if prev, ok := seen[key]; ok && ie.Range.Filename != "" {
					prev.Others++
					return
				}
				seen[key] = ie
				errs = append(errs, ie)
			}
			t := s.Types[r.Type]
			if t == nil {
				report(&tfschema.InputError{Range: r.Range, Resource: r.Address.String(), Provider: r.Provider, Plugin: plugin,
					Type: r.Type, Suggestion: tfschema.Suggest(r.Type, s.TypeNames())})
				continue
			}
			// The plan must not show what the schema calls sensitive.
			c.SensitiveInputs = append(c.SensitiveInputs, t.SensitivePaths()...)
			for _, u := range t.Check(r.Inputs) {
				report(&tfschema.InputError{Range: loc.Locate(r.Range, u.Path), Resource: r.Address.String(), Provider: r.Provider,
					Plugin: plugin, Type: r.Type, Attribute: u.Attribute(), Suggestion: u.Suggestion})
			}
		}
	}
	return errors.Join(errs...)
}

// fmtErr names the first resource that needed a schema that could not be
// read.
func fmtErr(c *Change, err error) error {
	pos := ""
	if p := c.Resource.Range.String(); p != "" {
		pos = p + ": "
	}
	return fmt.Errorf("%scheck the inputs of resource %s (provider %s): %w", pos, c.Addr(), c.Resource.Provider, err)
}
