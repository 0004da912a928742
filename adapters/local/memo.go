package local

import (
	"context"
	"errors"

	"github.com/pierhq/pier/providersdk"
	"github.com/pierhq/pier/schema"
)

// memoType remembers the value it was first created with. Its whole point
// is the recorded output, so it needs state.
type memoType struct{}

type memoInputs struct {
	InitializeWith any `json:"initialize_with"`
}

var errMemoNeedsState error = needsStateError("memo only makes sense with a state handler: it keeps the value it was first created with, and without state (isStateful is false) nothing would remember it; give the resource a state handler")

// needsStateError is the error of a stateful-only type created without
// state.
type needsStateError string

func (e needsStateError) Error() string { return string(e) }

func (memoType) create(_ context.Context, req *schema.CreateResourceRequest) (schema.Properties, error) {
	var in memoInputs
	if err := providersdk.DecodeInputs(req.InputProperties, &in); err != nil {
		return nil, err
	}
	if !req.IsStateful {
		return nil, errMemoNeedsState
	}
	return schema.Properties{"value": in.InitializeWith}, nil
}

// update keeps the first value, whatever initialize_with says now.
func (memoType) update(_ context.Context, req *schema.UpdateResourceRequest) (schema.Properties, error) {
	var in memoInputs
	if err := providersdk.DecodeInputs(req.InputProperties, &in); err != nil {
		return nil, err
	}
	prev, ok := req.Resource.OutputProperties["value"]
	if !ok {
		return nil, errors.New("the recorded outputs have no value, so there is nothing to keep (was the state edited by hand?)")
	}
	return schema.Properties{"value": prev}, nil
}

// destroy has nothing to undo: the value lives only in state.
func (memoType) destroy(_ context.Context, res *schema.ExtantResource) error {
	var in memoInputs
	return providersdk.DecodeInputs(res.InputProperties, &in)
}
