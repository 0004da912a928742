package providersdk

import (
	"context"

	"github.com/pierhq/pier/schema"
)

// Handler implements the operations every v0 provider must support. [Serve]
// calls its methods from one goroutine, one request at a time, in the order
// the host sent them, so a Handler needs no locking of its own. The ctx is
// cancelled when the serving loop is cancelled (the host sent SIGTERM, or a
// test stopped). A returned error becomes an errorResponse whose message is
// the error text prefixed with the operation and resource type; the process
// keeps serving. An errorResponse tells the host that nothing was done: an
// operation that may have taken effect although its outcome was lost
// returns an error wrapping [ErrOutcomeUnknown] instead, and the process
// exits without answering.
type Handler interface {
	// Create creates a resource of req.Type from req.InputProperties. When
	// req.IsStateful is false the host will not record the outputs, so a
	// resource type that needs its outputs later must return an error.
	Create(ctx context.Context, req *schema.CreateResourceRequest) (*schema.CreateResourceResponse, error)
	// Update brings the existing req.Resource to req.InputProperties. It is
	// only called for stateful resources, with the recorded inputs and
	// outputs in req.Resource.
	Update(ctx context.Context, req *schema.UpdateResourceRequest) (*schema.UpdateResourceResponse, error)
}

// Destroyer is the optional destroy operation ([schema.OperationDestroy]).
// The host calls Destroy when a stateful resource leaves the deployment, and
// only if the provider declaration lists "destroy".
type Destroyer interface {
	Destroy(ctx context.Context, req *schema.DestroyResourceRequest) (*schema.DestroyResourceResponse, error)
}

// Reader is the optional read operation ([schema.OperationRead]): report a
// resource's current outputs, for refresh and drift detection.
type Reader interface {
	Read(ctx context.Context, req *schema.ReadResourceRequest) (*schema.ReadResourceResponse, error)
}

// Importer is the optional import operation ([schema.OperationImport]):
// adopt an existing object by id.
type Importer interface {
	Import(ctx context.Context, req *schema.ImportResourceRequest) (*schema.ImportResourceResponse, error)
}

// Previewer is the optional preview operation ([schema.OperationPreview]):
// say what Create (req.Resource nil) or Update (req.Resource set) would do
// with the same inputs, without doing it. The host calls it while
// planning, for every resource it will create and every resource whose
// inputs changed, never for unchanged ones. Report what is wrong with the
// inputs as error diagnostics, each with the attribute it is about: they
// fail the plan, with the position of that input. Give the planned
// outputs, and the paths of those known only after apply; say Replace when
// an update cannot be made in place (the host then destroys and creates).
// It must not change anything real.
type Previewer interface {
	Preview(ctx context.Context, req *schema.PreviewResourceRequest) (*schema.PreviewResourceResponse, error)
}

// StateProvider is implemented by handlers whose resources store state (v0
// stateResourceReadRequest and stateResourceEvent). The host reads the whole
// state once, then sends one event per change; StateEvent must have made the
// event durable before it returns, because the host starts dependent work as
// soon as the response arrives. A handler that is not a StateProvider
// answers both messages with an errorResponse.
type StateProvider interface {
	StateRead(ctx context.Context, req *schema.StateResourceReadRequest) (*schema.StateResourceReadResponse, error)
	StateEvent(ctx context.Context, req *schema.StateResourceEvent) (*schema.StateResourceEventResponse, error)
}

// EncodedStateReader is a [StateProvider] that can answer a state read
// with the document already encoded as JSON, as a store that keeps its
// state encoded can: [ServeIO] then sends those bytes instead of encoding
// a decoded copy, which for a large state is most of the read. It returns
// ok=false when it has no encoding at hand for this request, and StateRead
// answers instead. The bytes must be one JSON object, the state document.
type EncodedStateReader interface {
	StateReadEncoded(ctx context.Context, req *schema.StateResourceReadRequest) (state []byte, ok bool, err error)
}

// Operations returns the optional operations h implements, in the order
// destroy, read, import, preview. [Serve] accepts requests and responses of exactly
// these; the provider's declaration in a deployment should list the same.
func Operations(h Handler) []schema.Operation {
	var ops []schema.Operation
	if _, ok := h.(Destroyer); ok {
		ops = append(ops, schema.OperationDestroy)
	}
	if _, ok := h.(Reader); ok {
		ops = append(ops, schema.OperationRead)
	}
	if _, ok := h.(Importer); ok {
		ops = append(ops, schema.OperationImport)
	}
	if _, ok := h.(Previewer); ok {
		ops = append(ops, schema.OperationPreview)
	}
	return ops
}
