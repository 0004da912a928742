package source

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
