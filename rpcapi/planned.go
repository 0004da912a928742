package rpcapi

import (
	"encoding/json"

	"github.com/pierhq/pier/host/execgraph"
	"github.com/pierhq/pier/host/plan"
	"github.com/pierhq/pier/rpcapi/pier1"
)

// plannedChanges converts a plan's changes for PlanDeployment, state
// handlers and structural nodes left out. Before and after go through the
// path pier show --json takes (the plan as a saved plan keeps it, rebuilt
// by engine.Showable and redacted by RedactedValues), so that a client
// sees exactly what pier show --json prints, sensitive values redacted
// and unknown values listed in after_unknown.
func plannedChanges(p *plan.Plan) []*pier1.PlannedChange {
	saved := p.Planned()
	shown := plan.Showable(saved, nil, p.Destroy).Shown()
	var out []*pier1.PlannedChange
	for i, c := range p.Shown() {
		if c.StateHandler || c.Structural {
			continue
		}
		pc := &pier1.PlannedChange{Address: c.Address.String(), DeposedKey: c.Deposed, Action: action(c.Action), Provider: c.Provider(), Pending: c.Pending, Note: c.Note}
		if c.Import != nil {
			pc.ImportId = c.Import.ID
		}
		if c.Resource != nil {
			pc.ResourceType = c.Resource.Type
			var old map[string]any
			if c.Prior != nil {
				old = c.Prior.Entry.InputProperties
			}
			if c.Action == execgraph.ActionUpdate || c.Action == execgraph.ActionReplace || c.Action == execgraph.ActionCreate {
				for _, d := range plan.DiffInputs(old, c.Resource.Inputs) {
					pc.ChangedInputs = append(pc.ChangedInputs, d.Key)
				}
			}
		} else if c.Prior != nil {
			pc.ResourceType = c.Prior.Entry.Type
		}
		// Planned and Showable keep the plan's order, one change each.
		if c.Action != execgraph.ActionNoOp && i < len(shown) && shown[i].Addr() == c.Addr() {
			before, after := shown[i].RedactedValues()
			// A side the change does not have stays empty: Showable
			// gives forget and refresh an empty resource to render.
			if c.Prior != nil {
				pc.BeforeJson = jsonObject(before)
			}
			if c.Resource != nil {
				pc.AfterJson = jsonObject(after)
				pc.AfterUnknown = saved[i].AfterUnknown
			}
		}
		out = append(out, pc)
	}
	return out
}

// jsonObject encodes a side of a change; a missing side is no bytes.
func jsonObject(m map[string]any) []byte {
	if m == nil {
		return nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		// Values come from JSON (state, provider responses) or cty
		// conversion; one that does not encode is not shown.
		return nil
	}
	return b
}
