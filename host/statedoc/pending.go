package statedoc

import (
	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/schema"
)

// A pending operation is an operation pier sent to a provider and has not
// seen finish: its intent is recorded before the request and cleared by
// the record of its outcome (host/apply's intents.go). This file holds how
// one is spelt in a state document and the patches that add and clear it;
// docs/state.md says what they mean to a user.

// pendingKey is pier's top-level key for pending operations in a state
// document, beside pierOutputs: NixOps4 ignores top-level keys it does
// not know.
const pendingKey = schema.PendingOperationsKey

// PendingKind is the operation a pending operation was.
type PendingKind string

// The recorded kinds. An update is not recorded: it changes an object
// already recorded, and sending it again converges.
const (
	PendingCreate  PendingKind = "create"
	PendingDestroy PendingKind = "destroy"
)

// verb is the kind as a participle, for messages.
func (k PendingKind) Verb() string {
	switch k {
	case PendingCreate:
		return "creating"
	case PendingDestroy:
		return "destroying"
	}
	return string(k)
}

// PendingOperation is an operation pier sent to a provider and has not
// seen finish, as recorded under pierPendingOperations by address.
type PendingOperation struct {
	Operation PendingKind `json:"operation"`
	Provider  string      `json:"provider"`
	Type      string      `json:"type"`
	// Started is when the intent was recorded, RFC 3339 in UTC.
	Started string `json:"started"`
	// InputProperties are what a create was sent, so that the user can
	// find the object it may have made; a destroy's are in its entry.
	InputProperties map[string]any `json:"input_properties,omitempty"`
	SensitiveInputs []string       `json:"sensitiveInputs,omitempty"`
}

// appendJSON appends p as json.Marshal encodes it, by hand: every create
// records its intent, and json.Marshal's reflection was most of building
// one. TestPendingAppendJSON holds the bytes to json.Marshal's.
func (p PendingOperation) appendJSON(b []byte) ([]byte, error) {
	b = schema.AppendJSONString(append(b, `{"operation":`...), string(p.Operation))
	b = schema.AppendJSONString(append(b, `,"provider":`...), p.Provider)
	b = schema.AppendJSONString(append(b, `,"type":`...), p.Type)
	b = schema.AppendJSONString(append(b, `,"started":`...), p.Started)
	if len(p.InputProperties) > 0 {
		var err error
		if b, err = schema.AppendJSON(append(b, `,"`+keyInputs+`":`...), p.InputProperties); err != nil {
			return nil, err
		}
	}
	b = appendStrings(b, `,"`+keySensitive+`":`, p.SensitiveInputs)
	return append(b, '}'), nil
}

// decodePending reads the pending operations of a document whose shape
// [schema.CheckState] has checked.
func (v *View) decodePending(doc map[string]any) {
	raw, ok := doc[pendingKey].(map[string]any)
	if !ok {
		return
	}
	v.paths["/"+pendingKey] = true
	v.Pending = make(map[string]*PendingOperation, len(raw))
	for addr, r := range raw {
		m, _ := r.(map[string]any)
		p := &PendingOperation{}
		op, _ := m["operation"].(string)
		p.Operation = PendingKind(op)
		p.Provider, _ = m["provider"].(string)
		p.Type, _ = m["type"].(string)
		p.Started, _ = m["started"].(string)
		p.InputProperties, _ = m[keyInputs].(map[string]any)
		p.SensitiveInputs = stringList(m[keySensitive])
		v.Pending[addr] = p
	}
}

func pendingPointer(addr string) string {
	return "/" + pendingKey + "/" + schema.EscapePointerToken(addr)
}

// putPending records p as addr's pending operation.
func (pb *PatchBuilder) PutPending(addr source.Address, p PendingOperation) error {
	val, err := pb.value(p.appendJSON)
	if err != nil {
		return err
	}
	a := addr.String()
	// An intent carries the inputs: one too large for the state is
	// refused here, before the provider is asked to create anything.
	if err := pb.doc.grow(a, len(a)+opOverhead+len(val)); err != nil {
		return err
	}
	pb.ensure("/" + pendingKey)
	op := "add"
	if pb.doc.pending[a] {
		op = "replace"
	}
	pb.ops = append(pb.ops, schema.PatchOperation{Op: op, Path: pendingPointer(a), Value: val})
	pb.doc.pending[a] = true
	return nil
}

// clearPending removes addr's pending operation, if it has one, and the
// container with the last one, so that a state with nothing pending reads
// as it did before pier recorded intents.
func (pb *PatchBuilder) ClearPending(addr source.Address) { pb.clearPending(addr.String()) }

// clearPending is ClearPending of the address whose text is a.
func (pb *PatchBuilder) clearPending(a string) {
	if !pb.doc.pending[a] {
		return
	}
	delete(pb.doc.pending, a)
	if len(pb.doc.pending) == 0 {
		pb.ops = append(pb.ops, schema.PatchOperation{Op: "remove", Path: "/" + pendingKey})
		delete(pb.doc.paths, "/"+pendingKey)
		return
	}
	pb.ops = append(pb.ops, schema.PatchOperation{Op: "remove", Path: pendingPointer(a)})
}
