package engine

import "fmt"

// Action is what a plan does to one resource.
type Action int

// The actions. The zero value is invalid.
const (
	ActionInvalid Action = iota
	ActionCreate
	ActionUpdate
	ActionNoOp
	ActionDestroy
	ActionReplace
	// ActionRefresh records what a --refresh-only read found (see
	// refresh_only.go); it changes no object.
	ActionRefresh
	// ActionForget removes a record and leaves its object alone: a
	// removed block with destroy = false (see removed.go).
	ActionForget
	// ActionImport records an object an import block adopts, which the
	// configuration then needs unchanged (see import_blocks.go).
	ActionImport
	// ActionMove is a moved block's move of a record, the graph's move
	// operation (see moved.go); a plan's change carries it as Move.
	ActionMove
)

var actionNames = [...]string{"invalid", "create", "update", "no-op", "destroy", "replace", "refresh", "forget", "import", "move"}

func (a Action) String() string {
	if int(a) < len(actionNames) {
		return actionNames[a]
	}
	return fmt.Sprintf("Action(%d)", int(a))
}

// MarshalText renders the action by name.
func (a Action) MarshalText() ([]byte, error) { return []byte(a.String()), nil }

// UnmarshalText parses an action name.
func (a *Action) UnmarshalText(b []byte) error {
	for i, n := range actionNames {
		if n == string(b) && i > 0 {
			*a = Action(i)
			return nil
		}
	}
	return fmt.Errorf("unknown action %q", b)
}
