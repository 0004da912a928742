package hclsource

import "github.com/pierhq/pier/host/source"

var _ source.StateHandlerLister = (*Deployment)(nil)

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
