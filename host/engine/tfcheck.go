package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/host/tfschema"
)

// tfCheck holds what checking Terraform inputs keeps for one engine: the
// schemas fetched (once per plugin path) and the parsed source files.
type tfCheck struct {
	fetcher *tfschema.Fetcher
	locator *tfschema.Locator
}

// checkTerraformInputs checks the inputs of the resources the plan creates
// or updates on Terraform providers against their providers' schemas, and
// returns every unknown input as a configuration error with its position.
// Unchanged resources are not checked: their inputs were applied before,
// and checking them would start the provider, which an unchanged
// deployment must not do.
func (e *Engine) checkTerraformInputs(ctx context.Context, p *Plan) error {
	byPlugin := map[string][]*Change{}
	for _, c := range p.Changes {
		if c.StateHandler || c.Structural || c.Resource == nil {
			continue
		}
		switch c.Action {
		case ActionCreate, ActionUpdate, ActionReplace:
		default:
			continue
		}
		d := e.providers.decl(c.Resource.Provider)
		if d == nil || d.Terraform == "" {
			continue
		}
		byPlugin[d.Terraform] = append(byPlugin[d.Terraform], c)
	}
	if len(byPlugin) == 0 {
		return nil
	}
	if e.tf == nil {
		e.tf = &tfCheck{fetcher: &tfschema.Fetcher{Pier: e.cfg.PierExecutable, Dir: e.cfg.Dir}, locator: &tfschema.Locator{}}
	}
	plugins := make([]string, 0, len(byPlugin))
	for plugin := range byPlugin {
		plugins = append(plugins, plugin)
	}
	slices.Sort(plugins)
	// Each schema costs a provider start; fetch them side by side.
	schemas := make([]*tfschema.Schema, len(plugins))
	fetchErrs := make([]error, len(plugins))
	var wg sync.WaitGroup
	for i, plugin := range plugins {
		wg.Go(func() { schemas[i], fetchErrs[i] = e.tf.fetcher.Schema(ctx, plugin) })
	}
	wg.Wait()

	var errs []error
	seen := map[string]*tfschema.InputError{}
	for i, plugin := range plugins {
		if fetchErrs[i] != nil {
			c := byPlugin[plugin][0]
			errs = append(errs, fmtErr(c, fetchErrs[i]))
			continue
		}
		s := schemas[i]
		for _, c := range byPlugin[plugin] {
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
				report(&tfschema.InputError{Range: e.tf.locator.Locate(r.Range, u.Path), Resource: r.Address.String(), Provider: r.Provider,
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

// decl returns a provider's declaration, or nil.
func (p *providers) decl(name string) *source.Provider {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.decls[name]
}
