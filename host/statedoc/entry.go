package statedoc

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/schema"
)

// Entry is one resource as recorded in a state document. Beside the v0
// fields, pier records the provider declaration's name and the resource's
// dependencies, so that a resource gone from the deployment can still be
// destroyed, in reverse dependency order.
//
// The properties are spelt two ways in the wild: NixOps4's code
// (ResourceState in rust/nixops4/src/state.rs) reads and writes
// input_properties / output_properties and refuses an entry without both,
// while its manual and older pier files show inputProperties /
// outputProperties. pier reads either and writes the spelling NixOps4's code
// reads, both properties always present, so that one state file serves
// either tool (see [Entry.MarshalJSON] and DecodeEntry).
type Entry struct {
	Type             string
	InputProperties  map[string]any
	OutputProperties map[string]any
	Provider         string
	Dependencies     []string
	// SensitiveInputs are the dotted paths of inputs that came from
	// sensitive values, so that pier state show can hide them.
	SensitiveInputs []string
	// Deposed are objects this resource had before a create-before-destroy
	// replacement, by deposed key, not destroyed yet: the next apply
	// destroys them. They still exist, so the state keeps them.
	Deposed map[string]Entry
	// ImportID is the id an import block adopted the object by, so that a
	// block left in the configuration is known as done (the id a
	// provider imports by is often not the object's id output).
	ImportID string
}

// The keys of an entry in a state document. The property keys are the ones
// NixOps4's code uses; camelInputs and camelOutputs are the manual's
// spelling, read but never written.
const (
	keyInputs       = "input_properties"
	keyOutputs      = "output_properties"
	camelInputs     = "inputProperties"
	camelOutputs    = "outputProperties"
	keyProvider     = "provider"
	keyDependencies = "dependencies"
	keySensitive    = "sensitiveInputs"
	keyDeposed      = "deposed"
	keyImportID     = "importId"
)

// MarshalJSON writes the entry in the spelling NixOps4's code reads, with
// both property objects present even when empty, because NixOps4's reader
// requires them (see [Entry.appendJSON]).
func (e Entry) MarshalJSON() ([]byte, error) { return e.appendJSON(make([]byte, 0, 256)) }

// appendJSON appends the entry's encoding to b: type, both property
// objects ({} for nil), then provider, dependencies, sensitiveInputs,
// deposed (by sorted key) and importId when not empty; properties by
// [schema.AppendJSON]. Every recorded change encodes its entry, and
// json.Marshal's reflection over a struct of these members was most of a
// record's cost; TestEntryMarshalJSON holds the bytes to what it gave.
func (e Entry) appendJSON(b []byte) ([]byte, error) {
	b = schema.AppendJSONString(append(b, `{"type":`...), e.Type)
	b, err := appendProperties(append(b, `,"`+keyInputs+`":`...), e.InputProperties)
	if err != nil {
		return nil, err
	}
	if b, err = appendProperties(append(b, `,"`+keyOutputs+`":`...), e.OutputProperties); err != nil {
		return nil, err
	}
	if e.Provider != "" {
		b = schema.AppendJSONString(append(b, `,"`+keyProvider+`":`...), e.Provider)
	}
	b = appendStrings(b, `,"`+keyDependencies+`":`, e.Dependencies)
	b = appendStrings(b, `,"`+keySensitive+`":`, e.SensitiveInputs)
	if len(e.Deposed) > 0 {
		b = append(b, `,"`+keyDeposed+`":{`...)
		for i, key := range slices.Sorted(maps.Keys(e.Deposed)) {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(schema.AppendJSONString(b, key), ':')
			if b, err = e.Deposed[key].appendJSON(b); err != nil {
				return nil, err
			}
		}
		b = append(b, '}')
	}
	if e.ImportID != "" {
		b = schema.AppendJSONString(append(b, `,"`+keyImportID+`":`...), e.ImportID)
	}
	return append(b, '}'), nil
}

// appendProperties appends p, {} when nil.
func appendProperties(b []byte, p map[string]any) ([]byte, error) {
	if p == nil {
		return append(b, "{}"...), nil
	}
	return schema.AppendJSON(b, p)
}

// appendStrings appends key and the list ss, nothing when it is empty.
func appendStrings(b []byte, key string, ss []string) []byte {
	if len(ss) == 0 {
		return b
	}
	b = append(append(b, key...), '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = schema.AppendJSONString(b, s)
	}
	return append(b, ']')
}

// UnmarshalJSON reads an entry in either spelling, as DecodeEntry does.
func (e *Entry) UnmarshalJSON(data []byte) error {
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return err
	}
	d, err := DecodeEntry(m)
	if err != nil {
		return err
	}
	*e = d
	return nil
}

// Recorded is an entry together with where it is recorded.
type Recorded struct {
	Address source.Address
	// Handler is the address of the state handler resource holding it.
	Handler string
	Entry   Entry
}

// DecodeEntry reads one recorded resource from the decoded document, in
// either spelling of the properties. Where an entry has both (edited by
// hand, say), NixOps4's code spelling wins, as it is the one both tools
// write.
func DecodeEntry(raw any) (Entry, error) {
	m, ok := raw.(map[string]any)
	if !ok {
		return Entry{}, fmt.Errorf("entry is %T, want an object", raw)
	}
	// One pass over the entry's few members rather than a look-up of
	// each member it may have: most are absent, and a state has an entry
	// per resource. Keys are unique, so each value is the one a look-up
	// gives.
	var typ, in, inCamel, out, outCamel, provider, deps, sens, importID, deposed any
	for k, v := range m {
		switch k {
		case "type":
			typ = v
		case keyInputs:
			in = v
		case camelInputs:
			inCamel = v
		case keyOutputs:
			out = v
		case camelOutputs:
			outCamel = v
		case keyProvider:
			provider = v
		case keyDependencies:
			deps = v
		case keySensitive:
			sens = v
		case keyImportID:
			importID = v
		case keyDeposed:
			deposed = v
		}
	}
	var e Entry
	if e.Type, ok = typ.(string); !ok {
		return Entry{}, fmt.Errorf("type is missing or not a string")
	}
	key := keyInputs
	if in == nil {
		in, key = inCamel, camelInputs
	}
	if in == nil {
		return Entry{}, fmt.Errorf("%s (or %s) is missing", keyInputs, camelInputs)
	}
	if e.InputProperties, ok = in.(map[string]any); !ok {
		return Entry{}, fmt.Errorf("%s is %s, want an object", key, schema.JSONKind(in))
	}
	key = keyOutputs
	if out == nil {
		out, key = outCamel, camelOutputs
	}
	if out != nil {
		if e.OutputProperties, ok = out.(map[string]any); !ok {
			return Entry{}, fmt.Errorf("%s is %s, want an object", key, schema.JSONKind(out))
		}
	}
	e.Provider, _ = provider.(string)
	e.Dependencies = stringList(deps)
	e.SensitiveInputs = stringList(sens)
	e.ImportID, _ = importID.(string)
	if dep, ok := deposed.(map[string]any); ok && len(dep) > 0 {
		e.Deposed = make(map[string]Entry, len(dep))
		for key, raw := range dep {
			d, err := DecodeEntry(raw)
			if err != nil {
				return Entry{}, fmt.Errorf("deposed object %s: %w", key, err)
			}
			e.Deposed[key] = d
		}
	}
	return e, nil
}

// stringList reads a JSON array of strings, skipping anything else.
func stringList(v any) []string {
	list, _ := v.([]any)
	var out []string
	for _, e := range list {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
