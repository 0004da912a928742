package plan

import (
	"github.com/pierhq/pier/host/execgraph"
	"github.com/pierhq/pier/host/redact"
	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/host/statedoc"
)

// Graph is the JSON view of a plan's execution graph, for pier plan
// --json: its operations in order, each naming its resource, with the
// indexes (into Operations) of the earlier operations it follows.
type Graph struct {
	Operations []Operation `json:"operations"`
}

// Operation is one operation of a [Graph].
type Operation struct {
	Op       string         `json:"op"`
	Address  string         `json:"address"`
	Provider string         `json:"provider,omitempty"`
	Type     string         `json:"type,omitempty"`
	Inputs   map[string]any `json:"inputs,omitempty"`
	// InputsUnknown are the dotted paths of inputs known only after
	// apply, left out of Inputs: a program must not read a placeholder
	// string as a value (pier show --json's after_unknown likewise).
	InputsUnknown []string `json:"inputs_unknown,omitempty"`
	Operands      []int    `json:"operands,omitempty"`
	// Import is the id an import operation adopts.
	Import string `json:"import,omitempty"`
}

// RedactedGraph returns the plan's execution graph's operations with the
// inputs that the plan knows to be sensitive replaced, for showing (pier
// plan --json). A saved plan keeps the real values: it must carry out
// exactly what was planned, and it is written 0600.
func (p *Plan) RedactedGraph() (*Graph, error) {
	g, err := p.Graph()
	if err != nil {
		return nil, err
	}
	view := &Graph{Operations: []Operation{}}
	index := map[execgraph.Ref]int{}
	for _, i := range g.Operations() {
		el := g.Element(i)
		op := Operation{Op: el.Op.String(), Address: g.Subject(i)}
		for _, o := range el.Operands {
			if o == execgraph.None {
				continue
			}
			switch v := g.Element(o).Value.(type) {
			case *source.Resource:
				if v != nil {
					op.Provider, op.Type, op.Inputs = v.Provider, v.Type, v.Inputs
				}
			case *statedoc.Recorded:
				if op.Type == "" {
					op.Provider, op.Type = v.Entry.Provider, v.Entry.Type
				}
			}
		}
		if el.Op == execgraph.OpImport {
			op.Import, _ = g.Element(el.Operands[3]).Value.(string)
		}
		for _, d := range g.Dependencies(i) {
			op.Operands = append(op.Operands, index[d])
		}
		index[i] = len(view.Operations)
		if c := p.Change(op.Address); c != nil && op.Inputs != nil {
			inputs := redact.DeepCopy(op.Inputs).(map[string]any)
			for _, s := range c.SensitiveInputs {
				redact.At(inputs, redact.Dotted(s))
			}
			if c.Prior != nil {
				for _, steps := range redact.TerraformPaths(c.Prior.Entry.OutputProperties) {
					redact.At(inputs, steps)
				}
			}
			op.Inputs = inputs
		}
		op.Inputs, op.InputsUnknown = knownPart(op.Inputs, "")
		view.Operations = append(view.Operations, op)
	}
	return view, nil
}
