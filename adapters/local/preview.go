package local

import (
	"context"
	"errors"

	"github.com/pierhq/pier/providersdk"
	"github.com/pierhq/pier/schema"
)

// checker is a resource type whose inputs can be checked without acting:
// what its create (stateful or not) or update would refuse first. Types
// that are never previewed (state_file, a state handler, runs before the
// plan) need not implement it.
type checker interface {
	check(in schema.Properties, stateful bool) error
}

var _ providersdk.Previewer = (*Provider)(nil)

// Preview implements [providersdk.Previewer]: at plan, it refuses the
// inputs the create or update would refuse (an unknown key, a wrong
// type, a missing required key, a stateful-only type without state), as
// diagnostics naming the input. It changes nothing, and never replaces:
// every local type updates in place.
func (p *Provider) Preview(_ context.Context, req *schema.PreviewResourceRequest) (*schema.PreviewResourceResponse, error) {
	rt, err := p.lookup(req.Type)
	if err != nil {
		return refused("Unknown resource type", err), nil
	}
	c, ok := rt.(checker)
	if !ok {
		return &schema.PreviewResourceResponse{}, nil
	}
	stateful := req.Resource != nil || req.IsStateful
	if err := c.check(req.InputProperties, stateful); err != nil {
		return refused("Invalid input", err), nil
	}
	return &schema.PreviewResourceResponse{}, nil
}

// refused is a preview's answer for inputs the provider cannot accept.
func refused(summary string, err error) *schema.PreviewResourceResponse {
	d := schema.Diagnostic{Severity: schema.SeverityError, Summary: summary, Detail: err.Error()}
	var ie *providersdk.InputError
	if errors.As(err, &ie) && ie.Field != "" {
		d.Detail = ie.Problem
		d.Attribute = schema.AttributePath{ie.Field}
	}
	var ns needsStateError
	if errors.As(err, &ns) {
		d.Summary = "Missing state"
	}
	return &schema.PreviewResourceResponse{Diagnostics: []schema.Diagnostic{d}}
}

func (fileType) check(in schema.Properties, _ bool) error {
	_, _, err := decodeFileInputs(in)
	return err
}

func (memoType) check(in schema.Properties, stateful bool) error {
	var v memoInputs
	if err := providersdk.DecodeInputs(in, &v); err != nil {
		return err
	}
	if !stateful {
		return errMemoNeedsState
	}
	return nil
}

func (execType) check(in schema.Properties, stateful bool) error {
	var v execInputs
	if err := providersdk.DecodeInputs(in, &v); err != nil {
		return err
	}
	if v.Once && !stateful {
		return errOnceNeedsState
	}
	return nil
}
