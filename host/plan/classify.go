package plan

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/pierhq/pier/host/engine"
	"github.com/pierhq/pier/host/execgraph"
	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/host/statedoc"
)

// classify decides each resource's action.
func (pl *planner) classify(snap *source.Snapshot) error {
	present := make(map[string]bool, len(snap.Ready)+len(snap.Blocked))
	pl.plan.reserve(len(snap.Ready) + len(snap.Blocked))
	for _, r := range snap.Ready {
		addr := r.Address.String()
		present[addr] = true
		if pl.plan.Change(addr) != nil { // a state handler, already planned
			continue
		}
		if err := checkResource(pl.e, r, pl.plan.States); err != nil {
			return err
		}
		// changeFor's change is of r's address, and not deposed: its
		// Addr is addr.
		pl.plan.addAt(addr, pl.changeFor(r, pl.recorded[addr]))
	}
	for _, b := range snap.Blocked {
		addr := b.Address.String()
		present[addr] = true
		var waits []string
		for _, w := range b.WaitsOn {
			waits = append(waits, w.String())
		}
		c := &Change{Address: b.Address, Action: execgraph.ActionCreate, Resource: b.Resource, Pending: true, WaitsOn: waits}
		if b.Resource != nil {
			c.SensitiveInputs = b.Resource.SensitiveInputs
		}
		if b.Structural {
			c.Structural = true
			c.Note = "members known after " + strings.Join(waits, ", ") + " is applied"
		}
		if b.Resource != nil {
			if err := checkResource(pl.e, b.Resource, pl.plan.States); err != nil {
				return err
			}
			if rec := pl.recorded[addr]; rec != nil && b.Resource.Stateful() {
				c.Action, c.Prior = execgraph.ActionUpdate, rec
				if rec.Entry.Type != b.Resource.Type {
					c.Action = execgraph.ActionReplace
				}
			} else if !b.Resource.Stateful() {
				c.Note = "stateless, runs every apply"
			}
		}
		pl.plan.add(c)
	}
	if !snap.Complete() {
		// Resources recorded under a composite whose members are not known
		// yet are decided during apply, once they are.
		pl.plan.Warnings = append(pl.plan.Warnings, "some members are known only during apply; resources removed from them are destroyed then")
	}
	// Only the recorded resources gone from the deployment are sorted:
	// sorting every recorded address would cost what the state costs.
	var gone []string
	for addr := range pl.recorded {
		if !present[addr] {
			gone = append(gone, addr)
		}
	}
	sort.Strings(gone)
	for _, addr := range gone {
		if UnderStructural(pl.recorded[addr].Address, snap) {
			continue
		}
		pl.plan.add(orphanChange(pl.e, pl.recorded[addr], snap))
	}
	return nil
}

func (pl *planner) planDestroyAll() {
	for _, addr := range slices.Sorted(maps.Keys(pl.recorded)) {
		pl.plan.add(orphanChange(pl.e, pl.recorded[addr], pl.plan.Snapshot))
	}
}

func UnderStructural(a source.Address, snap *source.Snapshot) bool {
	for _, b := range snap.Blocked {
		if b.Structural && a.HasPrefix(b.Address) {
			return true
		}
	}
	return false
}

// checkResource checks what the source could not: the state handler a
// resource names must be a resource that holds state.
func checkResource(e *engine.Engine, r *source.Resource, states map[string]*statedoc.View) error {
	if r.State == nil {
		return nil
	}
	if _, ok := states[r.State.String()]; !ok {
		return fmt.Errorf("%s (%s): state handler %s was not read", r.Address, r.Range, r.State)
	}
	return nil
}
