package session

import (
	"context"
	"fmt"

	"github.com/pierhq/pier/host/engine"
	"github.com/pierhq/pier/host/hclsource"
	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/host/statedoc"
)

// Graph is the deployment's dependency graph of resource blocks, as pier
// graph prints it. An HCL deployment's is static; a Nix deployment's
// references are known only inside nix eval, so its graph has the
// resources of one resolve, with their state handlers as the only edges.
func (d *Deployment) Graph(ctx context.Context) (*hclsource.Graph, error) {
	if d.opts.Flake == "" {
		src, err := d.take()
		if err != nil {
			return nil, err
		}
		h, ok := src.(*hclsource.Deployment)
		if !ok {
			panic(fmt.Sprintf("session: a directory loaded as %T, not an HCL deployment: this is a bug in pier", src))
		}
		return h.Graph(), nil
	}
	snap, err := d.Snapshot(ctx)
	if err != nil {
		return nil, err
	}
	g := &hclsource.Graph{}
	seen := map[string]bool{}
	add := func(r *source.Resource) {
		if seen[r.Address.String()] {
			return
		}
		seen[r.Address.String()] = true
		g.Nodes = append(g.Nodes, hclsource.GraphNode{Address: r.Address, Provider: r.Provider, Type: r.Type, Range: r.Range})
		if r.State != nil {
			g.Edges = append(g.Edges, hclsource.GraphEdge{From: *r.State, To: r.Address, Kind: hclsource.EdgeState})
		}
	}
	for _, r := range snap.Ready {
		add(r)
	}
	for _, b := range snap.Blocked {
		if b.Resource != nil {
			add(b.Resource)
		}
	}
	return g, nil
}

// States reads every state handler's recorded state without taking its
// write lock (where the handler can), so it answers while an apply runs.
// It starts only the state handlers' providers.
func (d *Deployment) States(ctx context.Context) (map[string]*statedoc.View, error) {
	eng, err := d.readOnly()
	if err != nil {
		return nil, err
	}
	defer eng.Close()
	return eng.States(ctx)
}

// Handlers resolves the deployment's state handlers, starting no provider.
func (d *Deployment) Handlers(ctx context.Context) (map[string]engine.Handler, error) {
	eng, err := d.readOnly()
	if err != nil {
		return nil, err
	}
	defer eng.Close()
	return eng.Handlers(ctx)
}

// ReadOnlyEngine builds an engine that opens the state handlers that can
// without their write lock: for a plan that is shown, not applied, so
// that it answers while an apply runs. The caller closes it.
func (d *Deployment) ReadOnlyEngine(events func(engine.Event)) (*engine.Engine, error) {
	return d.NewEngine(EngineOptions{Events: events, ReadOnlyState: true, Quiet: true})
}
