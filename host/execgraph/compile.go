package execgraph

import (
	"fmt"

	"github.com/pierhq/pier/host/source"
)

// Compile turns each operation of g into an [Operation]: its opcode's
// operand type, filled with the values of the elements its operands refer
// to. The result is indexed by element; it is nil for an element that is
// not an operation. A value of the wrong type (a graph built or loaded with
// values the engine does not use) is an error, so that applying never has
// to check.
func Compile[O comparable](g *Graph) ([]Operation[O], error) {
	c := compiler[O]{g: g}
	// The destroys that are a replace's first step: a create names their
	// prior as the object it replaces.
	replaced := map[Ref]bool{}
	for _, i := range g.Operations() {
		if e := g.Element(i); e.Op == OpCreate && e.Operands[3] != None {
			replaced[e.Operands[3]] = true
		}
	}
	out := make([]Operation[O], g.Len())
	for _, i := range g.Operations() {
		op, err := c.operation(i, replaced)
		if err != nil {
			return nil, fmt.Errorf("element %d (%s %s): %w", i, g.Element(i).Op, g.Subject(i), err)
		}
		out[i] = op
	}
	return out, nil
}

type compiler[O comparable] struct {
	g *Graph
	// err is the first operand of the wrong type.
	err error
}

func (c *compiler[O]) operation(i Ref, replaced map[Ref]bool) (Operation[O], error) {
	e := c.g.Element(i)
	o := e.Operands
	var op Operation[O]
	switch e.Op {
	case OpReadState:
		op = ReadState[O]{Handler: c.desired(o[0]), Provider: c.provider(o[1]), Hash: value[ContentHash](c, o[2])}
	case OpCreate:
		op = Create[O]{Desired: c.desired(o[0]), Provider: c.provider(o[1]), State: c.state(o[2]), Replaces: c.object(o[3])}
	case OpUpdate:
		op = Update[O]{Desired: c.desired(o[0]), Prior: c.object(o[1]), Provider: c.provider(o[2]), State: c.state(o[3]), PriorState: c.state(o[4])}
	case OpDestroy:
		op = Destroy[O]{Prior: c.object(o[0]), Provider: c.provider(o[1]), State: c.state(o[2]), Replacing: replaced[o[0]]}
	case OpCreateDepose:
		op = CreateDepose[O]{Desired: c.desired(o[0]), Prior: c.object(o[1]), Provider: c.provider(o[2]), State: c.state(o[3]), DeposeKey: value[string](c, o[4])}
	case OpDestroyDeposed:
		op = DestroyDeposed[O]{Deposed: c.object(o[0]), Key: c.g.Element(o[0]).Key, Provider: c.provider(o[1]), State: c.state(o[2])}
	case OpResolve:
		op = Resolve[O]{Address: c.g.Subject(i), Desired: c.desired(o[0]), Prior: c.object(o[1]), Provider: c.provider(o[2]), State: c.state(o[3]), Controls: value[Controls](c, o[4]), WaitsOn: c.waitsOn(i)}
	case OpExpand:
		op = Expand[O]{Address: c.g.Subject(i), Desired: c.desired(o[0]), Controls: value[Controls](c, o[1]), WaitsOn: c.waitsOn(i)}
	case OpDestroyAbsent:
		d := DestroyAbsent[O]{Composite: c.g.Subject(o[0])}
		for _, p := range o[1 : len(o)-1] {
			d.Priors = append(d.Priors, c.object(p))
		}
		op = d
	case OpRefresh:
		op = Refresh[O]{Prior: c.object(o[0]), State: c.state(o[1]), Now: c.object(o[2])}
	case OpForget:
		op = Forget[O]{Prior: c.object(o[0]), State: c.state(o[1])}
	case OpMove:
		op = Move[O]{Desired: c.desired(o[0]), Prior: c.object(o[1]), State: c.state(o[2])}
	case OpImport:
		op = Import[O]{Desired: c.desired(o[0]), Imported: c.object(o[1]), State: c.state(o[2]), ID: value[string](c, o[3])}
	default:
		return nil, fmt.Errorf("opcode %d has no operation", e.Op)
	}
	if c.err != nil {
		err := c.err
		c.err = nil
		return nil, err
	}
	return op, nil
}

// value is the value of element r as a T: the zero T for an absent operand
// or a nil value.
func value[T any, O comparable](c *compiler[O], r Ref) T {
	var zero T
	if r == None {
		return zero
	}
	e := c.g.Element(r)
	if e.Value == nil {
		return zero
	}
	v, ok := e.Value.(T)
	if !ok && c.err == nil {
		c.err = fmt.Errorf("element %d (%s %s) holds a %T, not a %T", r, e.Kind, e.Name, e.Value, zero)
	}
	return v
}

func (c *compiler[O]) desired(r Ref) *source.Resource  { return value[*source.Resource](c, r) }
func (c *compiler[O]) provider(r Ref) *source.Provider { return value[*source.Provider](c, r) }
func (c *compiler[O]) object(r Ref) O                  { return value[O](c, r) }

// state is the handler a read-state operand reads: its subject.
func (c *compiler[O]) state(r Ref) string {
	if r == None {
		return ""
	}
	return c.g.Subject(r)
}

// waitsOn names the subjects of the operations element i waits for, but
// the read-states: what a pending resource's inputs come from.
func (c *compiler[O]) waitsOn(i Ref) []string {
	var out []string
	for _, d := range c.g.Dependencies(i) {
		if c.g.Element(d).Op != OpReadState {
			out = append(out, c.g.Subject(d))
		}
	}
	return out
}
