package plan

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/pierhq/pier/host/execgraph"
	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/host/statedoc"
)

// This file is how a graph's values are saved (in a plan file) and read
// back: addresses as strings, numbers exact, and values known only after
// apply as a marker no real input can hold.

// unknownMarker stands for [source.Unknown] in a saved graph.
const unknownMarker = "$pier:unknown"

type resourceJSON struct {
	Address         string            `json:"address"`
	Provider        string            `json:"provider"`
	Type            string            `json:"type"`
	Inputs          map[string]any    `json:"inputs,omitempty"`
	State           string            `json:"state,omitempty"`
	DependsOn       []string          `json:"depends_on,omitempty"`
	Range           source.Range      `json:"range"`
	SensitiveInputs []string          `json:"sensitive_inputs,omitempty"`
	Lifecycle       *source.Lifecycle `json:"lifecycle,omitempty"`
	// Conditions are saved for the preconditions left to run time.
	Conditions []*source.ConditionResult `json:"conditions,omitempty"`
	// ProviderPlan is the provider's plan of the create or update, from
	// its preview, which apply hands back.
	ProviderPlan string `json:"provider_plan,omitempty"`
}

type recordedJSON struct {
	Address string         `json:"address"`
	Handler string         `json:"handler"`
	Entry   map[string]any `json:"entry"`
}

// EncodeGraph encodes a graph with its values.
func EncodeGraph(g *execgraph.Graph) ([]byte, error) {
	return g.Marshal(func(e *execgraph.Element) ([]byte, error) {
		switch v := e.Value.(type) {
		case *source.Resource:
			if v == nil {
				return []byte("null"), nil
			}
			w := resourceJSON{Address: v.Address.String(), Provider: v.Provider, Type: v.Type, Inputs: markUnknown(v.Inputs).(map[string]any),
				Range: v.Range, SensitiveInputs: v.SensitiveInputs, Lifecycle: v.Lifecycle, Conditions: v.Conditions, ProviderPlan: v.ProviderPlan}
			if v.State != nil {
				w.State = v.State.String()
			}
			for _, d := range v.DependsOn {
				w.DependsOn = append(w.DependsOn, d.String())
			}
			return json.Marshal(w)
		case *statedoc.Recorded:
			if v == nil {
				return []byte("null"), nil
			}
			raw, err := json.Marshal(v.Entry)
			if err != nil {
				return nil, err
			}
			var m map[string]any
			if err := decodeNumbers(raw, &m); err != nil {
				return nil, err
			}
			return json.Marshal(recordedJSON{Address: v.Address.String(), Handler: v.Handler, Entry: m})
		}
		return json.Marshal(e.Value)
	})
}

// DecodeGraph reads a graph EncodeGraph wrote, checking its shape.
func DecodeGraph(data []byte) (*execgraph.Graph, error) {
	return execgraph.Unmarshal(data, func(kind execgraph.Kind, name string, raw json.RawMessage) (any, error) {
		switch kind {
		case execgraph.KindProvider:
			var d source.Provider
			return &d, decodeNumbers(raw, &d)
		case execgraph.KindDesired:
			var w *resourceJSON
			if err := decodeNumbers(raw, &w); err != nil || w == nil {
				return (*source.Resource)(nil), err
			}
			return w.resource()
		case execgraph.KindPrior, execgraph.KindDeposed:
			var w recordedJSON
			if err := decodeNumbers(raw, &w); err != nil {
				return nil, err
			}
			return w.recorded()
		case execgraph.KindConstant:
			switch name {
			case ConstControls:
				var c execgraph.Controls
				return c, decodeNumbers(raw, &c)
			case constRefreshed:
				var w *recordedJSON
				if err := decodeNumbers(raw, &w); err != nil || w == nil {
					return (*statedoc.Recorded)(nil), err
				}
				return w.recorded()
			case constHash:
				var s execgraph.SavedHash
				return s, json.Unmarshal(raw, &s)
			case constDeposeKey, constImportID:
				var s string
				return s, json.Unmarshal(raw, &s)
			}
			return nil, fmt.Errorf("unknown constant %q", name)
		}
		return nil, fmt.Errorf("no value for a %s", kind)
	})
}

func (w *recordedJSON) recorded() (*statedoc.Recorded, error) {
	addr, err := source.ParseAddress(w.Address)
	if err != nil {
		return nil, err
	}
	e, err := statedoc.DecodeEntry(w.Entry)
	if err != nil {
		return nil, err
	}
	return &statedoc.Recorded{Address: addr, Handler: w.Handler, Entry: e}, nil
}

func (w *resourceJSON) resource() (*source.Resource, error) {
	addr, err := source.ParseAddress(w.Address)
	if err != nil {
		return nil, err
	}
	inputs, _ := unmarkUnknown(w.Inputs).(map[string]any)
	r := &source.Resource{Address: addr, Provider: w.Provider, Type: w.Type, Inputs: inputs, Range: w.Range, SensitiveInputs: w.SensitiveInputs, Lifecycle: w.Lifecycle, Conditions: w.Conditions, ProviderPlan: w.ProviderPlan}
	if w.State != "" {
		s, err := source.ParseAddress(w.State)
		if err != nil {
			return nil, err
		}
		r.State = &s
	}
	for _, d := range w.DependsOn {
		a, err := source.ParseAddress(d)
		if err != nil {
			return nil, err
		}
		r.DependsOn = append(r.DependsOn, a)
	}
	return r, nil
}

func decodeNumbers(raw []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	return d.Decode(v)
}

func markUnknown(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = markUnknown(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = markUnknown(e)
		}
		return out
	}
	if source.IsUnknown(v) {
		return map[string]any{unknownMarker: true}
	}
	return v
}

func unmarkUnknown(v any) any {
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 1 && x[unknownMarker] == true {
			return source.Unknown
		}
		for k, e := range x {
			x[k] = unmarkUnknown(e)
		}
	case []any:
		for i, e := range x {
			x[i] = unmarkUnknown(e)
		}
	}
	return v
}
