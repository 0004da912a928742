package apply

import (
	"context"
	"fmt"

	"github.com/pierhq/pier/host/execgraph"
	"github.com/pierhq/pier/host/statedoc"
)

// recordDrift records, before anything else is applied, what a refresh
// read of the objects the plan leaves alone, so that state matches them.
// Changed objects record their new entry when changed; gone ones when
// created again or destroyed.
func (a *applier) recordDrift(ctx context.Context) error {
	for _, d := range a.live.Drift {
		c := a.live.Change(d.Address.String())
		if d.Gone || c == nil || c.Action != execgraph.ActionNoOp {
			continue
		}
		r := a.recorders[d.Handler]
		if r == nil {
			return fmt.Errorf("record the refreshed %s: state handler %s was not read", d.Address, d.Handler)
		}
		now := d.Now
		if err := r.Record(ctx, "refresh", func(pb *statedoc.PatchBuilder) error { return pb.Put(d.Address, now) }); err != nil {
			return fmt.Errorf("record the refreshed %s in state %s: %w", d.Address, d.Handler, err)
		}
	}
	return nil
}
