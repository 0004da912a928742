package terraform

import (
	"context"

	"github.com/pierhq/pier/providersdk"
	"github.com/pierhq/pier/schema"
)

// Unavailable is the handler of a bridge whose provider could not be
// started or attached to (the provider or its holder died, the binary does
// not run): it answers every request with err, as an errorResponse. That
// is the truth, since nothing reached a provider, and it tells the host so.
// A bridge that exited instead would look like one that died mid-request,
// and the host would keep every create it had been sent as pending.
func Unavailable(err error) providersdk.Handler { return unavailable{err} }

type unavailable struct{ err error }

var (
	_ providersdk.Destroyer = unavailable{}
	_ providersdk.Reader    = unavailable{}
	_ providersdk.Importer  = unavailable{}
	_ providersdk.Previewer = unavailable{}
)

func (u unavailable) Create(context.Context, *schema.CreateResourceRequest) (*schema.CreateResourceResponse, error) {
	return nil, u.err
}

func (u unavailable) Update(context.Context, *schema.UpdateResourceRequest) (*schema.UpdateResourceResponse, error) {
	return nil, u.err
}

func (u unavailable) Destroy(context.Context, *schema.DestroyResourceRequest) (*schema.DestroyResourceResponse, error) {
	return nil, u.err
}

func (u unavailable) Read(context.Context, *schema.ReadResourceRequest) (*schema.ReadResourceResponse, error) {
	return nil, u.err
}

func (u unavailable) Import(context.Context, *schema.ImportResourceRequest) (*schema.ImportResourceResponse, error) {
	return nil, u.err
}

func (u unavailable) Preview(context.Context, *schema.PreviewResourceRequest) (*schema.PreviewResourceResponse, error) {
	return nil, u.err
}
