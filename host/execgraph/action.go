package execgraph

import "fmt"

// This file is the one place where what a plan says it does to a resource
// (an Action) meets what apply runs (opcodes): [Steps] names the opcodes
// that carry out a change, [Opcode.Action] and [Graph.Shows] read the
// action back from them. The planner decides actions and the graph builder
// lowers them through Steps; apply lowers a change it decides at run time
// the same way, and names its operations by Action; what a plan shows is
// read from its graph by Shows.

//go:generate go tool stringer -type Action -linecomment

// Action is what a plan does to one resource, as pier plan, its --json
// output, a saved plan and the progress events name it.
type Action uint8

// The actions. The zero value is invalid.
const (
	ActionInvalid Action = iota // invalid
	ActionCreate                // create
	ActionUpdate                // update
	// ActionNoOp leaves a resource as it is: no operation carries it out.
	ActionNoOp    // no-op
	ActionDestroy // destroy
	ActionReplace // replace
	// ActionRefresh records what a --refresh-only read found; it changes
	// no object.
	ActionRefresh // refresh
	// ActionForget removes a record and leaves its object alone: a
	// removed block with destroy = false.
	ActionForget // forget
	// ActionImport records an object an import block adopts.
	ActionImport // import
	// ActionMove is a moved block's move of a record.
	ActionMove // move
)

// MarshalText renders the action by name.
func (a Action) MarshalText() ([]byte, error) { return []byte(a.String()), nil }

// UnmarshalText parses an action name; the invalid action has none.
func (a *Action) UnmarshalText(b []byte) error {
	// stringer's index (action_string.go) has one entry more than there
	// are values, so this covers values added later without a change here.
	for v := ActionInvalid + 1; v < Action(len(_Action_index)-1); v++ {
		if v.String() == string(b) {
			*a = v
			return nil
		}
	}
	return fmt.Errorf("unknown action %q", b)
}

// Change is how a planned change is carried out: its action, and what
// shapes the operations beyond it.
type Change struct {
	Action Action
	// Deposed marks the destroy of a deposed object.
	Deposed bool
	// CreateBeforeDestroy marks a replace that creates the new object
	// first and deposes the old one.
	CreateBeforeDestroy bool
	// Pending marks a resource whose inputs are known only during apply:
	// what it does is decided then. Structural marks a composite whose
	// members are known only then.
	Pending, Structural bool
	// Import and Move mark a change that an import block's adoption or a
	// moved block's move of its record comes first in.
	Import, Move bool
}

// Steps returns the opcodes that carry out c, in the order they run: each
// follows the ones before it, and the last yields the resource's final
// state. A no-op has no steps and is an error, as is an action with no
// opcodes. The slice may be shared: it must not be modified.
func Steps(c Change) ([]Opcode, error) {
	main, err := mainSteps(c)
	if err != nil || !c.Import && !c.Move {
		return main, err
	}
	// An import or a move is recorded first; what else the change does
	// follows it.
	var steps []Opcode
	if c.Import {
		steps = append(steps, OpImport)
	}
	if c.Move {
		steps = append(steps, OpMove)
	}
	return append(steps, main...), nil
}

// The steps of one action, shared: a change decided at run time costs no
// allocation to lower.
var (
	stepsCreate         = []Opcode{OpCreate}
	stepsUpdate         = []Opcode{OpUpdate}
	stepsDestroy        = []Opcode{OpDestroy}
	stepsDestroyDeposed = []Opcode{OpDestroyDeposed}
	stepsReplace        = []Opcode{OpDestroy, OpCreate}
	stepsCreateDepose   = []Opcode{OpCreateDepose}
	stepsResolve        = []Opcode{OpResolve}
	stepsExpand         = []Opcode{OpExpand}
	stepsRefresh        = []Opcode{OpRefresh}
	stepsForget         = []Opcode{OpForget}
)

// mainSteps are the steps of c after its import or move.
func mainSteps(c Change) ([]Opcode, error) {
	switch {
	case c.Action == ActionImport && c.Import, c.Action == ActionMove && c.Move:
		// The import or the move is the whole change.
		return nil, nil
	case c.Action == ActionImport, c.Action == ActionMove, c.Action == ActionNoOp:
	case c.Structural:
		return stepsExpand, nil
	case c.Pending:
		return stepsResolve, nil
	case c.Action == ActionCreate:
		return stepsCreate, nil
	case c.Action == ActionUpdate:
		return stepsUpdate, nil
	case c.Action == ActionDestroy && c.Deposed:
		return stepsDestroyDeposed, nil
	case c.Action == ActionDestroy:
		return stepsDestroy, nil
	case c.Action == ActionRefresh:
		return stepsRefresh, nil
	case c.Action == ActionForget:
		return stepsForget, nil
	case c.Action == ActionReplace && c.CreateBeforeDestroy:
		return stepsCreateDepose, nil
	case c.Action == ActionReplace:
		// Two steps, each recorded: the destroy of the old object, then
		// the create of the new one.
		return stepsReplace, nil
	}
	return nil, fmt.Errorf("cannot apply action %s: this is a bug in pier", c.Action)
}

// Action is what an operation of opcode o does to its resource, as its
// progress events name it: each half of a replace by what it does, a
// resolve as the create of a resource not yet recorded (see [ActionOf]).
func (o Opcode) Action() Action {
	switch o {
	case OpReadState, OpCreate, OpResolve, OpExpand:
		// A state handler is a stateless create that runs every apply.
		return ActionCreate
	case OpUpdate:
		return ActionUpdate
	case OpDestroy, OpDestroyDeposed, OpDestroyAbsent:
		return ActionDestroy
	case OpCreateDepose:
		return ActionReplace
	case OpRefresh:
		return ActionRefresh
	case OpForget:
		return ActionForget
	case OpImport:
		return ActionImport
	case OpMove:
		return ActionMove
	}
	return ActionInvalid
}

// ActionOf is what a compiled operation does to its resource: its
// opcode's action, but a resolve of a recorded object updates it.
func ActionOf[O comparable](op Operation[O]) Action {
	var none O
	if r, ok := op.(Resolve[O]); ok && r.Prior != none {
		return ActionUpdate
	}
	return op.Opcode().Action()
}

// Shows is the action a plan shows for the change whose final state
// operation i yields (a [Graph.Result], or a destroy of a deposed
// object): what [Steps] lowered, read back. A create that replaces an
// object an earlier destroy removed is a replace, a resolve of a recorded
// object an update, else the opcode's action. A resolve of a recorded
// object of another type is planned as a replace: its values are the
// engine's, which says so itself.
func (g *Graph) Shows(i Ref) Action {
	e := &g.elems[i]
	switch {
	case e.Kind != KindOperation:
		return ActionInvalid
	case e.Op == OpCreate && e.Operands[3] != None:
		return ActionReplace
	case e.Op == OpResolve && e.Operands[1] != None:
		return ActionUpdate
	}
	return e.Op.Action()
}
