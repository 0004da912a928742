package nixsource

import (
	"maps"
	"slices"

	"github.com/pierhq/pier/host/source"
)

// findCycle looks for a cycle among blocked members. An edge goes from a
// member to each resource it waits on; a wait on a resource below a
// structurally blocked composite is a wait on that composite, since the
// resource cannot exist before the composite lists its members. Every
// edge is a real dependency, so a cycle can never resolve. It returns nil
// when there is none.
func findCycle(blocked []*source.Blocked) []source.Address {
	nodes := map[string]*source.Blocked{}
	var structural []*source.Blocked
	for _, b := range blocked {
		nodes[b.Address.String()] = b
		if b.Structural {
			structural = append(structural, b)
		}
	}
	target := func(a source.Address) string {
		if _, ok := nodes[a.String()]; ok {
			return a.String()
		}
		for _, s := range structural {
			if a.HasPrefix(s.Address) {
				return s.Address.String()
			}
		}
		return ""
	}
	const (
		unvisited = iota
		onStack
		done
	)
	state := map[string]int{}
	var stack []string
	var cycle []string
	var visit func(n string) bool
	visit = func(n string) bool {
		state[n] = onStack
		stack = append(stack, n)
		for _, w := range nodes[n].WaitsOn {
			t := target(w)
			switch {
			case t == "":
			case state[t] == onStack:
				cycle = slices.Clone(stack[slices.Index(stack, t):])
				return true
			case state[t] == unvisited:
				if visit(t) {
					return true
				}
			}
		}
		stack = stack[:len(stack)-1]
		state[n] = done
		return false
	}
	keys := slices.Sorted(maps.Keys(nodes))
	for _, k := range keys {
		if state[k] == unvisited && visit(k) {
			out := make([]source.Address, len(cycle))
			for i, c := range cycle {
				out[i] = nodes[c].Address
			}
			return out
		}
	}
	return nil
}
