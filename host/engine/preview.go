package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/pierhq/pier/schema"
)

// previewUpdates asks each provider that declares the preview operation
// what its planned updates would do, and turns the updates it says
// replace the object into [ActionReplace]. Only updates are previewed, so
// an unchanged deployment still starts no provider. Pending updates are
// not: their inputs are not known yet; the provider decides when they
// run.
func (e *Engine) previewUpdates(ctx context.Context, p *Plan) error {
	var todo []*Change
	for _, c := range p.Changes {
		if !previewable(c) || !e.providers.supports(c.Resource.Provider, schema.OperationPreview) {
			continue
		}
		todo = append(todo, c)
	}
	if len(todo) == 0 {
		return nil
	}
	// The pools bound each provider; this bounds the goroutines waiting
	// for them, as apply bounds its workers.
	sem := make(chan struct{}, e.cfg.parallelism())
	errs := make([]error, len(todo))
	var wg sync.WaitGroup
	for i, c := range todo {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			errs[i] = e.preview(ctx, c)
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// previewable reports whether a change is an update a provider carries
// out, with known inputs: not a pending one, and not one that only moves
// its record to another state handler.
func previewable(c *Change) bool {
	if c.Action != ActionUpdate || c.Pending || c.StateHandler || c.Structural || c.Resource == nil || c.Prior == nil {
		return false
	}
	return c.Prior.Entry.Type == c.Resource.Type && !sameInputs(c.Resource.Inputs, c.Prior.Entry.InputProperties)
}

// preview asks one change's provider whether its update replaces. It
// touches only c, so previews of different changes run side by side.
func (e *Engine) preview(ctx context.Context, c *Change) error {
	r, prior := c.Resource, c.Prior.Entry
	resp, err := e.providers.call(ctx, r.Provider, c.Addr(), &schema.Request{PreviewResourceRequest: &schema.PreviewResourceRequest{
		Resource:        schema.ExtantResource{Type: prior.Type, InputProperties: prior.InputProperties, OutputProperties: prior.OutputProperties},
		InputProperties: r.Inputs,
	}})
	if err != nil {
		return fmt.Errorf("preview the update of %s (provider %s): %w", c.Addr(), r.Provider, err)
	}
	if !resp.PreviewResourceResponse.Replace {
		return nil
	}
	c.Action = ActionReplace
	c.Note = replaceNote(resp.PreviewResourceResponse.ReplaceReasons, c.Note)
	return nil
}

// replaceNote says which attributes force the replacement, keeping a note
// the change already had (e.g. that it moves to another state).
func replaceNote(reasons []string, prior string) string {
	var why string
	switch len(reasons) {
	case 0:
		why = "the provider cannot update it in place"
	case 1:
		why = reasons[0] + " forces a new object"
	default:
		why = strings.Join(reasons, ", ") + " force a new object"
	}
	if prior != "" {
		return why + "; " + prior
	}
	return why
}
