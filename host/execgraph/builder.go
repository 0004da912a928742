package execgraph

import (
	"fmt"
	"maps"
	"slices"
)

// Builder builds a graph in order: an element can refer only to elements
// added before it, so a graph is acyclic by construction.
type Builder struct {
	g Graph
	// byName finds the value elements already added, so that each
	// provider, desired resource and prior appears once.
	byName map[Kind]map[string]Ref
}

// NewBuilder returns an empty builder.
func NewBuilder() *Builder {
	return &Builder{g: Graph{results: map[string]Ref{}}, byName: map[Kind]map[string]Ref{}}
}

// Grow makes room for elements more elements and results more results,
// so that a builder told the size of its graph up front makes it once
// rather than growing it element by element.
func (b *Builder) Grow(elements, results int) {
	b.g.elems = slices.Grow(b.g.elems, elements)
	if results > 0 {
		m := make(map[string]Ref, len(b.g.results)+results)
		maps.Copy(m, b.g.results)
		b.g.results = m
	}
}

// Constant adds a constant value; name says what it is, for the dump.
func (b *Builder) Constant(name string, v any) Ref {
	return b.must(b.add(Element{Kind: KindConstant, Name: name, Value: v}))
}

// Provider adds a provider configuration, once per name.
func (b *Builder) Provider(name string, v any) Ref { return b.named(KindProvider, name, "", v) }

// Desired adds a desired resource, once per address.
func (b *Builder) Desired(addr string, v any) Ref { return b.named(KindDesired, addr, "", v) }

// Prior adds the recorded current object of a resource, once per address.
func (b *Builder) Prior(addr string, v any) Ref { return b.named(KindPrior, addr, "", v) }

// Deposed adds a deposed object of a resource, once per address and key.
func (b *Builder) Deposed(addr, key string, v any) Ref { return b.named(KindDeposed, addr, key, v) }

// Has returns the value element of a kind and name added already.
func (b *Builder) Has(k Kind, name string) (Ref, bool) {
	r, ok := b.byName[k][name]
	return r, ok
}

func (b *Builder) named(k Kind, name, key string, v any) Ref {
	id := name
	if key != "" {
		id += "\x00" + key
	}
	if r, ok := b.byName[k][id]; ok {
		return r
	}
	r := b.must(b.add(Element{Kind: k, Name: name, Key: key, Value: v}))
	if b.byName[k] == nil {
		b.byName[k] = map[string]Ref{}
	}
	b.byName[k][id] = r
	return r
}

// Waiter adds a waiter for the given results, or returns None when there
// is nothing to wait for. Absent refs are dropped, repeats removed.
func (b *Builder) Waiter(refs ...Ref) Ref {
	var ws []Ref
	for _, r := range refs {
		if r != None {
			ws = append(ws, r)
		}
	}
	if len(ws) == 0 {
		return None
	}
	slices.Sort(ws)
	return b.must(b.add(Element{Kind: KindWaiter, Waits: slices.Compact(ws)}))
}

// Operation adds an operation with its operands, as its opcode's
// signature lists them, and a waiter (or None).
func (b *Builder) Operation(op Opcode, operands []Ref, waiter Ref) (Ref, error) {
	return b.add(Element{Kind: KindOperation, Op: op, Operands: append(slices.Clip(operands), waiter)})
}

// SetResult names the operation that yields a resource's final state.
func (b *Builder) SetResult(addr string, r Ref) error {
	if r < 0 || int(r) >= len(b.g.elems) || b.g.elems[r].Kind != KindOperation {
		return fmt.Errorf("result of %s: element %d is not an operation", addr, r)
	}
	b.g.results[addr] = r
	return nil
}

// Build returns the graph. The builder must not be used afterwards.
func (b *Builder) Build() *Graph {
	g := b.g
	b.g = Graph{}
	return &g
}

func (b *Builder) must(r Ref, err error) Ref {
	if err != nil {
		panic("execgraph: " + err.Error()) // value elements have no operands to be wrong
	}
	return r
}

// add checks an element against what precedes it and appends it.
func (b *Builder) add(e Element) (Ref, error) {
	self := Ref(len(b.g.elems))
	if err := b.check(self, &e); err != nil {
		return None, fmt.Errorf("element %d: %w", self, err)
	}
	b.g.elems = append(b.g.elems, e)
	return self, nil
}

func (b *Builder) check(self Ref, e *Element) error {
	earlier := func(r Ref) (*Element, error) {
		if r < 0 || r >= self {
			return nil, fmt.Errorf("refers to element %d, which does not precede it", r)
		}
		return &b.g.elems[r], nil
	}
	switch e.Kind {
	case KindConstant, KindProvider, KindDesired, KindPrior, KindDeposed:
		if e.Kind != KindConstant && e.Name == "" {
			return fmt.Errorf("%s without a name", e.Kind)
		}
		return nil
	case KindWaiter:
		for _, w := range e.Waits {
			t, err := earlier(w)
			if err != nil {
				return err
			}
			if t.Kind != KindOperation && t.Kind != KindWaiter {
				return fmt.Errorf("waiter on element %d, a %s: only operations and waiters can be waited for", w, t.Kind)
			}
		}
		return nil
	case KindOperation:
	default:
		return fmt.Errorf("unknown element kind %d", e.Kind)
	}
	sig, ok := signatures[e.Op]
	if !ok {
		return fmt.Errorf("unknown opcode %d", e.Op)
	}
	n := len(e.Operands)
	if n < len(sig.slots)+1 || (sig.variadic == KindInvalid && n != len(sig.slots)+1) {
		return fmt.Errorf("%s takes %d operands and a waiter, not %d operands", e.Op, len(sig.slots), n)
	}
	for i, r := range e.Operands {
		var want slot
		switch {
		case i == n-1:
			want = slot{kind: KindWaiter, optional: true}
		case i < len(sig.slots):
			want = sig.slots[i]
		default:
			want = slot{kind: sig.variadic}
		}
		if r == None {
			if !want.optional {
				return fmt.Errorf("%s: operand %d (%s) is required", e.Op, i, want.kind)
			}
			continue
		}
		t, err := earlier(r)
		if err != nil {
			return fmt.Errorf("%s: operand %d %w", e.Op, i, err)
		}
		if t.Kind != want.kind || (want.op != OpInvalid && t.Op != want.op) {
			wantName := want.kind.String()
			if want.op != OpInvalid {
				wantName = want.op.String()
			}
			got := t.Kind.String()
			if t.Kind == KindOperation {
				got = t.Op.String()
			}
			return fmt.Errorf("%s: operand %d is element %d, a %s, not a %s", e.Op, i, r, got, wantName)
		}
	}
	return nil
}
