package plan

import (
	"maps"
	"slices"
	"strings"

	"github.com/pierhq/pier/host/execgraph"
)

// OutputChange is a deployment output that applying the plan records
// differently from the state: "Changes to Outputs" in a plan.
type OutputChange struct {
	Name string
	// Action is ActionCreate (not recorded yet), ActionUpdate or
	// ActionDestroy (no longer declared).
	Action        execgraph.Action
	Before, After any
	// Unknown says After is known only after apply.
	Unknown bool
	// Sensitive says a side is sensitive: neither value may be shown.
	Sensitive bool
}

// OutputChanges compares the deployment's outputs as planned with those
// recorded in the state that keeps them (the first state handler, as
// apply writes them), by name. A plan with no state handler records no
// outputs, and a refresh-only plan changes none. A targeted plan keeps
// the outputs it does not evaluate, so it removes none.
func (p *Plan) OutputChanges() []OutputChange {
	handlers := slices.Sorted(maps.Keys(p.States))
	if len(handlers) == 0 || p.RefreshOnly || p.Snapshot == nil && !p.Destroy {
		return nil
	}
	recorded := p.States[handlers[0]].Outputs
	var out []OutputChange
	declared := map[string]bool{}
	if !p.Destroy {
		for _, o := range p.Snapshot.Outputs {
			declared[o.Name] = true
			c := OutputChange{Name: o.Name, After: o.Value, Sensitive: o.Sensitive}
			rec, ok := recorded[o.Name]
			switch {
			case !ok:
				c.Action = execgraph.ActionCreate
			case rec.Sensitive != o.Sensitive:
				c.Action, c.Before, c.Sensitive = execgraph.ActionUpdate, rec.Value, true
			case o.Sensitive || SameInputs(map[string]any{"v": rec.Value}, map[string]any{"v": o.Value}):
				// Unchanged, or sensitive on both sides: pier keeps no
				// sensitive value to compare with.
				continue
			default:
				c.Action, c.Before = execgraph.ActionUpdate, rec.Value
			}
			out = append(out, c)
		}
		for _, name := range p.Snapshot.PendingOutputs {
			declared[name] = true
			c := OutputChange{Name: name, Action: execgraph.ActionCreate, Unknown: true}
			if rec, ok := recorded[name]; ok {
				c.Action, c.Before, c.Sensitive = execgraph.ActionUpdate, rec.Value, rec.Sensitive
			}
			out = append(out, c)
		}
	}
	if len(p.Targets) == 0 {
		for _, name := range slices.Sorted(maps.Keys(recorded)) {
			if !declared[name] {
				rec := recorded[name]
				out = append(out, OutputChange{Name: name, Action: execgraph.ActionDestroy, Before: rec.Value, Sensitive: rec.Sensitive})
			}
		}
	}
	slices.SortFunc(out, func(a, b OutputChange) int { return strings.Compare(a.Name, b.Name) })
	return out
}
