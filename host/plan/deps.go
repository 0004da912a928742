package plan

import "github.com/pierhq/pier/host/execgraph"

// DepIndex says which changes a change must follow. Plan.Graph and apply
// both order by it, so the saved graph and the run agree. It grows with
// the changes added to it: apply adds the changes it learns of.
type DepIndex struct {
	// priorDependents are, per address, the changes to objects recorded
	// as depending on it (destroys, updates, replaces): its destroy
	// follows them.
	priorDependents map[string][]string
	// deposedOf are the destroys of deposed objects left by earlier
	// applies, per address: its destroy or replace follows them, since
	// removing the entry would forget them.
	deposedOf map[string][]string
	// dependents are, per address, the changes whose resource depends on
	// it: the destroy of the object a create-before-destroy replacement
	// deposes follows them, so they move to the new object first.
	dependents map[string][]string
}

func NewDepIndex() *DepIndex {
	return &DepIndex{priorDependents: map[string][]string{}, deposedOf: map[string][]string{}, dependents: map[string][]string{}}
}

func (ix *DepIndex) Add(c *Change) {
	key := c.Addr()
	if p := c.Prior; p != nil && (c.Action == execgraph.ActionDestroy || c.Action == execgraph.ActionUpdate || c.Action == execgraph.ActionReplace) {
		for _, d := range p.Entry.Dependencies {
			ix.priorDependents[d] = append(ix.priorDependents[d], key)
		}
	}
	if c.Deposed != "" && !c.OfReplace {
		a := c.Address.String()
		ix.deposedOf[a] = append(ix.deposedOf[a], key)
	}
	if r := c.Resource; r != nil {
		for _, d := range r.DependsOn {
			ix.dependents[d.String()] = append(ix.dependents[d.String()], key)
		}
	}
	for _, w := range c.WaitsOn {
		ix.dependents[w] = append(ix.dependents[w], key)
	}
}

// Deps lists the change names c must follow.
func (ix *DepIndex) Deps(c *Change) []string {
	addr := c.Address.String()
	switch {
	case c.Deposed != "":
		out := ix.priorDependents[addr]
		if c.OfReplace {
			out = append(append(append([]string(nil), out...), addr), ix.dependents[addr]...)
		}
		return out
	case c.Action == execgraph.ActionDestroy:
		return append(append([]string(nil), ix.priorDependents[addr]...), ix.deposedOf[addr]...)
	}
	var out []string
	if c.Resource != nil {
		for _, d := range c.Resource.DependsOn {
			out = append(out, d.String())
		}
	}
	out = append(out, c.WaitsOn...)
	if c.Action == execgraph.ActionReplace && !c.CreateBeforeDestroy {
		out = append(out, ix.deposedOf[addr]...)
	}
	return out
}
