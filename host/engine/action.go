package engine

import "github.com/pierhq/pier/host/execgraph"

// Action is what a plan does to one resource: the execution graph's
// vocabulary ([execgraph.Action]), which also maps it to opcodes. The
// names are repeated here for the planner's code.
type Action = execgraph.Action

// The actions. The zero value is invalid.
const (
	ActionInvalid = execgraph.ActionInvalid
	ActionCreate  = execgraph.ActionCreate
	ActionUpdate  = execgraph.ActionUpdate
	ActionNoOp    = execgraph.ActionNoOp
	ActionDestroy = execgraph.ActionDestroy
	ActionReplace = execgraph.ActionReplace
	// ActionRefresh records what a --refresh-only read found (see
	// refresh_only.go); it changes no object.
	ActionRefresh = execgraph.ActionRefresh
	// ActionForget removes a record and leaves its object alone: a
	// removed block with destroy = false (see removed.go).
	ActionForget = execgraph.ActionForget
	// ActionImport records an object an import block adopts, which the
	// configuration then needs unchanged (see import_blocks.go).
	ActionImport = execgraph.ActionImport
	// ActionMove is a moved block's move of a record, the graph's move
	// operation (see moved.go); a plan's change carries it as Move.
	ActionMove = execgraph.ActionMove
)
