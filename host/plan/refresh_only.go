package plan

import (
	"context"
	"fmt"

	"github.com/pierhq/pier/host/execgraph"
	"github.com/pierhq/pier/host/statedoc"
)

// A --refresh-only plan, as Terraform's -refresh-only: the reads of a
// refresh, and one ActionRefresh change per object they found changed or
// gone, which apply carries out by recording the object as read (a
// "refresh" event) without asking any provider to change anything.
// Nothing is classified against the configuration: a resource whose
// block changed is neither updated nor counted.

// planRefreshOnly finishes a refresh-only plan after the reads. The
// deployment's outputs are evaluated against the state as refreshed, so
// that apply records them as Terraform's refresh-only apply does.
func (pl *planner) planRefreshOnly(ctx context.Context) (*Plan, error) {
	p := pl.plan
	p.RefreshOnly = true
	for _, d := range p.Drift {
		if d.Gone && len(d.Recorded.Deposed) > 0 {
			// Removing the entry would forget its deposed objects, which
			// may still exist.
			p.Warnings = append(p.Warnings, fmt.Sprintf("%s no longer exists, but it has %d deposed object(s) left by a create-before-destroy replacement; a refresh-only apply leaves its record alone: apply without --refresh-only to destroy them", d.Address, len(d.Recorded.Deposed)))
			continue
		}
		c := &Change{Address: d.Address, Action: execgraph.ActionRefresh, Prior: &statedoc.Recorded{Address: d.Address, Handler: d.Handler, Entry: d.Recorded}, Refreshed: d}
		if d.Gone {
			c.Note = "no longer exists: its record is removed"
		} else {
			c.Note = "changed outside of pier: recorded as read"
		}
		p.add(c)
	}
	for addr, rec := range pl.recorded {
		if _, known := p.Known[addr]; !known {
			out := rec.Entry.OutputProperties
			if out == nil {
				out = map[string]any{}
			}
			p.Known[addr] = out
		}
	}
	snap, err := pl.e.Snapshot(ctx, p.Known)
	if err != nil {
		return nil, err
	}
	p.Snapshot = snap
	p.sort()
	return p, nil
}
