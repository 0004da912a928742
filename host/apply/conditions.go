package apply

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/pierhq/pier/host/engine"
	"github.com/pierhq/pier/host/execgraph"
	"github.com/pierhq/pier/host/plan"
	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/host/statedoc"
)

// This file is what a resource's precondition and postcondition blocks do
// to an apply (host/plan's conditions.go is what they do to a plan): a
// node whose preconditions are not known yet is gated until a resolve
// knows them, before its provider is called; a node with postconditions
// is held, after its change is recorded, until a resolve with its outputs
// has checked them, before anything that depends on it starts. A failure
// fails that resource and skips its dependents; an object a postcondition
// refuses stays recorded.

// conditionWaits are the nodes of an apply that wait on their resource's
// conditions, by address. Owned by the scheduling goroutine.
type conditionWaits struct {
	// gated nodes are runnable but for preconditions not known yet.
	gated map[string]*node
	// held nodes have run and been recorded; their postconditions are
	// not checked yet, so their dependents wait.
	held map[string]*node
}

// gate keeps a runnable node from its provider while its preconditions
// are not known, and fails it when one is known to fail. It reports
// whether the node is taken care of.
func (a *applier) gate(n *node) bool {
	key, r := a.guarded(n)
	if r == nil || len(r.Conditions) == 0 {
		return false
	}
	if errs := plan.KnownFailures(r, source.Precondition); len(errs) > 0 {
		delete(a.conds.gated, key)
		a.fail(n, errors.Join(errs...))
		return true
	}
	if plan.ConditionsKnown(r, source.Precondition) {
		delete(a.conds.gated, key)
		return false
	}
	if a.conds.gated == nil {
		a.conds.gated = map[string]*node{}
	}
	a.conds.gated[key] = n
	a.resolveAgain = true
	return true
}

// replacingKey marks, in conditionWaits.gated, the destroy that starts a
// replace, which shares its address with the create.
const replacingKey = " (replacing)"

// guarded is the resource whose preconditions guard node n, and the key
// n is gated under: a change that makes the object, or the destroy that
// starts a replace, so that nothing is destroyed for a replacement its
// preconditions refuse.
func (a *applier) guarded(n *node) (string, *source.Resource) {
	if r := n.change.Resource; r != nil {
		if !changesObject(n.change.Action) {
			return "", nil
		}
		return n.addr(), r
	}
	if d, ok := n.run.(execgraph.Destroy[*statedoc.Recorded]); ok && d.Replacing {
		if c := a.byAddr[n.addr()]; c != nil && c != n && c.change.Resource != nil {
			return n.addr() + replacingKey, c.change.Resource
		}
	}
	return "", nil
}

// hold keeps a node that has run from waking its dependents until its
// postconditions are checked against its outputs, which a resolve does.
// It reports whether the node is held.
func (a *applier) hold(n *node) bool {
	r := n.change.Resource
	if r == nil || n.change.Action == execgraph.ActionDestroy || n.change.Deposed != "" || !plan.HasConditions(r, source.Postcondition) {
		return false
	}
	if a.conds.held == nil {
		a.conds.held = map[string]*node{}
	}
	a.conds.held[n.addr()] = n
	a.resolveAgain = true
	return true
}

// changesObject reports whether an action calls the provider to make the
// object what the resource says: what preconditions guard.
func changesObject(a execgraph.Action) bool {
	return a == execgraph.ActionCreate || a == execgraph.ActionUpdate || a == execgraph.ActionReplace
}

// absorbConditions takes a resolved resource's conditions: a gated node
// runs once its preconditions are known to hold, a held one wakes its
// dependents once its postconditions are, and either fails on one known
// to fail. A node still to run takes the results, fresher than its
// plan's, for its gate. It reports whether the resource is taken care of.
func (a *applier) absorbConditions(res *source.Resource) bool {
	if len(res.Conditions) == 0 {
		return false
	}
	addr := res.Address.String()
	if n := a.conds.held[addr]; n != nil {
		// Only a resolve after the node's outputs were known sees them:
		// until then its postconditions are not known.
		if errs := plan.KnownFailures(res, source.Postcondition); len(errs) > 0 {
			delete(a.conds.held, addr)
			a.fail(n, errors.Join(errs...))
		} else if plan.ConditionsKnown(res, source.Postcondition) {
			delete(a.conds.held, addr)
			a.applied(n)
		}
		return true
	}
	n := a.byAddr[addr]
	if n == nil || n.status != engine.StatusPending || a.pending[addr] == n || n.change.Resource == nil {
		return false
	}
	n.change.Resource = res
	if a.conds.gated[addr] == n && !a.gate(n) {
		a.enqueue(n)
	}
	if d := a.conds.gated[addr+replacingKey]; d != nil && !a.gate(d) {
		a.enqueue(d)
	}
	return true
}

// conditionsWait reports whether a node waits on its conditions: a
// resolve is needed for it.
func (a *applier) conditionsWait() bool {
	return len(a.conds.gated) > 0 || len(a.conds.held) > 0
}

// failConditionWaits fails the nodes whose conditions never became known
// although nothing is left to run; a held node's object stays recorded.
func (a *applier) failConditionWaits() {
	for _, key := range slices.Sorted(maps.Keys(a.conds.gated)) {
		if n := a.conds.gated[key]; n.status == engine.StatusPending {
			a.fail(n, fmt.Errorf("its preconditions read values that never became known, so they were not checked and nothing was done"))
		}
	}
	for _, addr := range slices.Sorted(maps.Keys(a.conds.held)) {
		a.fail(a.conds.held[addr], fmt.Errorf("its postconditions read values that never became known, so they were not checked (the object is recorded)"))
	}
	a.conds.gated, a.conds.held = nil, nil
}

// releaseHeld ends the holds of an apply that stops: the objects are
// recorded, and the next plan checks their postconditions.
func (a *applier) releaseHeld() {
	for _, addr := range slices.Sorted(maps.Keys(a.conds.held)) {
		a.applied(a.conds.held[addr])
	}
	a.conds.held = nil
}
