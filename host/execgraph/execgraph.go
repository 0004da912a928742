// Package execgraph is an apply's program: an immutable execution graph
// in the shape of OpenTofu's. Its elements are values (constants,
// provider configurations, desired resources, prior states, deposed
// objects) and operations, each an opcode with operands that refer to
// earlier elements by index, plus waiters that order operations without
// passing data. A map from each resource address to the element that
// yields its final state completes it.
//
// The builder and the codec check the shape: every operand refers to an
// earlier element of the kind its opcode expects. The engine gives the
// values, and decodes them again when a saved graph is loaded. [Compile]
// turns each operation into an [Operation]: its opcode's operands as typed
// values (resources and providers of host/source, recorded objects of a
// type the engine chooses), run by a call of the [Operations] method for
// its opcode. The engine's applier implements [Operations]; start reading
// there, in operations.go.
//
// action.go holds the vocabulary a plan speaks: [Action]s, the opcodes
// [Steps] lowers each planned change to (for the planner's graph and for
// what apply decides at run time alike), and the actions read back from
// operations ([Opcode.Action], [Graph.Shows]) for what a plan shows and
// progress names.
package execgraph

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
)

//go:generate go tool stringer -type Kind -linecomment

// Kind is what an element is.
type Kind uint8

// The element kinds.
const (
	KindInvalid Kind = iota // invalid
	// KindConstant is a value known when the graph was built.
	KindConstant // constant
	// KindProvider is a provider configuration, by provider name.
	KindProvider // provider
	// KindDesired is a resource as the deployment declares it.
	KindDesired // desired
	// KindPrior is a resource's current object as a state records it.
	KindPrior // prior
	// KindDeposed is a deposed object of a resource, by key.
	KindDeposed // deposed
	// KindOperation is something apply does; its result is what later
	// operations use.
	KindOperation // operation
	// KindWaiter groups results an operation must wait for without using
	// them.
	KindWaiter // waiter
)

// parseKind parses a kind's name; the invalid kind has none.
func parseKind(s string) (Kind, bool) {
	// stringer's index (kind_string.go) has one entry more than there
	// are values, so this covers values added later without a change here.
	for k := KindInvalid + 1; k < Kind(len(_Kind_index)-1); k++ {
		if k.String() == s {
			return k, true
		}
	}
	return KindInvalid, false
}

// Ref is the index of an element; None is an absent optional operand.
type Ref int

// None is an optional operand that is absent.
const None Ref = -1

// Element is one element of a graph.
type Element struct {
	Kind Kind
	// Name is the provider name (provider), the resource address
	// (desired, prior, deposed), what a constant is ("hash"), or "".
	Name string
	// Key is a deposed object's key.
	Key string
	// Value is the element's payload, owned by the engine: nil for
	// operations and waiters.
	Value any
	// Op and Operands are set on operations; Waits on waiters.
	Op       Opcode
	Operands []Ref
	Waits    []Ref
}

// Graph is an immutable execution graph. Build one with a [Builder].
type Graph struct {
	elems   []Element
	results map[string]Ref
}

// Len is the number of elements.
func (g *Graph) Len() int { return len(g.elems) }

// Element returns element i. Its slices must not be modified.
func (g *Graph) Element(i Ref) *Element { return &g.elems[i] }

// Result is the element yielding the final state of a resource address,
// and whether there is one.
func (g *Graph) Result(addr string) (Ref, bool) {
	r, ok := g.results[addr]
	return r, ok
}

// Results lists the addresses with a result, sorted.
func (g *Graph) Results() []string {
	out := make([]string, 0, len(g.results))
	for a := range g.results {
		out = append(out, a)
	}
	sort.Strings(out)
	return out
}

// Operations lists the operation elements in order.
func (g *Graph) Operations() []Ref {
	var out []Ref
	for i := range g.elems {
		if g.elems[i].Kind == KindOperation {
			out = append(out, Ref(i))
		}
	}
	return out
}

// Subject names what an element is about: a resource address, a provider
// name, or "" for constants and waiters. An operation's subject is its
// first operand's that has one.
func (g *Graph) Subject(i Ref) string {
	e := &g.elems[i]
	switch e.Kind {
	case KindProvider, KindDesired, KindPrior:
		return e.Name
	case KindDeposed:
		return e.Name + " (deposed " + e.Key + ")"
	case KindOperation:
		for _, o := range e.Operands {
			if o == None {
				continue
			}
			k := g.elems[o].Kind
			if k == KindDesired || k == KindPrior || k == KindDeposed || k == KindOperation {
				return g.Subject(o)
			}
		}
	}
	return ""
}

// Dependencies lists the operations element i waits for: its operands
// that are operations, and the operations its waiters name, directly or
// through other waiters; sorted, without repeats.
func (g *Graph) Dependencies(i Ref) []Ref {
	var out []Ref
	var walk func(Ref)
	walk = func(r Ref) {
		if r == None {
			return
		}
		switch e := &g.elems[r]; e.Kind {
		case KindOperation:
			out = append(out, r)
		case KindWaiter:
			for _, w := range e.Waits {
				walk(w)
			}
		}
	}
	for _, o := range g.elems[i].Operands {
		walk(o)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// String is a stable text dump of the graph, one element a line, for
// golden tests and bug reports. Values are left out except short
// constants: the graph's shape is what the dump is for.
func (g *Graph) String() string {
	var b strings.Builder
	for i := range g.elems {
		e := &g.elems[i]
		fmt.Fprintf(&b, "%d ", i)
		switch e.Kind {
		case KindConstant:
			fmt.Fprintf(&b, "constant %s %s", e.Name, shortValue(e.Value))
		case KindProvider, KindDesired, KindPrior, KindDeposed:
			fmt.Fprintf(&b, "%s %s", e.Kind, g.Subject(Ref(i)))
		case KindWaiter:
			fmt.Fprintf(&b, "waiter %s", refs(e.Waits))
		case KindOperation:
			fmt.Fprintf(&b, "%s", e.Op)
			if s := g.Subject(Ref(i)); s != "" {
				fmt.Fprintf(&b, " %s", s)
			}
			fmt.Fprintf(&b, " <- %s", refs(e.Operands))
		}
		b.WriteByte('\n')
	}
	for _, a := range g.Results() {
		fmt.Fprintf(&b, "result %s = %d\n", a, g.results[a])
	}
	return b.String()
}

func refs(rs []Ref) string {
	s := make([]string, len(rs))
	for i, r := range rs {
		if r == None {
			s[i] = "_"
		} else {
			s[i] = fmt.Sprint(int(r))
		}
	}
	return strings.Join(s, ",")
}

func shortValue(v any) string {
	raw, err := json.Marshal(v)
	s := string(raw)
	if err != nil {
		s = fmt.Sprintf("%v", v)
	}
	if len(s) > 40 {
		s = s[:16] + "…"
	}
	return s
}
