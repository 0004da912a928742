// Package nixops4state reads state files and documents the way NixOps4
// reads them, so that pier's tests can check that NixOps4 would accept what
// pier writes. NixOps4 cannot be built here; this is an emulation written
// from its source, not a copy of it:
//
//   - the state file (rust/nixops4-resources-local/src/state.rs): a stream
//     of JSON values, each an event {index: u64, meta: {time: string, …},
//     patch: RFC 6902}; the first event must have index 0. Events are
//     applied in file order; later indexes are not checked.
//   - the state document (rust/nixops4/src/state.rs, State and
//     ResourceState, deserialised with serde): _type must be "nixopsState";
//     resources and deployments default to empty; every entry needs type (a
//     string), input_properties and output_properties (objects). Unknown
//     fields are ignored, as serde does without deny_unknown_fields.
//
// It is used only by tests; nothing in pier's commands imports it.
package nixops4state

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	jsonpatch "github.com/evanphx/json-patch/v5"

	"github.com/pierhq/pier/schema"
)

// State is a decoded state document, as NixOps4's State holds it.
type State struct {
	Deployment
}

// Deployment is one level of the document: its resources and nested
// deployments.
type Deployment struct {
	Resources   map[string]Resource
	Deployments map[string]Deployment
}

// Resource is one entry, as NixOps4's ResourceState holds it.
type Resource struct {
	Type             string
	InputProperties  map[string]any
	OutputProperties map[string]any
}

// ReadFile replays a state file as NixOps4's local state_file provider
// does, then decodes the document as NixOps4's CLI does.
func ReadFile(data []byte) (*State, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	doc := []byte(`{}`)
	for n := 0; ; n++ {
		var ev struct {
			Index *json.Number     `json:"index"`
			Meta  *json.RawMessage `json:"meta"`
			Patch *json.RawMessage `json:"patch"`
		}
		err := dec.Decode(&ev)
		if errors.Is(err, io.EOF) {
			if n == 0 {
				return nil, errors.New("state file invalid: no initial state event")
			}
			break
		}
		if err != nil {
			return nil, fmt.Errorf("event %d: %w", n, err)
		}
		if ev.Index == nil || ev.Meta == nil || ev.Patch == nil {
			return nil, fmt.Errorf("event %d: missing index, meta or patch", n)
		}
		idx, err := ev.Index.Int64()
		if err != nil || idx < 0 {
			return nil, fmt.Errorf("event %d: index %s is not a u64", n, ev.Index)
		}
		if n == 0 && idx != 0 {
			return nil, fmt.Errorf("expected initial state event with index 0, got %d", idx)
		}
		var meta struct {
			Time *string `json:"time"`
		}
		if err := json.Unmarshal(*ev.Meta, &meta); err != nil || meta.Time == nil {
			return nil, fmt.Errorf("event %d: meta.time is missing or not a string", n)
		}
		patch, err := jsonpatch.DecodePatch(*ev.Patch)
		if err != nil {
			return nil, fmt.Errorf("event %d: %w", n, err)
		}
		if doc, err = patch.Apply(doc); err != nil {
			return nil, fmt.Errorf("event %d: apply patch: %w", n, err)
		}
	}
	return ReadDocument(doc)
}

// ReadDocument decodes a state document as NixOps4's CLI does after a
// stateResourceRead.
func ReadDocument(doc []byte) (*State, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(doc, &top); err != nil {
		return nil, fmt.Errorf("failed to parse state: %w", err)
	}
	var typ string
	if raw, ok := top["_type"]; !ok {
		return nil, errors.New("failed to parse state: missing field `_type`")
	} else if err := json.Unmarshal(raw, &typ); err != nil || typ != "nixopsState" {
		return nil, fmt.Errorf("failed to parse state: unexpected _type in nixops state: expected 'nixopsState', got %s", raw)
	}
	d, err := readDeployment(top, "")
	if err != nil {
		return nil, fmt.Errorf("failed to parse state: %w", err)
	}
	return &State{Deployment: d}, nil
}

func readDeployment(level map[string]json.RawMessage, where string) (Deployment, error) {
	d := Deployment{Resources: map[string]Resource{}, Deployments: map[string]Deployment{}}
	if raw, ok := level[schema.ResourcesKey]; ok {
		var res map[string]map[string]json.RawMessage
		if err := json.Unmarshal(raw, &res); err != nil || res == nil {
			return d, fmt.Errorf("%sresources: want a map of objects", where)
		}
		for name, fields := range res {
			r, err := readResource(fields)
			if err != nil {
				return d, fmt.Errorf("%sresources.%s: %w", where, name, err)
			}
			d.Resources[name] = r
		}
	}
	if raw, ok := level[schema.DeploymentsKey]; ok {
		var deps map[string]map[string]json.RawMessage
		if err := json.Unmarshal(raw, &deps); err != nil || deps == nil {
			return d, fmt.Errorf("%sdeployments: want a map of objects", where)
		}
		for name, sub := range deps {
			nested, err := readDeployment(sub, where+"deployments."+name+".")
			if err != nil {
				return d, err
			}
			d.Deployments[name] = nested
		}
	}
	return d, nil
}

func readResource(fields map[string]json.RawMessage) (Resource, error) {
	var r Resource
	// In declaration order, so that the first missing field is the one
	// serde would name.
	for _, f := range []struct {
		key string
		dst any
	}{{"type", &r.Type}, {"input_properties", &r.InputProperties}, {"output_properties", &r.OutputProperties}} {
		key, dst := f.key, f.dst
		raw, ok := fields[key]
		if !ok {
			return r, fmt.Errorf("missing field `%s`", key)
		}
		if string(bytes.TrimSpace(raw)) == "null" {
			return r, fmt.Errorf("field `%s` is null", key)
		}
		if err := json.Unmarshal(raw, dst); err != nil {
			return r, fmt.Errorf("field `%s`: %w", key, err)
		}
	}
	return r, nil
}
