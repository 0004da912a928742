package execgraph

import "fmt"

//go:generate go tool stringer -type Opcode -linecomment

// Opcode is what an operation does.
type Opcode uint8

// The opcodes. Each takes the operands its signature lists (see
// [signatures]); the last operand of every operation is an optional
// waiter.
const (
	OpInvalid Opcode = iota // invalid
	// OpReadState starts a state handler and reads its state, which must
	// still have the content hash the plan was made against.
	// Operands: desired handler, provider, constant hash.
	OpReadState // read-state
	// OpCreate creates a resource and records it. A prior operand means
	// the create replaces that object, which an earlier destroy removed.
	// Operands: desired, provider, read-state (stateful), prior.
	OpCreate // create
	// OpUpdate updates a resource in place (or only moves its record to
	// another state) and records it. Operands: desired, prior, provider,
	// read-state of its state, read-state of the prior's state.
	OpUpdate // update
	// OpDestroy destroys a recorded object and records that it is gone.
	// Operands: prior, provider, read-state.
	OpDestroy // destroy
	// OpCreateDepose is a create_before_destroy replacement's first step:
	// create the new object, then record it as current and the old one
	// as deposed, in one event. Operands: desired, prior, provider,
	// read-state, constant deposed key.
	OpCreateDepose // create-depose
	// OpDestroyDeposed destroys a deposed object and records that it is
	// gone. Operands: deposed, provider, read-state.
	OpDestroyDeposed // destroy-deposed
	// OpResolve is a resource whose inputs are known only once what it
	// waits for is applied: it asks the source for them, then decides at
	// run time whether to create, update or leave it. Operands: desired
	// (inputs partly unknown), prior, provider, read-state, constant
	// controls.
	OpResolve // resolve
	// OpExpand is a composite whose members are known only once what it
	// waits for is applied: its run-time result is its members, run as a
	// sub-graph. Operands: desired composite, constant controls.
	OpExpand // expand
	// OpDestroyAbsent destroys what an expand's composite held before and
	// no longer has: the priors not among its members. Operands: expand,
	// then any number of priors.
	OpDestroyAbsent // destroy-absent
	// OpRefresh records what a --refresh-only read found, changing no
	// object: the object as read, or no entry when it is gone. Operands:
	// prior, read-state, constant refreshed (the entry as read, or null).
	OpRefresh // refresh
	// OpForget removes a record and leaves its object alone (a removed
	// block with destroy = false). Operands: prior, read-state.
	OpForget // forget
	// OpImport records the object an import block adopts, as the plan's
	// import read it; an update or replace of the resource then waits for
	// it. Operands: desired, prior (the object as imported), read-state,
	// constant import id.
	OpImport // import
	// OpMove moves a record to a new address, as a moved block says, in
	// one "move" event, calling no provider; a change of the resource
	// then waits for it. Operands: desired (at the new address), prior
	// (the record at the old one), read-state.
	OpMove // move
)

// ParseOpcode parses an opcode name; the invalid opcode has none.
func ParseOpcode(s string) (Opcode, error) {
	// stringer's index (opcode_string.go) has one entry more than there
	// are values, so this covers values added later without a change here.
	for o := OpInvalid + 1; o < Opcode(len(_Opcode_index)-1); o++ {
		if o.String() == s {
			return o, nil
		}
	}
	return OpInvalid, fmt.Errorf("unknown opcode %q", s)
}

// slot is one operand an opcode takes.
type slot struct {
	kind Kind
	// op restricts an operation operand to one opcode.
	op       Opcode
	optional bool
}

// signature is what an opcode takes: its slots, then (variadic) any
// number of operands of one kind, then an optional waiter.
type signature struct {
	slots    []slot
	variadic Kind
}

var (
	desired   = slot{kind: KindDesired}
	prior     = slot{kind: KindPrior}
	optPrior  = slot{kind: KindPrior, optional: true}
	provider  = slot{kind: KindProvider, optional: true}
	readState = slot{kind: KindOperation, op: OpReadState, optional: true}
	constant  = slot{kind: KindConstant}
)

var signatures = map[Opcode]signature{
	OpReadState:      {slots: []slot{desired, {kind: KindProvider}, constant}},
	OpCreate:         {slots: []slot{desired, provider, readState, optPrior}},
	OpUpdate:         {slots: []slot{desired, prior, provider, readState, readState}},
	OpDestroy:        {slots: []slot{prior, provider, readState}},
	OpCreateDepose:   {slots: []slot{desired, prior, provider, readState, constant}},
	OpDestroyDeposed: {slots: []slot{{kind: KindDeposed}, provider, readState}},
	OpResolve:        {slots: []slot{desired, optPrior, provider, readState, constant}},
	OpExpand:         {slots: []slot{desired, constant}},
	OpDestroyAbsent:  {slots: []slot{{kind: KindOperation, op: OpExpand}}, variadic: KindPrior},
	OpRefresh:        {slots: []slot{prior, {kind: KindOperation, op: OpReadState}, constant}},
	OpForget:         {slots: []slot{prior, {kind: KindOperation, op: OpReadState}}},
	OpImport:         {slots: []slot{desired, prior, {kind: KindOperation, op: OpReadState}, constant}},
	OpMove:           {slots: []slot{desired, prior, {kind: KindOperation, op: OpReadState}}},
}
