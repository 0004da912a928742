package schema

import (
	"encoding/json"
	"fmt"
	"iter"
	"maps"
	"slices"
)

// StateError is a state document whose structure is not that of a NixOps4
// state: a wrong _type, /resources that is not an object, an entry without
// a type, and so on. A tool that read such a document as "no resources"
// would plan to create everything again, so every reader refuses it.
type StateError struct {
	// Pointer is the RFC 6901 JSON Pointer of the offending value within
	// the state document ("" is the whole document).
	Pointer string
	// Problem says what is wrong there. It never contains the value: a
	// state holds secrets.
	Problem string
}

func (e *StateError) Error() string {
	ptr := e.Pointer
	if ptr == "" {
		ptr = `"" (the whole document)`
	}
	return fmt.Sprintf("corrupt state document at %s: %s", ptr, e.Problem)
}

// CheckState checks a decoded state document (as encoding/json decodes into
// any) against the structure of the v0 state schema
// (schemas/state-schema-v0.json), and counts its resources, nested
// deployments' included. It is the schema's rules written out in Go,
// because every plan checks its state and this costs one walk over the
// decoded document, with no re-encoding; a test checks that the two agree.
// Where a document has several faults, the one reported is the first in
// sorted key order, so the message is stable; keys are sorted only once a
// fault is found, so a sound document costs no sorting.
func CheckState(doc any) (resources int, err error) {
	n, err := checkState(doc, false)
	if err != nil {
		_, err = checkState(doc, true)
	}
	return n, err
}

// stateChecker walks a state document; sorted says to visit keys in
// order.
type stateChecker struct{ sorted bool }

func checkState(doc any, sorted bool) (int, error) {
	c := stateChecker{sorted: sorted}
	m, ok := doc.(map[string]any)
	if !ok {
		return 0, &StateError{Pointer: "", Problem: fmt.Sprintf("the document is %s, want an object", JSONKind(doc))}
	}
	switch t, present := m["_type"]; {
	case !present:
		return 0, &StateError{Pointer: "/_type", Problem: `missing; a state document has "_type": "nixopsState"`}
	case t != "nixopsState":
		return 0, &StateError{Pointer: "/_type", Problem: `is not "nixopsState"`}
	}
	n, err := c.level(m, "")
	if err != nil {
		return 0, err
	}
	if raw, ok := m[PendingOperationsKey]; ok {
		if err := c.pending(raw); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// PendingOperationsKey is pier's top-level key for the operations an
// interrupted run left unfinished: an object by resource address, each an
// object with operation ("create" or "destroy"), provider, type, started
// (RFC 3339) and, for a create, input_properties and sensitiveInputs.
// NixOps4 ignores it, as it ignores every top-level key it does not know.
const PendingOperationsKey = "pierPendingOperations"

// pending checks the pending operations. A malformed one must fail: read
// as "nothing pending", it would let apply create a second copy.
func (c stateChecker) pending(raw any) *StateError {
	ptr := "/" + PendingOperationsKey
	ops, ok := raw.(map[string]any)
	if !ok {
		return &StateError{Pointer: ptr, Problem: fmt.Sprintf("is %s, want an object of pending operations by address", JSONKind(raw))}
	}
	for key := range c.keys(ops) {
		at := ptr + "/" + EscapePointerToken(key)
		op, ok := ops[key].(map[string]any)
		if !ok {
			return &StateError{Pointer: at, Problem: fmt.Sprintf("is %s, want an object (a pending operation)", JSONKind(ops[key]))}
		}
		switch v := op["operation"]; v {
		case "create", "destroy":
		case nil:
			return &StateError{Pointer: at + "/operation", Problem: `missing; a pending operation is "create" or "destroy"`}
		default:
			return &StateError{Pointer: at + "/operation", Problem: `is not "create" or "destroy"`}
		}
		for _, k := range []string{"provider", "type", "started"} {
			if v, ok := op[k]; !ok || JSONKind(v) != "a string" {
				return &StateError{Pointer: at + "/" + k, Problem: fmt.Sprintf("is %s, want a string", kindOrMissing(v, ok))}
			}
		}
		if v, ok := op["input_properties"]; ok {
			if _, ok := v.(map[string]any); !ok {
				return &StateError{Pointer: at + "/input_properties", Problem: fmt.Sprintf("is %s, want an object", JSONKind(v))}
			}
		}
		if v, ok := op["sensitiveInputs"]; ok {
			list, ok := v.([]any)
			if !ok {
				return &StateError{Pointer: at + "/sensitiveInputs", Problem: fmt.Sprintf("is %s, want an array of strings", JSONKind(v))}
			}
			for i, s := range list {
				if JSONKind(s) != "a string" {
					return &StateError{Pointer: fmt.Sprintf("%s/sensitiveInputs/%d", at, i), Problem: fmt.Sprintf("is %s, want a string", JSONKind(s))}
				}
			}
		}
	}
	return nil
}

func kindOrMissing(v any, present bool) string {
	if !present {
		return "missing"
	}
	return JSONKind(v)
}

// checkLevel checks the resources and deployments of the root or of one
// nested deployment at ptr.
func (c stateChecker) level(level map[string]any, ptr string) (int, error) {
	n := 0
	if raw, ok := level[ResourcesKey]; ok {
		res, ok := raw.(map[string]any)
		if !ok {
			return 0, &StateError{Pointer: ptr + "/" + ResourcesKey, Problem: fmt.Sprintf("is %s, want an object of resources by name", JSONKind(raw))}
		}
		for key := range c.keys(res) {
			if err := checkEntry(res[key]); err != nil {
				// Pointers are built only for the error: escaping every
				// key would cost more than the whole walk.
				err.Pointer = ptr + "/" + ResourcesKey + "/" + EscapePointerToken(key) + err.Pointer
				return 0, err
			}
		}
		n += len(res)
	}
	if raw, ok := level[DeploymentsKey]; ok {
		deps, ok := raw.(map[string]any)
		if !ok {
			return 0, &StateError{Pointer: ptr + "/" + DeploymentsKey, Problem: fmt.Sprintf("is %s, want an object of deployments by name", JSONKind(raw))}
		}
		for key := range c.keys(deps) {
			at := ptr + "/" + DeploymentsKey + "/" + EscapePointerToken(key)
			sub, ok := deps[key].(map[string]any)
			if !ok {
				return 0, &StateError{Pointer: at, Problem: fmt.Sprintf("is %s, want an object (a nested deployment)", JSONKind(deps[key]))}
			}
			k, err := c.level(sub, at)
			if err != nil {
				return 0, err
			}
			n += k
		}
	}
	return n, nil
}

// checkEntry checks one recorded resource. The error's Pointer is
// relative to the entry.
//
// It reads the entry's few members in one pass, then checks them in a
// fixed order (type, the property objects, provider, importId,
// dependencies, sensitiveInputs), so the fault reported is the one a
// look-up of each member in that order finds: a state has an entry per
// resource, most of those members are absent, and ten look-ups an entry
// were a fifth of reading a large state.
func checkEntry(raw any) *StateError {
	const ptr = ""
	e, ok := raw.(map[string]any)
	if !ok {
		return &StateError{Pointer: ptr, Problem: fmt.Sprintf("is %s, want an object (a recorded resource)", JSONKind(raw))}
	}
	// The members checked, in the order they are checked, and whether
	// each is present.
	const (
		mType = iota
		mInputs
		mCamelInputs
		mOutputs
		mCamelOutputs
		mProvider
		mImportID
		mDependencies
		mSensitive
		nMembers
	)
	names := [nMembers]string{"type", "input_properties", "inputProperties", "output_properties", "outputProperties", "provider", "importId", "dependencies", "sensitiveInputs"}
	var vals [nMembers]any
	var present [nMembers]bool
	for k, v := range e {
		var m int
		switch k {
		case "type":
			m = mType
		case "input_properties":
			m = mInputs
		case "inputProperties":
			m = mCamelInputs
		case "output_properties":
			m = mOutputs
		case "outputProperties":
			m = mCamelOutputs
		case "provider":
			m = mProvider
		case "importId":
			m = mImportID
		case "dependencies":
			m = mDependencies
		case "sensitiveInputs":
			m = mSensitive
		default:
			continue
		}
		vals[m], present[m] = v, true
	}
	switch t := vals[mType]; {
	case !present[mType]:
		return &StateError{Pointer: ptr + "/type", Problem: "missing; every recorded resource has a type"}
	case JSONKind(t) != "a string":
		return &StateError{Pointer: ptr + "/type", Problem: fmt.Sprintf("is %s, want a string", JSONKind(t))}
	}
	if !present[mInputs] && !present[mCamelInputs] {
		return &StateError{Pointer: ptr + "/input_properties", Problem: "missing (nor is there inputProperties)"}
	}
	for m := mInputs; m <= mCamelOutputs; m++ {
		if present[m] {
			if _, ok := vals[m].(map[string]any); !ok {
				return &StateError{Pointer: ptr + "/" + names[m], Problem: fmt.Sprintf("is %s, want an object", JSONKind(vals[m]))}
			}
		}
	}
	for m := mProvider; m <= mImportID; m++ {
		if present[m] && JSONKind(vals[m]) != "a string" {
			return &StateError{Pointer: ptr + "/" + names[m], Problem: fmt.Sprintf("is %s, want a string", JSONKind(vals[m]))}
		}
	}
	for m := mDependencies; m <= mSensitive; m++ {
		if !present[m] {
			continue
		}
		list, ok := vals[m].([]any)
		if !ok {
			return &StateError{Pointer: ptr + "/" + names[m], Problem: fmt.Sprintf("is %s, want an array of strings", JSONKind(vals[m]))}
		}
		for i, s := range list {
			if JSONKind(s) != "a string" {
				return &StateError{Pointer: fmt.Sprintf("%s/%s/%d", ptr, names[m], i), Problem: fmt.Sprintf("is %s, want a string", JSONKind(s))}
			}
		}
	}
	return nil
}

// JSONKind names the JSON type of a decoded value, for messages that must
// not print the value (it may be secret).
func JSONKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case float64, json.Number:
		return "a number"
	default:
		return fmt.Sprintf("%T", v)
	}
}

func (c stateChecker) keys(m map[string]any) iter.Seq[string] {
	if c.sorted {
		return slices.Values(slices.Sorted(maps.Keys(m)))
	}
	return maps.Keys(m)
}

// The members of each level of a state document, the root or a nested
// deployment: its resources by name, and its nested deployments by name,
// each a level again. A resource's address joins the deployment names
// above it and its own name with dots (web.db), as NixOps4 does.
const (
	ResourcesKey   = "resources"
	DeploymentsKey = "deployments"
)

// StateResources yields the address of every resource a decoded state
// document records, nested deployments' included, in no particular order.
// It reads what is there and skips what is malformed: [CheckState] is the
// check.
func StateResources(doc map[string]any) iter.Seq[string] {
	return func(yield func(string) bool) { stateResources(doc, "", yield) }
}

func stateResources(level map[string]any, prefix string, yield func(string) bool) bool {
	if res, ok := level[ResourcesKey].(map[string]any); ok {
		for name := range res {
			if !yield(prefix + name) {
				return false
			}
		}
	}
	if deps, ok := level[DeploymentsKey].(map[string]any); ok {
		for name, d := range deps {
			if sub, ok := d.(map[string]any); ok && !stateResources(sub, prefix+name+".", yield) {
				return false
			}
		}
	}
	return true
}

// LockHolderKey is a top-level key a state handler adds to the document a
// reader that does not lock (a plan) is sent, never to the stored state,
// when another process holds the state's lock and the state has pending
// operations: they are that process's work in progress, not the relics of
// an interrupted run. Its value is an object with pid, since (RFC 3339),
// and, where the holder recorded them, command, user and host.
const LockHolderKey = "pierLockHolder"
