package execgraph

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// wireElement is an element's serialised form: one of the value kinds
// with its name and value, an operation, or a waiter.
type wireElement struct {
	Kind     string          `json:"kind"`
	Name     string          `json:"name,omitempty"`
	Key      string          `json:"key,omitempty"`
	Value    json.RawMessage `json:"value,omitempty"`
	Opcode   string          `json:"opcode,omitempty"`
	Operands []Ref           `json:"operands,omitempty"`
	Waits    []Ref           `json:"waits,omitempty"`
}

type wireGraph struct {
	Elements []wireElement  `json:"elements"`
	Results  map[string]Ref `json:"results"`
}

// Encoder turns an element's value into JSON; nil uses encoding/json.
type Encoder func(e *Element) ([]byte, error)

// Decoder turns a value element's JSON back into its value.
type Decoder func(kind Kind, name string, raw json.RawMessage) (any, error)

// Marshal encodes a graph, its values through enc.
func (g *Graph) Marshal(enc Encoder) ([]byte, error) {
	w := wireGraph{Elements: make([]wireElement, len(g.elems)), Results: g.results}
	for i := range g.elems {
		e := &g.elems[i]
		we := wireElement{Kind: e.Kind.String(), Name: e.Name, Key: e.Key}
		switch e.Kind {
		case KindOperation:
			we.Opcode, we.Operands = e.Op.String(), e.Operands
		case KindWaiter:
			we.Waits = e.Waits
		default:
			var raw []byte
			var err error
			if enc != nil {
				raw, err = enc(e)
			} else {
				raw, err = json.Marshal(e.Value)
			}
			if err != nil {
				return nil, fmt.Errorf("encode element %d (%s %s): %w", i, e.Kind, e.Name, err)
			}
			we.Value = raw
		}
		w.Elements[i] = we
	}
	return json.Marshal(w)
}

// Unmarshal decodes a graph Marshal encoded, replaying it through a
// [Builder] so that a graph that was tampered with (an operand referring
// to a later element, or to one of the wrong kind) is refused.
func Unmarshal(data []byte, dec Decoder) (*Graph, error) {
	var w wireGraph
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	if err := d.Decode(&w); err != nil {
		return nil, fmt.Errorf("execution graph: %w", err)
	}
	b := NewBuilder()
	for i, we := range w.Elements {
		e := Element{Name: we.Name, Key: we.Key}
		e.Kind, _ = parseKind(we.Kind)
		switch e.Kind {
		case KindInvalid:
			return nil, fmt.Errorf("execution graph: element %d: unknown kind %q", i, we.Kind)
		case KindOperation:
			op, err := ParseOpcode(we.Opcode)
			if err != nil {
				return nil, fmt.Errorf("execution graph: element %d: %w", i, err)
			}
			e.Op, e.Operands = op, we.Operands
		case KindWaiter:
			e.Waits = we.Waits
		default:
			v, err := dec(e.Kind, e.Name, we.Value)
			if err != nil {
				return nil, fmt.Errorf("execution graph: element %d (%s %s): %w", i, e.Kind, e.Name, err)
			}
			e.Value = v
		}
		if _, err := b.add(e); err != nil {
			return nil, fmt.Errorf("execution graph: %w", err)
		}
	}
	for addr, r := range w.Results {
		if err := b.SetResult(addr, r); err != nil {
			return nil, fmt.Errorf("execution graph: %w", err)
		}
	}
	return b.Build(), nil
}

// MarshalJSON encodes the graph with encoding/json for its values.
func (g *Graph) MarshalJSON() ([]byte, error) { return g.Marshal(nil) }
