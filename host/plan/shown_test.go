package plan

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pierhq/pier/host/engine"
	"github.com/pierhq/pier/host/execgraph"
	"github.com/pierhq/pier/host/source"
)

// TestShownFromGraph checks that a plan shows each change with the action
// its graph's operations carry out: a planner's change whose action was
// changed after the graph was built is shown as the graph has it, a copy,
// and the plan's own change is left as it is.
func TestShownFromGraph(t *testing.T) {
	t.Parallel()
	g := newGraphPlan(t)
	g.p.madeBy = &engine.Engine{}
	g.add(&Change{Address: addr(t, "new"), Action: execgraph.ActionCreate, Resource: g.res("new")})
	g.add(&Change{Address: addr(t, "upd"), Action: execgraph.ActionUpdate, Resource: g.res("upd"), Prior: g.rec("upd")})
	g.add(&Change{Address: addr(t, "gone"), Action: execgraph.ActionDestroy, Prior: g.rec("gone")})
	g.add(&Change{Address: addr(t, "rep"), Action: execgraph.ActionReplace, Resource: g.res("rep"), Prior: g.rec("rep")})
	cbd := g.res("cbd")
	cbd.Lifecycle = &source.Lifecycle{CreateBeforeDestroy: true}
	c := &Change{Address: addr(t, "cbd"), Action: execgraph.ActionReplace, Resource: cbd, Prior: g.rec("cbd")}
	g.add(c)
	planCreateBeforeDestroy(g.p, c)
	pendingUpdate := g.res("pu", "new")
	pendingUpdate.Inputs["v"] = source.Unknown
	g.add(&Change{Address: addr(t, "pu"), Action: execgraph.ActionUpdate, Resource: pendingUpdate, Prior: g.rec("pu"), Pending: true, WaitsOn: []string{"new"}})
	// Recorded as a "t", now an "other": planned as a replace.
	retyped := g.res("pr", "new")
	retyped.Type, retyped.Inputs["v"] = "other", source.Unknown
	g.add(&Change{Address: addr(t, "pr"), Action: execgraph.ActionReplace, Resource: retyped, Prior: g.rec("pr"), Pending: true, WaitsOn: []string{"new"}})
	g.add(&Change{Address: addr(t, "same"), Action: execgraph.ActionNoOp, Resource: g.res("same"), Prior: g.rec("same")})
	g.p.sort()
	if _, err := g.p.Graph(); err != nil {
		t.Fatal(err)
	}
	// After the graph: what is shown must not follow the list.
	rep := g.p.Change("rep")
	rep.Action = execgraph.ActionUpdate

	got := map[string]execgraph.Action{}
	for _, c := range g.p.Shown() {
		got[c.Addr()] = c.Action
	}
	want := map[string]execgraph.Action{
		"s": execgraph.ActionCreate, "new": execgraph.ActionCreate, "upd": execgraph.ActionUpdate, "gone": execgraph.ActionDestroy, "rep": execgraph.ActionReplace,
		"cbd": execgraph.ActionReplace, "cbd" + engine.DeposedSuffix(c.DeposeKey): execgraph.ActionDestroy,
		"pu": execgraph.ActionUpdate, "pr": execgraph.ActionReplace, "same": execgraph.ActionNoOp,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Shown (-want +got):\n%s", diff)
	}
	if rep.Action != execgraph.ActionUpdate {
		t.Errorf("the plan's own change is now %s: Shown must copy, not edit", rep.Action)
	}
	if s := g.p.Summary(); s.Replace != 3 || s.Update != 2 || s.Create != 1 || s.Destroy != 1 || s.NoOp != 1 {
		t.Errorf("Summary = %+v, want the graph's actions counted", s)
	}
}

// TestShownSaved checks that a plan rebuilt from a saved one shows its
// saved actions: it has no graph to read them from.
func TestShownSaved(t *testing.T) {
	t.Parallel()
	p := Showable([]PlannedChange{{Address: "a", Action: execgraph.ActionReplace, Provider: "p", Type: "t"}}, nil, false)
	if got := p.Shown(); len(got) != 1 || got[0].Action != execgraph.ActionReplace {
		t.Errorf("Shown = %v, want the saved replace", got)
	}
}
