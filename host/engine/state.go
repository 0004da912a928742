package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/schema"
)

// Entry is one resource as recorded in a state document. Beside the v0
// fields, pier records the provider declaration's name and the resource's
// dependencies, so that a resource gone from the deployment can still be
// destroyed, in reverse dependency order.
type Entry struct {
	Type             string         `json:"type"`
	InputProperties  map[string]any `json:"inputProperties"`
	OutputProperties map[string]any `json:"outputProperties,omitempty"`
	Provider         string         `json:"provider,omitempty"`
	Dependencies     []string       `json:"dependencies,omitempty"`
}

// Recorded is an entry together with where it is recorded.
type Recorded struct {
	Address source.Address
	// Handler is the address of the state handler resource holding it.
	Handler string
	Entry   Entry
}

// StateView is the state one state handler holds, decoded for planning.
type StateView struct {
	// Handler is the address of the state handler resource.
	Handler string
	// Hash identifies the state document's content: a saved plan records it
	// and refuses to apply once the state has moved. It is the protocol's
	// only notion of position, since a state read returns a document, not a
	// log offset.
	Hash string
	// Entries by address string.
	Entries map[string]*Recorded
	// Outputs are the deployment outputs recorded in this state.
	Outputs map[string]RecordedOutput
	// Document is the state document as read, unredacted.
	Document map[string]any
	// paths are the JSON Pointers of the objects that exist under
	// deployments, so that a patch can create missing parents.
	paths map[string]bool
}

// RecordedOutput is a deployment output as kept in state. Sensitive values
// are not kept: the protocol lets pier keep this secret out of state.
type RecordedOutput struct {
	Value     any  `json:"value,omitempty"`
	Sensitive bool `json:"sensitive,omitempty"`
}

// outputsKey is pier's own top-level key in the state document for
// deployment outputs.
const outputsKey = "pierOutputs"

// decodeState reads a state document as returned by stateResourceRead.
func decodeState(handler string, doc map[string]any) (*StateView, error) {
	raw, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	if err := schema.ValidateState(raw); err != nil {
		return nil, fmt.Errorf("state held by %s: %w", handler, err)
	}
	sum := sha256.Sum256(raw)
	v := &StateView{
		Handler:  handler,
		Hash:     hex.EncodeToString(sum[:]),
		Entries:  map[string]*Recorded{},
		Outputs:  map[string]RecordedOutput{},
		Document: doc,
		paths:    map[string]bool{"": true},
	}
	if err := v.walk(doc, nil, ""); err != nil {
		return nil, fmt.Errorf("state held by %s: %w", handler, err)
	}
	if outs, ok := doc[outputsKey].(map[string]any); ok {
		for name, o := range outs {
			var ro RecordedOutput
			if err := remarshal(o, &ro); err != nil {
				return nil, fmt.Errorf("state held by %s: output %s: %w", handler, name, err)
			}
			v.Outputs[name] = ro
		}
	}
	return v, nil
}

// walk collects the entries of one level (root or a deployment) and
// recurses into its deployments.
func (v *StateView) walk(level map[string]any, prefix source.Address, ptr string) error {
	v.paths[ptr] = true
	if res, ok := level["resources"].(map[string]any); ok {
		v.paths[ptr+"/resources"] = true
		for key, raw := range res {
			step, err := parseStep(key)
			if err != nil {
				return err
			}
			var e Entry
			if err := remarshal(raw, &e); err != nil {
				return fmt.Errorf("resource %s: %w", key, err)
			}
			addr := append(append(source.Address{}, prefix...), step)
			v.Entries[addr.String()] = &Recorded{Address: addr, Handler: v.Handler, Entry: e}
		}
	}
	if deps, ok := level["deployments"].(map[string]any); ok {
		v.paths[ptr+"/deployments"] = true
		for key, raw := range deps {
			sub, ok := raw.(map[string]any)
			if !ok {
				return fmt.Errorf("deployment %s is not an object", key)
			}
			step, err := parseStep(key)
			if err != nil {
				return err
			}
			addr := append(append(source.Address{}, prefix...), step)
			if err := v.walk(sub, addr, ptr+"/deployments/"+pointerSegment(key)); err != nil {
				return err
			}
		}
	}
	return nil
}

func parseStep(key string) (source.Step, error) {
	a, err := source.ParseAddress(key)
	if err != nil || len(a) != 1 {
		// A name pier would not produce (e.g. containing a dot) is still a
		// valid state key; keep it whole.
		return source.Step{Name: key}, nil
	}
	return a[0], nil
}

func remarshal(in any, out any) error {
	b, err := json.Marshal(in)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}

// pointerSegment escapes one RFC 6901 reference token.
func pointerSegment(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

// entryPointer is the JSON Pointer of a resource's entry.
func entryPointer(a source.Address) string {
	var b strings.Builder
	for _, seg := range a.StateKey() {
		b.WriteByte('/')
		b.WriteString(pointerSegment(seg))
	}
	return b.String()
}

// patchBuilder turns entry changes into JSON Patch operations against one
// state document, adding the parent objects a nested entry needs. It costs
// time in the size of the change, not of the state.
type patchBuilder struct {
	view *StateView
	ops  schema.Patch
}

func (p *patchBuilder) ensure(ptr string) {
	if p.view.paths[ptr] {
		return
	}
	parent := ptr[:strings.LastIndexByte(ptr, '/')]
	p.ensure(parent)
	p.ops = append(p.ops, schema.PatchOperation{Op: "add", Path: ptr, Value: json.RawMessage(`{}`)})
	p.view.paths[ptr] = true
}

func (p *patchBuilder) put(addr source.Address, e Entry) error {
	ptr := entryPointer(addr)
	p.ensure(ptr[:strings.LastIndexByte(ptr, '/')])
	val, err := json.Marshal(e)
	if err != nil {
		return err
	}
	op := "add"
	if _, ok := p.view.Entries[addr.String()]; ok {
		op = "replace"
	}
	p.ops = append(p.ops, schema.PatchOperation{Op: op, Path: ptr, Value: val})
	p.view.Entries[addr.String()] = &Recorded{Address: addr, Handler: p.view.Handler, Entry: e}
	return nil
}

func (p *patchBuilder) remove(addr source.Address) {
	if _, ok := p.view.Entries[addr.String()]; !ok {
		return
	}
	p.ops = append(p.ops, schema.PatchOperation{Op: "remove", Path: entryPointer(addr)})
	delete(p.view.Entries, addr.String())
}

func (p *patchBuilder) putOutput(name string, o RecordedOutput) error {
	p.ensure("/" + outputsKey)
	val, err := json.Marshal(o)
	if err != nil {
		return err
	}
	op := "add"
	if _, ok := p.view.Outputs[name]; ok {
		op = "replace"
	}
	p.ops = append(p.ops, schema.PatchOperation{Op: op, Path: "/" + outputsKey + "/" + pointerSegment(name), Value: val})
	p.view.Outputs[name] = o
	return nil
}

func (p *patchBuilder) removeOutput(name string) {
	if _, ok := p.view.Outputs[name]; !ok {
		return
	}
	p.ops = append(p.ops, schema.PatchOperation{Op: "remove", Path: "/" + outputsKey + "/" + pointerSegment(name)})
	delete(p.view.Outputs, name)
}

// sortedAddresses returns the keys of m in order.
func sortedAddresses[T any](m map[string]T) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
