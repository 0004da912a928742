package provider

import (
	"context"

	"github.com/pierhq/pier/schema"
)

// caller is what [Process] and [Pool] have in common.
type caller interface {
	Call(ctx context.Context, resource string, req *schema.Request) (*schema.Response, error)
}

var (
	_ caller = (*Process)(nil)
	_ caller = (*Pool)(nil)
)

// call sends req and picks the typed response; Call has already checked
// that the response is of the kind that answers req.
func call[T any](ctx context.Context, c caller, resource string, req *schema.Request, pick func(*schema.Response) *T) (*T, error) {
	resp, err := c.Call(ctx, resource, req)
	if err != nil {
		return nil, err
	}
	return pick(resp), nil
}

// Create sends a createResourceRequest.
func (p *Process) Create(ctx context.Context, resource string, req *schema.CreateResourceRequest) (*schema.CreateResourceResponse, error) {
	return create(ctx, p, resource, req)
}

// Update sends an updateResourceRequest.
func (p *Process) Update(ctx context.Context, resource string, req *schema.UpdateResourceRequest) (*schema.UpdateResourceResponse, error) {
	return update(ctx, p, resource, req)
}

// Destroy sends a destroyResourceRequest (optional operation destroy).
func (p *Process) Destroy(ctx context.Context, resource string, req *schema.DestroyResourceRequest) (*schema.DestroyResourceResponse, error) {
	return destroy(ctx, p, resource, req)
}

// Read sends a readResourceRequest (optional operation read).
func (p *Process) Read(ctx context.Context, resource string, req *schema.ReadResourceRequest) (*schema.ReadResourceResponse, error) {
	return read(ctx, p, resource, req)
}

// Import sends an importResourceRequest (optional operation import).
func (p *Process) Import(ctx context.Context, resource string, req *schema.ImportResourceRequest) (*schema.ImportResourceResponse, error) {
	return importResource(ctx, p, resource, req)
}

// StateRead sends a stateResourceReadRequest to a state provider.
func (p *Process) StateRead(ctx context.Context, resource string, req *schema.StateResourceReadRequest) (*schema.StateResourceReadResponse, error) {
	return stateRead(ctx, p, resource, req)
}

// StateEvent sends a stateResourceEvent to a state provider.
func (p *Process) StateEvent(ctx context.Context, resource string, req *schema.StateResourceEvent) (*schema.StateResourceEventResponse, error) {
	return stateEvent(ctx, p, resource, req)
}

// Create sends a createResourceRequest; see [Process.Create].
func (pl *Pool) Create(ctx context.Context, resource string, req *schema.CreateResourceRequest) (*schema.CreateResourceResponse, error) {
	return create(ctx, pl, resource, req)
}

// Update sends an updateResourceRequest; see [Process.Update].
func (pl *Pool) Update(ctx context.Context, resource string, req *schema.UpdateResourceRequest) (*schema.UpdateResourceResponse, error) {
	return update(ctx, pl, resource, req)
}

// Destroy sends a destroyResourceRequest; see [Process.Destroy].
func (pl *Pool) Destroy(ctx context.Context, resource string, req *schema.DestroyResourceRequest) (*schema.DestroyResourceResponse, error) {
	return destroy(ctx, pl, resource, req)
}

// Read sends a readResourceRequest; see [Process.Read].
func (pl *Pool) Read(ctx context.Context, resource string, req *schema.ReadResourceRequest) (*schema.ReadResourceResponse, error) {
	return read(ctx, pl, resource, req)
}

// Import sends an importResourceRequest; see [Process.Import].
func (pl *Pool) Import(ctx context.Context, resource string, req *schema.ImportResourceRequest) (*schema.ImportResourceResponse, error) {
	return importResource(ctx, pl, resource, req)
}

// StateRead sends a stateResourceReadRequest; see [Process.StateRead].
func (pl *Pool) StateRead(ctx context.Context, resource string, req *schema.StateResourceReadRequest) (*schema.StateResourceReadResponse, error) {
	return stateRead(ctx, pl, resource, req)
}

// StateEvent sends a stateResourceEvent; see [Process.StateEvent].
func (pl *Pool) StateEvent(ctx context.Context, resource string, req *schema.StateResourceEvent) (*schema.StateResourceEventResponse, error) {
	return stateEvent(ctx, pl, resource, req)
}

func create(ctx context.Context, c caller, resource string, req *schema.CreateResourceRequest) (*schema.CreateResourceResponse, error) {
	return call(ctx, c, resource, &schema.Request{CreateResourceRequest: req},
		func(r *schema.Response) *schema.CreateResourceResponse { return r.CreateResourceResponse })
}

func update(ctx context.Context, c caller, resource string, req *schema.UpdateResourceRequest) (*schema.UpdateResourceResponse, error) {
	return call(ctx, c, resource, &schema.Request{UpdateResourceRequest: req},
		func(r *schema.Response) *schema.UpdateResourceResponse { return r.UpdateResourceResponse })
}

func destroy(ctx context.Context, c caller, resource string, req *schema.DestroyResourceRequest) (*schema.DestroyResourceResponse, error) {
	return call(ctx, c, resource, &schema.Request{DestroyResourceRequest: req},
		func(r *schema.Response) *schema.DestroyResourceResponse { return r.DestroyResourceResponse })
}

func read(ctx context.Context, c caller, resource string, req *schema.ReadResourceRequest) (*schema.ReadResourceResponse, error) {
	return call(ctx, c, resource, &schema.Request{ReadResourceRequest: req},
		func(r *schema.Response) *schema.ReadResourceResponse { return r.ReadResourceResponse })
}

func importResource(ctx context.Context, c caller, resource string, req *schema.ImportResourceRequest) (*schema.ImportResourceResponse, error) {
	return call(ctx, c, resource, &schema.Request{ImportResourceRequest: req},
		func(r *schema.Response) *schema.ImportResourceResponse { return r.ImportResourceResponse })
}

func stateRead(ctx context.Context, c caller, resource string, req *schema.StateResourceReadRequest) (*schema.StateResourceReadResponse, error) {
	return call(ctx, c, resource, &schema.Request{StateResourceReadRequest: req},
		func(r *schema.Response) *schema.StateResourceReadResponse { return r.StateResourceReadResponse })
}

func stateEvent(ctx context.Context, c caller, resource string, req *schema.StateResourceEvent) (*schema.StateResourceEventResponse, error) {
	return call(ctx, c, resource, &schema.Request{StateResourceEvent: req},
		func(r *schema.Response) *schema.StateResourceEventResponse { return r.StateResourceEventResponse })
}
