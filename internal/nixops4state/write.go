package nixops4state

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/pierhq/pier/schema"
)

// The writer below is emulated from NixOps4 at commit
// 53d855472af18d85457f327fa9aeb268543ff74e:
//
//   - rust/nixops4/src/state.rs, StateHandle::resource_event: NixOps4 keeps
//     the state it read as serde structs (State, DeploymentState,
//     ResourceState), so its view has both resources and deployments at
//     every level and none of the fields it does not know. For each event
//     it serialises that view, sets the resource in a copy
//     (update_resource_in_deployment_state), and sends
//     json_patch::diff(old, new) as the patch; an empty diff sends nothing.
//   - json_patch 4.0.0's diff (pinned in rust/Cargo.lock) walks both
//     values with treediff: a member only in the new value is an add of
//     the whole value, one only in the old a remove, and a leaf that
//     differs a replace.
//   - rust/nixops4-resources-local/src/main.rs, state_event: the local
//     state_file provider appends {index: 0, meta: {time, event}, patch}
//     pretty-printed, without applying or checking the patch.

// Write emulates NixOps4 recording current as the resource at path (its
// composite names, then its own name) in a state file: it reads the file
// as NixOps4 does and returns the bytes its state_file provider appends,
// or nil when the diff is empty. It fails where NixOps4 would fail to read
// the file.
func Write(file []byte, path []string, event string, current Resource) ([]byte, error) {
	s, err := ReadFile(file)
	if err != nil {
		return nil, err
	}
	old := s.view()
	next := s.view()
	level := next
	for _, name := range path[:len(path)-1] {
		deps := level[schema.DeploymentsKey].(map[string]any)
		sub, ok := deps[name].(map[string]any)
		if !ok {
			sub = map[string]any{schema.ResourcesKey: map[string]any{}, schema.DeploymentsKey: map[string]any{}}
			deps[name] = sub
		}
		level = sub
	}
	level[schema.ResourcesKey].(map[string]any)[path[len(path)-1]] = current.view()
	patch := diff(nil, old, next, nil)
	if len(patch) == 0 {
		return nil, nil
	}
	ev := map[string]any{
		"index": 0,
		"meta":  map[string]any{"time": "2026-01-01T00:00:00+00:00", "event": event},
		"patch": patch,
	}
	out, err := json.MarshalIndent(ev, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode event: %w", err)
	}
	return append(out, '\n'), nil
}

// view is the document as NixOps4 serialises its DeploymentState: both
// members at every level, and only the fields it knows.
func (d Deployment) view() map[string]any {
	res := map[string]any{}
	for name, r := range d.Resources {
		res[name] = r.view()
	}
	deps := map[string]any{}
	for name, sub := range d.Deployments {
		deps[name] = sub.view()
	}
	return map[string]any{schema.ResourcesKey: res, schema.DeploymentsKey: deps}
}

func (r Resource) view() map[string]any {
	in, out := r.InputProperties, r.OutputProperties
	if in == nil {
		in = map[string]any{}
	}
	if out == nil {
		out = map[string]any{}
	}
	return map[string]any{"type": r.Type, "input_properties": in, "output_properties": out}
}

// diff appends to patch the operations that turn a into b, as treediff
// drives json_patch's PatchDiffer. Only objects are recursed into: the
// view NixOps4 diffs has arrays only inside properties, where a changed
// array is replaced element by element or whole, and either reads the same.
func diff(path []string, a, b any, patch []map[string]any) []map[string]any {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if !aok || !bok {
		if !equal(a, b) {
			patch = append(patch, map[string]any{"op": "replace", "path": pointer(path), "value": b})
		}
		return patch
	}
	for _, k := range slices.Sorted(maps.Keys(am)) {
		p := append(slices.Clone(path), k)
		if bv, ok := bm[k]; ok {
			patch = diff(p, am[k], bv, patch)
		} else {
			patch = append(patch, map[string]any{"op": "remove", "path": pointer(p)})
		}
	}
	for _, k := range slices.Sorted(maps.Keys(bm)) {
		if _, ok := am[k]; !ok {
			patch = append(patch, map[string]any{"op": "add", "path": pointer(append(slices.Clone(path), k)), "value": bm[k]})
		}
	}
	return patch
}

func equal(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

func pointer(path []string) string { return schema.Pointer(path...) }
