package statedoc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/schema"
)

// EntryPointer is the JSON Pointer of a resource's entry.
func EntryPointer(a source.Address) string { return schema.Pointer(a.StateKey()...) }

// Stored tracks which entries, outputs and parent objects exist in one
// stored state document, so that patches add what is missing and replace
// what is there. A recorder owns its Stored: the plan's [View]s
// stay read-only while apply runs.
type Stored struct {
	entries map[string]bool
	outputs map[string]bool
	paths   map[string]bool
	// missing are the members levels lack (see [View]), added by
	// [PatchBuilder.Heal].
	missing []string
	// deposed are the deposed objects recorded per address: a put keeps
	// them, since they still exist.
	deposed map[string]map[string]Entry
	// pending are the addresses with a pending operation.
	pending map[string]bool
	// size is what the stored document takes, encoded, at most: its size
	// as read plus what every patch built since adds. Replaced and
	// removed values are not subtracted, so it errs on the side of
	// refusing, and only within one run: the next one reads the size
	// afresh. limit is what it may grow to (see [StateTooLargeError]).
	size, limit int64
	handler     string
}

// StateTooLargeError is a change pier refused to record because it would
// grow a state past [schema.MaxStateSize], what a state read returns: a
// state pier wrote must be one it can read back.
type StateTooLargeError struct {
	Handler  string // the state handler holding the state
	Resource string // what the refused value belongs to
	Value    int64  // bytes the change adds
	State    int64  // bytes the state would take
	Limit    int64
}

func (e *StateTooLargeError) Error() string {
	return fmt.Sprintf("%s: its %d bytes would grow the state held by %s to about %d bytes, past the %d bytes a state read returns (schema.MaxStateSize); pier does not write a state it could not read back", e.Resource, e.Value, e.Handler, e.State, e.Limit)
}

// Healed says that a patch [PatchBuilder.Heal] added to is durable: the
// document lacks no member any more.
func (d *Stored) Healed() { d.missing = nil }

// grow accounts for n more bytes for what, or refuses them.
func (d *Stored) grow(what string, n int) error {
	if d.size+int64(n) > d.limit {
		return &StateTooLargeError{Handler: d.handler, Resource: what, Value: int64(n), State: d.size + int64(n), Limit: d.limit}
	}
	d.size += int64(n)
	return nil
}

// opOverhead is what an operation adds to the stored document beside its
// value: the member name and the punctuation around it.
const opOverhead = 8

// stored copies what a view says exists.
func (v *View) Stored() *Stored {
	d := &Stored{
		entries: make(map[string]bool, len(v.Entries)),
		outputs: make(map[string]bool, len(v.Outputs)),
		paths:   make(map[string]bool, len(v.paths)),
		missing: v.missing,
		deposed: map[string]map[string]Entry{},
		pending: make(map[string]bool, len(v.Pending)),
		size:    v.size,
		limit:   schema.MaxStateSize,
		handler: v.Handler,
	}
	for k := range v.Pending {
		d.pending[k] = true
	}
	for k, rec := range v.Entries {
		d.entries[k] = true
		if len(rec.Entry.Deposed) > 0 {
			d.deposed[k] = maps.Clone(rec.Entry.Deposed)
			d.paths[EntryPointer(rec.Address)+"/deposed"] = true
		}
	}
	for k := range v.Outputs {
		d.outputs[k] = true
	}
	for k := range v.paths {
		d.paths[k] = true
	}
	return d
}

// PatchBuilder turns entry changes into JSON Patch operations against one
// state document, adding the parent objects a nested entry needs. It costs
// time in the size of the change, not of the state.
type PatchBuilder struct {
	doc *Stored
	ops schema.Patch
	// vals holds the encodings of the operations' values one after
	// another, when the builder has scratch buffers (see
	// [NewPatchBuilderFrom]); without, each value is one allocation of
	// its own (see encodeValue).
	vals    []byte
	scratch bool
}

// NewPatchBuilder starts an empty patch against the document doc tracks;
// every operation it adds updates doc.
func NewPatchBuilder(doc *Stored) *PatchBuilder { return &PatchBuilder{doc: doc} }

// Scratch holds a patch's buffers, its operations and its values'
// encodings, between one patch and the next: a recorder builds one patch
// per event, one after another, and each one's slice of operations and
// each value's encoding were garbage once its event was appended (0.8 MB
// of the command's allocations on a fresh apply of 1000 bridged
// resources). The zero value is empty.
type Scratch struct {
	ops  schema.Patch
	vals []byte
}

// maxScratchOps and maxScratchVals bound what a [Scratch] keeps: a patch
// that carried thousands of operations, or a large file's contents, is
// let go rather than kept for the rest of the run.
const (
	maxScratchOps  = 1024
	maxScratchVals = 256 << 10
)

// NewPatchBuilderFrom is [NewPatchBuilder] building into s's buffers,
// which it takes over; [PatchBuilder.Release] gives them back.
func NewPatchBuilderFrom(doc *Stored, s *Scratch) *PatchBuilder {
	p := &PatchBuilder{doc: doc, ops: s.ops[:0], vals: s.vals[:0], scratch: true}
	s.ops, s.vals = nil, nil
	return p
}

// Release gives p's buffers back to s, for the next patch, once nothing
// refers to p's operations any more: the event that carried them was
// appended (or not), and its request sent. p is not to be used after.
func (p *PatchBuilder) Release(s *Scratch) {
	clear(p.ops)
	if cap(p.ops) <= maxScratchOps {
		s.ops = p.ops[:0]
	}
	if cap(p.vals) <= maxScratchVals {
		s.vals = p.vals[:0]
	}
	p.ops, p.vals = nil, nil
}

// value encodes an operation's value, by appendJSON: into vals when p
// has scratch buffers, else in one allocation of its own.
func (p *PatchBuilder) value(appendJSON func([]byte) ([]byte, error)) ([]byte, error) {
	if !p.scratch {
		return encodeValue(appendJSON)
	}
	start := len(p.vals)
	b, err := appendJSON(p.vals)
	if err != nil {
		return nil, err
	}
	// A value that grew vals leaves the earlier ones where they were,
	// in the array they point into.
	p.vals = b
	return b[start:len(b):len(b)], nil
}

// Grow makes room for n more operations: a recorder that knows how many
// changes a patch will carry builds it without growing it change by
// change.
func (p *PatchBuilder) Grow(n int) { p.ops = slices.Grow(p.ops, n) }

// Ops are the operations added so far, in order.
func (p *PatchBuilder) Ops() schema.Patch { return p.ops }

// ensure adds the top-level object at ptr ("/pierOutputs", say) if it is
// missing.
func (p *PatchBuilder) ensure(ptr string) {
	if p.doc.paths[ptr] {
		return
	}
	p.ops = append(p.ops, schema.PatchOperation{Op: "add", Path: ptr, Value: json.RawMessage(`{}`)})
	p.doc.paths[ptr] = true
	p.doc.size += int64(len(ptr) + opOverhead)
}

// emptyLevel is a nested deployment as pier adds it: both members, always.
// NixOps4 computes each patch by diffing its own view of the state, where
// every level has both (DeploymentState in rust/nixops4/src/state.rs), so
// it adds /deployments/d/resources/r without adding resources first; a
// level pier wrote without it would make that patch, and then the file,
// unreadable to both tools.
var emptyLevel = json.RawMessage(`{"resources":{},"deployments":{}}`)

// ensureLevel adds the nested deployment at composite (and its parents)
// if it is missing, and returns its pointer.
func (p *PatchBuilder) ensureLevel(composite source.Address) string {
	if len(composite) == 0 {
		return ""
	}
	parent := p.ensureLevel(composite[:len(composite)-1])
	ptr := parent + "/deployments/" + schema.EscapePointerToken(composite[len(composite)-1:].String())
	if p.doc.paths[ptr] {
		return ptr
	}
	p.ops = append(p.ops, schema.PatchOperation{Op: "add", Path: ptr, Value: emptyLevel})
	p.doc.paths[ptr] = true
	p.doc.paths[ptr+"/"+schema.ResourcesKey] = true
	p.doc.paths[ptr+"/"+schema.DeploymentsKey] = true
	p.doc.size += int64(len(ptr) + len(emptyLevel) + opOverhead)
	return ptr
}

// heal adds the members that levels of the stored document lack: files
// written by pier before it wrote both members, or edited by hand. It runs
// at the start of every event until one is appended, so that the next
// write mends the file. It returns how many operations it added.
func (p *PatchBuilder) Heal() int {
	n := 0
	for _, ptr := range p.doc.missing {
		if p.doc.paths[ptr] {
			continue
		}
		p.ops = append(p.ops, schema.PatchOperation{Op: "add", Path: ptr, Value: json.RawMessage(`{}`)})
		p.doc.paths[ptr] = true
		n++
	}
	return n
}

// unheal takes back what heal added, for an event that is not appended.
func (p *PatchBuilder) Unheal() {
	for _, ptr := range p.doc.missing {
		p.doc.paths[ptr] = false
	}
	p.ops = nil
}

// put records e as addr's current object, keeping its deposed objects,
// and clears addr's pending operation: this is its outcome.
func (p *PatchBuilder) Put(addr source.Address, e Entry) error {
	a, ptr := addr.String(), EntryPointer(addr)
	e.Deposed = p.doc.deposed[a]
	val, err := p.value(e.appendJSON)
	if err != nil {
		return err
	}
	// Refused before anything is changed: the batch it is part of goes
	// on without it.
	if err := p.doc.grow(a, len(ptr)+opOverhead+len(val)); err != nil {
		return err
	}
	p.ensureLevel(addr[:len(addr)-1])
	if len(e.Deposed) > 0 {
		p.doc.paths[ptr+"/deposed"] = true
	} else {
		// Absent reads as false: an entry without deposed objects
		// keeps no path of its own.
		delete(p.doc.paths, ptr+"/deposed")
	}
	op := "add"
	if p.doc.entries[a] {
		op = "replace"
	}
	p.ops = append(p.ops, schema.PatchOperation{Op: op, Path: ptr, Value: val})
	p.doc.entries[a] = true
	p.clearPending(a)
	return nil
}

// valueBuffers hold the buffers [encodeValue] encodes into.
var valueBuffers = sync.Pool{New: func() any { return new([]byte) }}

// maxPooledValue is the largest buffer put back in valueBuffers: an entry
// that carried a large file's contents is let go rather than kept.
const maxPooledValue = 64 << 10

// encodeValue returns what appendJSON appends to an empty slice, in one
// of its own size: an operation's value is kept only until its event is
// sent, and encoding it into a fresh 256 bytes grew a Terraform
// resource's entry (about 450 bytes for time_static) once and dropped
// the first.
func encodeValue(appendJSON func([]byte) ([]byte, error)) ([]byte, error) {
	buf := valueBuffers.Get().(*[]byte)
	b, err := appendJSON((*buf)[:0])
	var val []byte
	if err == nil {
		val = bytes.Clone(b)
	}
	if cap(b) <= maxPooledValue && cap(b) >= cap(*buf) {
		*buf = b[:0]
	}
	valueBuffers.Put(buf)
	return val, err
}

// remove records that addr has no current object, and clears its
// pending operation. The caller has destroyed its deposed objects first
// (they are ordered before it).
func (p *PatchBuilder) Remove(addr source.Address) {
	defer p.ClearPending(addr)
	if !p.doc.entries[addr.String()] {
		return
	}
	p.ops = append(p.ops, schema.PatchOperation{Op: "remove", Path: EntryPointer(addr)})
	delete(p.doc.entries, addr.String())
	delete(p.doc.deposed, addr.String())
	delete(p.doc.paths, EntryPointer(addr)+"/deposed")
}

// depose records old as a deposed object of addr under key. addr must
// be recorded (put first).
func (p *PatchBuilder) Depose(addr source.Address, key string, old Entry) error {
	old.Deposed = nil
	a := addr.String()
	ptr := EntryPointer(addr) + "/deposed"
	if !p.doc.paths[ptr] {
		// Not ensure: the entry itself is not a path it knows.
		p.ops = append(p.ops, schema.PatchOperation{Op: "add", Path: ptr, Value: json.RawMessage(`{}`)})
		p.doc.paths[ptr] = true
	}
	val, err := p.value(old.appendJSON)
	if err != nil {
		return err
	}
	if p.doc.deposed[a] == nil {
		p.doc.deposed[a] = map[string]Entry{}
	}
	p.doc.deposed[a][key] = old
	p.ops = append(p.ops, schema.PatchOperation{Op: "add", Path: ptr + "/" + schema.EscapePointerToken(key), Value: val})
	return nil
}

// removeDeposed records that a deposed object is gone.
func (p *PatchBuilder) RemoveDeposed(addr source.Address, key string) {
	a := addr.String()
	if _, ok := p.doc.deposed[a][key]; !ok {
		return
	}
	delete(p.doc.deposed[a], key)
	ptr := EntryPointer(addr) + "/deposed"
	if len(p.doc.deposed[a]) == 0 {
		// The last one: the member goes, so that the entry reads as
		// one NixOps4 would write.
		delete(p.doc.deposed, a)
		delete(p.doc.paths, ptr)
		p.ops = append(p.ops, schema.PatchOperation{Op: "remove", Path: ptr})
		return
	}
	p.ops = append(p.ops, schema.PatchOperation{Op: "remove", Path: ptr + "/" + schema.EscapePointerToken(key)})
}

func (p *PatchBuilder) PutOutput(name string, o RecordedOutput) error {
	val, err := json.Marshal(o)
	if err != nil {
		return err
	}
	if err := p.doc.grow("output "+name, len(name)+opOverhead+len(val)); err != nil {
		return err
	}
	p.ensure("/" + outputsKey)
	op := "add"
	if p.doc.outputs[name] {
		op = "replace"
	}
	p.ops = append(p.ops, schema.PatchOperation{Op: op, Path: "/" + outputsKey + "/" + schema.EscapePointerToken(name), Value: val})
	p.doc.outputs[name] = true
	return nil
}

func (p *PatchBuilder) RemoveOutput(name string) {
	if !p.doc.outputs[name] {
		return
	}
	p.ops = append(p.ops, schema.PatchOperation{Op: "remove", Path: "/" + outputsKey + "/" + schema.EscapePointerToken(name)})
	delete(p.doc.outputs, name)
}
