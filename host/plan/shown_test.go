package plan

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pierhq/pier/host/engine"
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
	g.add(&Change{Address: addr(t, "new"), Action: engine.ActionCreate, Resource: g.res("new")})
	g.add(&Change{Address: addr(t, "upd"), Action: engine.ActionUpdate, Resource: g.res("upd"), Prior: g.rec("upd")})
	g.add(&Change{Address: addr(t, "gone"), Action: engine.ActionDestroy, Prior: g.rec("gone")})
	g.add(&Change{Address: addr(t, "rep"), Action: engine.ActionReplace, Resource: g.res("rep"), Prior: g.rec("rep")})
	cbd := g.res("cbd")
	cbd.Lifecycle = &source.Lifecycle{CreateBeforeDestroy: true}
	c := &Change{Address: addr(t, "cbd"), Action: engine.ActionReplace, Resource: cbd, Prior: g.rec("cbd")}
	g.add(c)
	planCreateBeforeDestroy(g.p, c)
	pendingUpdate := g.res("pu", "new")
	pendingUpdate.Inputs["v"] = source.Unknown
	g.add(&Change{Address: addr(t, "pu"), Action: engine.ActionUpdate, Resource: pendingUpdate, Prior: g.rec("pu"), Pending: true, WaitsOn: []string{"new"}})
	// Recorded as a "t", now an "other": planned as a replace.
	retyped := g.res("pr", "new")
	retyped.Type, retyped.Inputs["v"] = "other", source.Unknown
	g.add(&Change{Address: addr(t, "pr"), Action: engine.ActionReplace, Resource: retyped, Prior: g.rec("pr"), Pending: true, WaitsOn: []string{"new"}})
	g.add(&Change{Address: addr(t, "same"), Action: engine.ActionNoOp, Resource: g.res("same"), Prior: g.rec("same")})
	g.p.sort()
	if _, err := g.p.Graph(); err != nil {
		t.Fatal(err)
	}
	// After the graph: what is shown must not follow the list.
	rep := g.p.Change("rep")
	rep.Action = engine.ActionUpdate

	got := map[string]engine.Action{}
	for _, c := range g.p.Shown() {
		got[c.Addr()] = c.Action
	}
	want := map[string]engine.Action{
		"s": engine.ActionCreate, "new": engine.ActionCreate, "upd": engine.ActionUpdate, "gone": engine.ActionDestroy, "rep": engine.ActionReplace,
		"cbd": engine.ActionReplace, "cbd" + engine.DeposedSuffix(c.DeposeKey): engine.ActionDestroy,
		"pu": engine.ActionUpdate, "pr": engine.ActionReplace, "same": engine.ActionNoOp,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Shown (-want +got):\n%s", diff)
	}
	if rep.Action != engine.ActionUpdate {
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
	p := Showable([]PlannedChange{{Address: "a", Action: engine.ActionReplace, Provider: "p", Type: "t"}}, nil, false)
	if got := p.Shown(); len(got) != 1 || got[0].Action != engine.ActionReplace {
		t.Errorf("Shown = %v, want the saved replace", got)
	}
}
