package hclsource

import "github.com/pierhq/pier/host/source"

var (
	_ source.StateHandlerLister = (*Deployment)(nil)
	_ source.HandlerWatcher     = (*Deployment)(nil)
)

// StateHandlers lists the resources that other resources name as their
// state handler, with their providers, from the loaded configuration
// alone (see [source.StateHandlerLister]).
func (d *Deployment) StateHandlers() []source.StateHandler {
	var out []source.StateHandler
	seen := map[string]bool{}
	for _, r := range d.resources {
		if r.state == nil || r.stateRef == nil {
			continue
		}
		addr := r.state.String()
		p := d.providers[r.stateRef.target.provider]
		if p == nil || seen[addr] {
			continue
		}
		seen[addr] = true
		out = append(out, source.StateHandler{Address: addr, Provider: p})
	}
	return out
}

// WatchHandlers implements [source.HandlerWatcher]: commitInstance calls
// f with each instance that StateHandlers lists as it becomes ready.
func (d *Deployment) WatchHandlers(f func(*source.Resource)) {
	d.handlerReady, d.handlerAddrs = f, nil
	if f == nil {
		return
	}
	d.handlerAddrs = map[string]bool{}
	for _, h := range d.StateHandlers() {
		d.handlerAddrs[h.Address] = true
	}
}
