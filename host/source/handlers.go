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
