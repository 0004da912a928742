package execgraph

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSteps lowers each kind of change to its opcodes, builds them as a
// planner would (a replace's create names the object its destroy removed,
// a resolve of a recorded resource its prior), and reads the action back:
// what a plan shows is what it lowered.
func TestSteps(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		change Change
		// recorded gives a resolve its prior.
		recorded bool
		want     []Opcode
		// shows is what the last step shows; the change's action when
		// zero.
		shows Action
		// actions are what each step does, as its progress events say.
		actions []Action
	}{
		"create":          {change: Change{Action: ActionCreate}, want: []Opcode{OpCreate}, actions: []Action{ActionCreate}},
		"update":          {change: Change{Action: ActionUpdate}, want: []Opcode{OpUpdate}, actions: []Action{ActionUpdate}},
		"destroy":         {change: Change{Action: ActionDestroy}, want: []Opcode{OpDestroy}, actions: []Action{ActionDestroy}},
		"destroy deposed": {change: Change{Action: ActionDestroy, Deposed: true}, want: []Opcode{OpDestroyDeposed}, actions: []Action{ActionDestroy}},
		"replace":         {change: Change{Action: ActionReplace}, want: []Opcode{OpDestroy, OpCreate}, actions: []Action{ActionDestroy, ActionCreate}},
		"replace create before destroy": {
			change: Change{Action: ActionReplace, CreateBeforeDestroy: true}, want: []Opcode{OpCreateDepose}, actions: []Action{ActionReplace},
		},
		"refresh": {change: Change{Action: ActionRefresh}, want: []Opcode{OpRefresh}, actions: []Action{ActionRefresh}},
		"forget":  {change: Change{Action: ActionForget}, want: []Opcode{OpForget}, actions: []Action{ActionForget}},
		"import":  {change: Change{Action: ActionImport, Import: true}, want: []Opcode{OpImport}, actions: []Action{ActionImport}},
		"move":    {change: Change{Action: ActionMove, Move: true}, want: []Opcode{OpMove}, actions: []Action{ActionMove}},
		"import, then update": {
			change: Change{Action: ActionUpdate, Import: true}, want: []Opcode{OpImport, OpUpdate}, actions: []Action{ActionImport, ActionUpdate},
		},
		"import and move, then replace": {
			change: Change{Action: ActionReplace, Import: true, Move: true}, want: []Opcode{OpImport, OpMove, OpDestroy, OpCreate},
			actions: []Action{ActionImport, ActionMove, ActionDestroy, ActionCreate},
		},
		"pending create": {change: Change{Action: ActionCreate, Pending: true}, want: []Opcode{OpResolve}, actions: []Action{ActionCreate}},
		"pending update": {
			change: Change{Action: ActionUpdate, Pending: true}, recorded: true, want: []Opcode{OpResolve}, actions: []Action{ActionUpdate},
		},
		"structural": {change: Change{Action: ActionCreate, Pending: true, Structural: true}, want: []Opcode{OpExpand}, actions: []Action{ActionCreate}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			steps, err := Steps(tc.change)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, steps); diff != "" {
				t.Fatalf("Steps (-want +got):\n%s", diff)
			}
			g, last := buildSteps(t, tc.change, steps, tc.recorded)
			want := tc.shows
			if want == ActionInvalid {
				want = tc.change.Action
			}
			if got := g.Shows(last); got != want {
				t.Errorf("Shows = %s, want %s", got, want)
			}
			ops, err := Compile[*object](g)
			if err != nil {
				t.Fatal(err)
			}
			var actions []Action
			for _, i := range g.Operations() {
				if ops[i].Opcode() != OpReadState {
					actions = append(actions, ActionOf(ops[i]))
				}
			}
			if diff := cmp.Diff(tc.actions, actions); diff != "" {
				t.Errorf("ActionOf (-want +got):\n%s", diff)
			}
		})
	}
}

// buildSteps builds steps as a planner would for a resource "r", each
// following the one before; it returns the graph and the last step.
func buildSteps(t *testing.T, c Change, steps []Opcode, recorded bool) (*Graph, Ref) {
	t.Helper()
	b := NewBuilder()
	desired := b.Desired("r", nil)
	prior := b.Prior("r", &object{"r"})
	read, err := b.Operation(OpReadState, []Ref{b.Desired("h", nil), b.Provider("p", nil), b.Constant("hash", SavedHash(""))}, None)
	if err != nil {
		t.Fatal(err)
	}
	last := None
	for _, op := range steps {
		var operands []Ref
		switch op {
		case OpCreate:
			replaces := None
			if c.Action == ActionReplace {
				replaces = prior
			}
			operands = []Ref{desired, None, None, replaces}
		case OpUpdate:
			operands = []Ref{desired, prior, None, None, None}
		case OpDestroy:
			operands = []Ref{prior, None, None}
		case OpDestroyDeposed:
			operands = []Ref{b.Deposed("r", "k", &object{"r deposed"}), None, None}
		case OpCreateDepose:
			operands = []Ref{desired, prior, None, None, b.Constant("depose-key", "k")}
		case OpResolve:
			p := None
			if recorded {
				p = prior
			}
			operands = []Ref{desired, p, None, None, b.Constant("controls", Controls{})}
		case OpExpand:
			operands = []Ref{desired, b.Constant("controls", Controls{})}
		case OpRefresh:
			operands = []Ref{prior, read, b.Constant("refreshed", nil)}
		case OpForget:
			operands = []Ref{prior, read}
		case OpImport:
			operands = []Ref{desired, prior, read, b.Constant("import-id", "id")}
		case OpMove:
			operands = []Ref{desired, b.Prior("old", &object{"old"}), read}
		default:
			t.Fatalf("no operands for %s", op)
		}
		if last, err = b.Operation(op, operands, b.Waiter(last)); err != nil {
			t.Fatal(err)
		}
	}
	return b.Build(), last
}

// TestStepsRefused checks that a change no operation carries out is an
// error, not an empty program.
func TestStepsRefused(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]Change{
		"no-op":              {Action: ActionNoOp},
		"invalid":            {},
		"import without one": {Action: ActionImport},
		"move without one":   {Action: ActionMove},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if steps, err := Steps(c); err == nil {
				t.Errorf("Steps = %v, want an error", steps)
			}
		})
	}
}

// TestActionNames pins each action's name: a saved plan and the --json
// output spell actions so.
func TestActionNames(t *testing.T) {
	t.Parallel()
	for a, want := range map[Action]string{
		ActionInvalid: "invalid", ActionCreate: "create", ActionUpdate: "update", ActionNoOp: "no-op",
		ActionDestroy: "destroy", ActionReplace: "replace", ActionRefresh: "refresh", ActionForget: "forget",
		ActionImport: "import", ActionMove: "move", Action(10): "Action(10)",
	} {
		raw, err := a.MarshalText()
		if err != nil || string(raw) != want {
			t.Errorf("%d: MarshalText = %q, %v; want %q", a, raw, err, want)
		}
		var back Action
		err = back.UnmarshalText(raw)
		switch {
		case a == ActionInvalid || a == Action(10):
			if err == nil {
				t.Errorf("UnmarshalText(%q) = %s, want an error", raw, back)
			}
		case err != nil || back != a:
			t.Errorf("UnmarshalText(%q) = %s, %v; want %s", raw, back, err, a)
		}
	}
}
