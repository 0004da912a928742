package source

import "context"

// StateHandlerLister is implemented by sources that know, before they
// resolve, which resources hold other resources' state: the engine starts
// those providers' processes while the deployment resolves, instead of
// after. It is a hint only: the engine still reads every handler the
// snapshot names, and a listed handler that no snapshot names costs one
// idle process.
type StateHandlerLister interface {
	StateHandlers() []StateHandler
}

// StateHandler is a resource that holds other resources' state.
type StateHandler struct {
	// Address is the handler's address ([Address.String]).
	Address string
	// Provider is the declaration of the provider that serves it.
	Provider *Provider
}

// HandlerWatcher is implemented by sources that can tell, while they
// resolve, that a state handler they list (see [StateHandlerLister]) is
// ready: the engine then reads its state while the rest of the deployment
// resolves, instead of after.
type HandlerWatcher interface {
	// WatchHandlers makes the Resolve calls that follow pass f each listed
	// handler once it is evaluated ready, on the resolving goroutine, so f
	// must not block. The resource passed is the one the snapshot will
	// hold, unless the handler is evaluated again. Nil stops the calls.
	WatchHandlers(f func(*Resource))
}

// HandlersFirst is implemented by sources that can evaluate a
// deployment's state handlers before the rest of it, so that a plan reads
// its states first and then resolves the deployment once, with the
// recorded outputs known from the start.
type HandlersFirst interface {
	// ResolveHandlers is, for the state handlers alone, the first
	// Resolve with no outputs known: its snapshot holds the handlers as
	// that Resolve would make them, the resources every state handler
	// lister names and those of a built-in provider's state types, and
	// nothing else. The Resolve that follows evaluates the rest. It
	// reports false, having evaluated nothing, when it was called after
	// a Resolve, when the first Resolve could make more of the deployment
	// than the later ones (count or for_each reading resources, import,
	// moved and removed blocks, refresh = true, modules), when a handler
	// reads another resource, when no block reads another's outputs (the
	// first Resolve then converts none, where this path would convert
	// them all), or when the handlers' evaluation found
	// anything to report: the first Resolve reports it then, in its
	// place.
	ResolveHandlers(ctx context.Context) (*Snapshot, bool)
}
