package statefile

import (
	"encoding/json"

	"github.com/pierhq/pier/schema"
)

// Document is a resolved state document kept in memory, to which patches
// are applied as [Log.Append] applies them: all of a patch or none, at a
// cost that follows the patch and not the document, and refusing a result
// whose _type is not nixopsState. State stores other than a file (the
// PostgreSQL adapter) use it to replay a snapshot's tail and to validate
// an event before they store it. A Document is not safe for concurrent
// use.
type Document struct{ d doc }

// NewDocument returns the document the initialising event creates.
func NewDocument() *Document {
	v, _ := decodeValue([]byte(initialDocument)) // a constant that decodes
	return &Document{d: doc{root: v}}
}

// DocumentOf adopts state, which must be a nixopsState document decoded
// with json.Number numbers (as [Replay] and json.Decoder.UseNumber decode
// them). The Document owns state from then on.
func DocumentOf(state map[string]any) (*Document, error) {
	if _, err := checkType(state); err != nil {
		return nil, err
	}
	return &Document{d: doc{root: state}}, nil
}

// DecodeDocument adopts b, the compact encoding of a nixopsState document
// (no white space outside strings, as [Document.MarshalJSON] writes it),
// decoded only two levels deep, as a writer opening a state file from its
// resolved-state cache decodes it (see lazy.go): each resource stays
// encoded until a patch reaches into it, and [Document.MarshalJSON]
// copies it as it is (so the encoding has its members in the order b has
// them, which need not be the sorted order of an encoding of the decoded
// document). A store that reads back a large state and then
// changes a few resources of it costs one pass over the bytes, not a
// decode of every resource. b must be valid JSON (as a database's JSON
// column gives it) and is kept: the caller must not change it after.
// ok=false means b is not a compact object that this decodes, and the
// caller decodes it whole; err is the wrong _type that [DocumentOf]
// refuses.
func DecodeDocument(b []byte) (_ *Document, ok bool, err error) {
	m, ok := decodeShallow(b)
	if !ok {
		return nil, false, nil
	}
	if _, err := checkType(m); err != nil {
		// Said of the value decoded whole, as DocumentOf says it.
		_, err = checkType(map[string]any{"_type": deepCopy(m["_type"])})
		return nil, true, err
	}
	return &Document{d: doc{root: m}}, true, nil
}

// CheckDocument reports what [DecodeDocument] would of b, without
// decoding it: ok=false when b is not a compact object, else the error of
// a wrong _type. It decodes only the _type member, and skips the others:
// a store that may never need the document (it sends it as read) checks
// it this way and decodes it once it does.
func CheckDocument(b []byte) (ok bool, err error) {
	top, ok := shallowObject(b)
	if !ok {
		return false, nil
	}
	m := map[string]any{}
	if raw, present := top["_type"]; present {
		v, err := decodeValue(raw.(json.RawMessage))
		if err != nil {
			return false, nil
		}
		m["_type"] = v
	}
	_, err = checkType(m)
	return true, err
}

// Apply applies patch. On error (an [*OpError], or a wrong resolved
// _type) the document is as it was.
func (d *Document) Apply(patch schema.Patch) error {
	if err := d.d.applyPatch(patch); err != nil {
		return err
	}
	if _, err := checkType(d.d.root); err != nil {
		d.d.rollback(0)
		return err
	}
	d.d.commit()
	return nil
}

// State returns a deep copy of the document, which the caller may change.
func (d *Document) State() map[string]any {
	m, _ := deepCopy(d.d.root).(map[string]any) // checked to be an object on every change
	return m
}

// MarshalJSON encodes the document without copying it.
func (d *Document) MarshalJSON() ([]byte, error) { return marshal(d.d.root) }

// AppendJSON appends the document's encoding, as MarshalJSON gives it, to
// b: a caller that knows about how large it is (a store that read it)
// gives b that capacity, and the encoding of a large state is not copied
// at each doubling.
func (d *Document) AppendJSON(b []byte) ([]byte, error) { return appendJSON(b, d.d.root) }

// Paths returns the JSON Pointers a patch touches (path, and from for move
// and copy), in patch order: what a history listing shows of an event.
func Paths(patch schema.Patch) []string { return touched(operations(patch)) }
