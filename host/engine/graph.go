package engine

import (
	"container/heap"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/pierhq/pier/host/source"
)

// Graph is a plan as an execution graph: operations in an order where each
// one's operands refer to earlier operations by index, in the spirit of
// OpenTofu's execution graph. A graph is immutable once built.
type Graph struct {
	// States are the positions of the states the plan was made against.
	States []StatePosition `json:"states"`
	// Operations in execution order.
	Operations []Operation `json:"operations"`
	// Providers fingerprint the declarations of the providers the
	// operations use, by name: a saved plan must not run against a
	// provider whose executable, arguments, environment or configuration
	// changed. They are hashes, since environments and configurations may
	// hold credentials.
	Providers map[string]string `json:"providers,omitempty"`
}

// StatePosition identifies the content of one state when the plan was
// made.
type StatePosition struct {
	Handler string `json:"handler"`
	Hash    string `json:"hash"`
	// Resources counts the entries, for humans reading a plan file.
	Resources int `json:"resources"`
	// Operation is the index of the operation that reads this state.
	Operation int `json:"operation"`
}

// Operation is one step of a graph.
type Operation struct {
	Op       string         `json:"op"`
	Address  string         `json:"address"`
	Provider string         `json:"provider,omitempty"`
	Type     string         `json:"type,omitempty"`
	Inputs   map[string]any `json:"inputs,omitempty"`
	// Operands are the indexes of earlier operations whose results this
	// one needs.
	Operands []int `json:"operands,omitempty"`
}

// The operation kinds beside the [Action] names.
const opReadState = "read-state"

// Graph builds the plan's execution graph. No-op resources are not in it.
func (p *Plan) Graph() (*Graph, error) {
	g := &Graph{}
	index := map[string]int{}
	for _, h := range sortedAddresses(p.States) {
		c := p.Change(h)
		op := Operation{Op: opReadState, Address: h}
		if c != nil && c.Resource != nil {
			op.Provider, op.Type, op.Inputs = c.Resource.Provider, c.Resource.Type, c.Resource.Inputs
		}
		index[h] = len(g.Operations)
		g.States = append(g.States, StatePosition{Handler: h, Hash: p.States[h].ContentHash(), Resources: len(p.States[h].Entries), Operation: len(g.Operations)})
		g.Operations = append(g.Operations, op)
	}
	var todo []*Change
	for _, c := range p.Changes {
		if !c.StateHandler && c.Action != ActionNoOp {
			todo = append(todo, c)
		}
	}
	// The same order as apply's; see deps.go.
	ix := newDepIndex()
	for _, c := range todo {
		ix.add(c)
	}
	deps := map[string][]string{}
	for _, c := range todo {
		deps[c.Addr()] = ix.deps(c)
	}
	// Kahn's algorithm. Among the operations whose dependencies are
	// placed, the one earliest in the plan's (address) order goes next, so
	// the dump is stable.
	pos := map[string]int{}
	for i, c := range todo {
		pos[c.Addr()] = i
	}
	waiting := make([]int, len(todo))
	followers := make([][]int, len(todo))
	for i, c := range todo {
		for _, d := range deps[c.Addr()] {
			if j, ok := pos[d]; ok && j != i {
				waiting[i]++
				followers[j] = append(followers[j], i)
			}
		}
	}
	ready := &intHeap{}
	for i := range todo {
		if waiting[i] == 0 {
			heap.Push(ready, i)
		}
	}
	for ready.Len() > 0 {
		i := heap.Pop(ready).(int)
		c := todo[i]
		addr := c.Addr()
		var operands []int
		for _, d := range deps[addr] {
			if j, ok := index[d]; ok {
				operands = append(operands, j)
			}
		}
		if c.Resource != nil && c.Resource.State != nil {
			if j, ok := index[c.Resource.State.String()]; ok {
				operands = append(operands, j)
			}
		}
		// The state recorded in so far: the same one, or the one a moving
		// resource leaves.
		if c.Prior != nil {
			if j, ok := index[c.Prior.Handler]; ok {
				operands = append(operands, j)
			}
		}
		sort.Ints(operands)
		op := Operation{Op: c.Action.String(), Address: addr, Provider: c.Provider(), Operands: uniqueInts(operands)}
		if c.Resource != nil {
			op.Type, op.Inputs = c.Resource.Type, c.Resource.Inputs
		} else if c.Prior != nil {
			op.Type = c.Prior.Entry.Type
		}
		if c.Structural {
			op.Op = "expand"
		}
		index[addr] = len(g.Operations)
		g.Operations = append(g.Operations, op)
		for _, f := range followers[i] {
			if waiting[f]--; waiting[f] == 0 {
				heap.Push(ready, f)
			}
		}
	}
	if p.Snapshot != nil {
		for _, op := range g.Operations {
			if d := p.Snapshot.Providers[op.Provider]; d != nil && g.Providers[op.Provider] == "" {
				if g.Providers == nil {
					g.Providers = map[string]string{}
				}
				g.Providers[op.Provider] = providerFingerprint(d)
			}
		}
	}
	if placed := len(g.Operations) - len(g.States); placed < len(todo) {
		var stuck []string
		for i, c := range todo {
			if waiting[i] > 0 {
				stuck = append(stuck, c.Addr())
			}
		}
		return nil, fmt.Errorf("plan has a dependency cycle among %s", strings.Join(stuck, ", "))
	}
	return g, nil
}

// providerFingerprint hashes what decides how a provider runs. Its
// position and parallelism are left out: they do not change what the
// plan does.
func providerFingerprint(d *source.Provider) string {
	c := *d
	c.Range, c.Parallelism = source.Range{}, 0
	raw, err := json.Marshal(c)
	if err != nil {
		return "unencodable: " + err.Error()
	}
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:])
}

// MovedProviders lists the providers whose declaration differs from the
// one a graph was made with.
func MovedProviders(saved, now *Graph) []string {
	var moved []string
	for _, name := range sortedAddresses(now.Providers) {
		if saved.Providers[name] != now.Providers[name] {
			moved = append(moved, name)
		}
	}
	return moved
}

func uniqueInts(s []int) []int {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// String is a stable text dump of the graph, for tests and bug reports.
func (g *Graph) String() string {
	var b strings.Builder
	for i, op := range g.Operations {
		fmt.Fprintf(&b, "%d %s %s", i, op.Op, op.Address)
		if len(op.Operands) > 0 {
			var s []string
			for _, o := range op.Operands {
				s = append(s, fmt.Sprint(o))
			}
			fmt.Fprintf(&b, " <- %s", strings.Join(s, ","))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// SameOperations reports the first difference between two graphs'
// operations, or "" when they do the same thing.
func SameOperations(saved, now *Graph) string {
	if len(saved.Operations) != len(now.Operations) {
		return fmt.Sprintf("the plan had %d operations, now there would be %d", len(saved.Operations), len(now.Operations))
	}
	for i := range saved.Operations {
		a, _ := json.Marshal(saved.Operations[i])
		b, _ := json.Marshal(now.Operations[i])
		if string(a) != string(b) {
			return fmt.Sprintf("operation %d (%s %s) differs: planned %s, now %s", i, saved.Operations[i].Op, saved.Operations[i].Address, a, b)
		}
	}
	return ""
}

// MovedStates lists the states whose content differs from the positions a
// graph was made against.
func MovedStates(saved, now *Graph) []string {
	cur := map[string]string{}
	for _, s := range now.States {
		cur[s.Handler] = s.Hash
	}
	var moved []string
	for _, s := range saved.States {
		if cur[s.Handler] != s.Hash {
			moved = append(moved, s.Handler)
		}
	}
	return moved
}

// intHeap is a min-heap of ints for container/heap.
type intHeap []int

func (h intHeap) Len() int           { return len(h) }
func (h intHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h intHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *intHeap) Push(x any)        { *h = append(*h, x.(int)) }
func (h *intHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
