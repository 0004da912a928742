package engine

import (
	"context"

	"github.com/pierhq/pier/host/source"
)

// Handler is a state handler resource as the deployment declares it: what
// a command needs to reach the handler's storage itself, for what the v0
// state contract has no message for (history, an earlier state).
type Handler struct {
	Address string
	// Provider is the provider declaration's name; Builtin is set when
	// that provider ships with pier ("local", "postgres").
	Provider string
	Builtin  string
	Type     string
	Inputs   map[string]any
	// Dir is where the handler's provider runs, against which relative
	// names (a state_file's) resolve.
	Dir string
}

// Handlers returns the deployment's state handlers, by address, without
// starting any provider.
func (e *Engine) Handlers(ctx context.Context) (map[string]Handler, error) {
	snap, err := e.Snapshot(ctx, source.Outputs{})
	if err != nil {
		return nil, err
	}
	ready := map[string]int{}
	for i, r := range snap.Ready {
		ready[r.Address.String()] = i
	}
	out := map[string]Handler{}
	for h := range e.stateHandlers(snap) {
		i, ok := ready[h]
		if !ok {
			return nil, e.handlerNotReady(h, snap)
		}
		r := snap.Ready[i]
		hd := Handler{Address: h, Provider: r.Provider, Type: r.Type, Inputs: r.Inputs, Dir: e.cfg.Dir}
		if d := snap.Providers[r.Provider]; d != nil {
			hd.Builtin = d.Builtin
		}
		out[h] = hd
	}
	return out, nil
}

// PrestartHandlers starts the processes of the state handlers the source
// lists before it resolves (see [source.StateHandlerLister]), so that
// starting them overlaps resolving the deployment: the first thing a plan
// does after resolving is read every state. Only built-in providers are
// started early: they are pier itself, which the lock file does not check,
// while another provider's executable is checked when the deployment
// resolves, before anything runs it.
func (e *Engine) PrestartHandlers(ctx context.Context) {
	l, ok := e.cfg.Source.(source.StateHandlerLister)
	if !ok {
		return
	}
	for _, h := range l.StateHandlers() {
		if h.Provider == nil || h.Provider.Builtin == "" {
			continue
		}
		// An unknown builtin gets no pool; resolving reports it.
		e.providers.Declare(map[string]*source.Provider{h.Provider.Name: h.Provider})
		if pl, err := e.providers.HandlerPool(h.Provider.Name, h.Address); err == nil {
			pl.Prestart(ctx)
		}
	}
}
