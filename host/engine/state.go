package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"sort"
	"strings"

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
// either tool (see [Entry.MarshalJSON] and decodeEntry).
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

// entryJSON is an entry as written: NixOps4's spelling, with both property
// objects present even when empty, because NixOps4's reader requires them.
type entryJSON struct {
	Type             string           `json:"type"`
	InputProperties  map[string]any   `json:"input_properties"`
	OutputProperties map[string]any   `json:"output_properties"`
	Provider         string           `json:"provider,omitempty"`
	Dependencies     []string         `json:"dependencies,omitempty"`
	SensitiveInputs  []string         `json:"sensitiveInputs,omitempty"`
	Deposed          map[string]Entry `json:"deposed,omitempty"`
	ImportID         string           `json:"importId,omitempty"`
}

// MarshalJSON writes the entry in the spelling NixOps4's code reads.
func (e Entry) MarshalJSON() ([]byte, error) {
	j := entryJSON(e)
	if j.InputProperties == nil {
		j.InputProperties = map[string]any{}
	}
	if j.OutputProperties == nil {
		j.OutputProperties = map[string]any{}
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads an entry in either spelling, as decodeEntry does.
func (e *Entry) UnmarshalJSON(data []byte) error {
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return err
	}
	d, err := decodeEntry(m)
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

// StateView is the state one state handler holds, decoded for planning.
type StateView struct {
	// Handler is the address of the state handler resource.
	Handler string
	// Entries by address string.
	Entries map[string]*Recorded
	// Outputs are the deployment outputs recorded in this state.
	Outputs map[string]RecordedOutput
	// Pending are the operations an interrupted run left unfinished, by
	// address string; see pending.go.
	Pending map[string]*PendingOperation
	// HeldBy is the live command that holds the state's lock, when the
	// handler read it without locking and another holds it: Pending are
	// then that command's work in progress.
	HeldBy *LockHolder
	// Document is the state document as read, unredacted.
	Document map[string]any
	hash     string
	// size is the length in bytes of the state as read (its read
	// response line); 0 when the document did not come from a read.
	size int64
	// paths are the JSON Pointers of the objects that exist under
	// deployments, so that a patch can create missing parents.
	paths map[string]bool
	// missing are the pointers of the resources and deployments members
	// that levels of the document lack, for the next write to add.
	missing []string
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
// It decodes the entries straight from the document: the read response was
// validated against the protocol schema already, and this runs on every
// plan, so it must cost one pass over the state and no re-encoding.
func decodeState(handler string, doc map[string]any) (*StateView, error) {
	// A structure that is not a state's (/resources replaced by 5, an
	// entry without a type) must fail, never read as "no resources": the
	// plan would create everything again. The check and the walk below
	// only read the document, so they run side by side: on a state of
	// thousands of resources each is a noticeable part of every plan, and
	// the other core is idle while the plan waits for them.
	held := takeLockHolder(doc)
	checked := make(chan error, 1)
	go func() {
		_, err := schema.CheckState(doc)
		checked <- err
	}()
	v, err := walkState(handler, doc)
	if cerr := <-checked; cerr != nil {
		return nil, fmt.Errorf("state held by %s: %w", handler, cerr)
	}
	if v != nil {
		v.HeldBy = held
	}
	return v, err
}

// walkState decodes a document that [schema.CheckState] accepts.
func walkState(handler string, doc map[string]any) (*StateView, error) {
	v := &StateView{
		Handler:  handler,
		Entries:  map[string]*Recorded{},
		Outputs:  map[string]RecordedOutput{},
		Document: doc,
		paths:    map[string]bool{"": true},
	}
	if err := v.walk(doc, nil, ""); err != nil {
		return nil, fmt.Errorf("state held by %s: %w", handler, err)
	}
	if outs, ok := doc[outputsKey].(map[string]any); ok {
		v.paths["/"+outputsKey] = true
		for name, o := range outs {
			m, _ := o.(map[string]any)
			sensitive, _ := m["sensitive"].(bool)
			v.Outputs[name] = RecordedOutput{Value: m["value"], Sensitive: sensitive}
		}
	}
	v.decodePending(doc)
	return v, nil
}

// ContentHash identifies the state document's content: a saved plan
// records it and refuses to apply once the state has moved. It is the
// protocol's only notion of position, since a state read returns a
// document, not a log offset. It is computed on demand because only saved
// plans need it.
func (v *StateView) ContentHash() string {
	if v.hash == "" {
		raw, err := json.Marshal(v.Document)
		if err != nil {
			return "unencodable: " + err.Error()
		}
		sum := sha256.Sum256(raw)
		v.hash = hex.EncodeToString(sum[:])
	}
	return v.hash
}

// walk collects the entries of one level (root or a deployment) and
// recurses into its deployments.
func (v *StateView) walk(level map[string]any, prefix source.Address, ptr string) error {
	v.paths[ptr] = true
	for _, member := range [...]string{schema.ResourcesKey, schema.DeploymentsKey} {
		if _, ok := level[member]; !ok {
			v.missing = append(v.missing, ptr+"/"+member)
		}
	}
	if res, ok := level[schema.ResourcesKey].(map[string]any); ok {
		v.paths[ptr+"/"+schema.ResourcesKey] = true
		for key, raw := range res {
			step, err := parseStep(key)
			if err != nil {
				return err
			}
			e, err := decodeEntry(raw)
			if err != nil {
				return fmt.Errorf("resource %s: %w", key, err)
			}
			addr := append(append(source.Address{}, prefix...), step)
			v.Entries[addr.String()] = &Recorded{Address: addr, Handler: v.Handler, Entry: e}
		}
	}
	if deps, ok := level[schema.DeploymentsKey].(map[string]any); ok {
		v.paths[ptr+"/"+schema.DeploymentsKey] = true
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
			if err := v.walk(sub, addr, ptr+"/deployments/"+schema.EscapePointerToken(key)); err != nil {
				return err
			}
		}
	}
	return nil
}

// decodeEntry reads one recorded resource from the decoded document, in
// either spelling of the properties. Where an entry has both (edited by
// hand, say), NixOps4's code spelling wins, as it is the one both tools
// write.
func decodeEntry(raw any) (Entry, error) {
	m, ok := raw.(map[string]any)
	if !ok {
		return Entry{}, fmt.Errorf("entry is %T, want an object", raw)
	}
	var e Entry
	if e.Type, ok = m["type"].(string); !ok {
		return Entry{}, fmt.Errorf("type is missing or not a string")
	}
	in, key := m[keyInputs], keyInputs
	if in == nil {
		in, key = m[camelInputs], camelInputs
	}
	if in == nil {
		return Entry{}, fmt.Errorf("%s (or %s) is missing", keyInputs, camelInputs)
	}
	if e.InputProperties, ok = in.(map[string]any); !ok {
		return Entry{}, fmt.Errorf("%s is %s, want an object", key, schema.JSONKind(in))
	}
	out, key := m[keyOutputs], keyOutputs
	if out == nil {
		out, key = m[camelOutputs], camelOutputs
	}
	if out != nil {
		if e.OutputProperties, ok = out.(map[string]any); !ok {
			return Entry{}, fmt.Errorf("%s is %s, want an object", key, schema.JSONKind(out))
		}
	}
	e.Provider, _ = m[keyProvider].(string)
	e.Dependencies = stringList(m[keyDependencies])
	e.SensitiveInputs = stringList(m[keySensitive])
	e.ImportID, _ = m[keyImportID].(string)
	if dep, ok := m[keyDeposed].(map[string]any); ok && len(dep) > 0 {
		e.Deposed = make(map[string]Entry, len(dep))
		for key, raw := range dep {
			d, err := decodeEntry(raw)
			if err != nil {
				return Entry{}, fmt.Errorf("deposed object %s: %w", key, err)
			}
			e.Deposed[key] = d
		}
	}
	return e, nil
}

func parseStep(key string) (source.Step, error) {
	if strings.HasPrefix(key, `"`) {
		// A name NixOps4 allows that starts with a quote: quoted in an
		// address, and kept whole here.
		return source.Step{Name: key}, nil
	}
	a, err := source.ParseAddress(key)
	if err != nil || len(a) != 1 {
		// A name pier would not produce (e.g. containing a dot) is still a
		// valid state key; keep it whole.
		return source.Step{Name: key}, nil
	}
	return a[0], nil
}

// entryPointer is the JSON Pointer of a resource's entry.
func entryPointer(a source.Address) string { return schema.Pointer(a.StateKey()...) }

// storedDoc tracks which entries, outputs and parent objects exist in one
// stored state document, so that patches add what is missing and replace
// what is there. A recorder owns its storedDoc: the plan's [StateView]s
// stay read-only while apply runs.
type storedDoc struct {
	entries map[string]bool
	outputs map[string]bool
	paths   map[string]bool
	// missing are the members levels lack (see [StateView]), added by
	// [patchBuilder.heal].
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

// grow accounts for n more bytes for what, or refuses them.
func (d *storedDoc) grow(what string, n int) error {
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
func (v *StateView) stored() *storedDoc {
	d := &storedDoc{
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
			d.paths[entryPointer(rec.Address)+"/deposed"] = true
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

// patchBuilder turns entry changes into JSON Patch operations against one
// state document, adding the parent objects a nested entry needs. It costs
// time in the size of the change, not of the state.
type patchBuilder struct {
	doc *storedDoc
	ops schema.Patch
}

// ensure adds the top-level object at ptr ("/pierOutputs", say) if it is
// missing.
func (p *patchBuilder) ensure(ptr string) {
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
func (p *patchBuilder) ensureLevel(composite source.Address) string {
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
func (p *patchBuilder) heal() int {
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
func (p *patchBuilder) unheal() {
	for _, ptr := range p.doc.missing {
		p.doc.paths[ptr] = false
	}
	p.ops = nil
}

// put records e as addr's current object, keeping its deposed objects,
// and clears addr's pending operation: this is its outcome.
func (p *patchBuilder) put(addr source.Address, e Entry) error {
	ptr := entryPointer(addr)
	e.Deposed = p.doc.deposed[addr.String()]
	val, err := json.Marshal(e)
	if err != nil {
		return err
	}
	// Refused before anything is changed: the batch it is part of goes
	// on without it.
	if err := p.doc.grow(addr.String(), len(ptr)+opOverhead+len(val)); err != nil {
		return err
	}
	p.ensureLevel(addr[:len(addr)-1])
	p.doc.paths[ptr+"/deposed"] = len(e.Deposed) > 0
	op := "add"
	if p.doc.entries[addr.String()] {
		op = "replace"
	}
	p.ops = append(p.ops, schema.PatchOperation{Op: op, Path: ptr, Value: val})
	p.doc.entries[addr.String()] = true
	p.clearPending(addr)
	return nil
}

// remove records that addr has no current object, and clears its
// pending operation. The caller has destroyed its deposed objects first
// (they are ordered before it).
func (p *patchBuilder) remove(addr source.Address) {
	defer p.clearPending(addr)
	if !p.doc.entries[addr.String()] {
		return
	}
	p.ops = append(p.ops, schema.PatchOperation{Op: "remove", Path: entryPointer(addr)})
	delete(p.doc.entries, addr.String())
	delete(p.doc.deposed, addr.String())
	delete(p.doc.paths, entryPointer(addr)+"/deposed")
}

// depose records old as a deposed object of addr under key. addr must
// be recorded (put first).
func (p *patchBuilder) depose(addr source.Address, key string, old Entry) error {
	old.Deposed = nil
	a := addr.String()
	ptr := entryPointer(addr) + "/deposed"
	if !p.doc.paths[ptr] {
		// Not ensure: the entry itself is not a path it knows.
		p.ops = append(p.ops, schema.PatchOperation{Op: "add", Path: ptr, Value: json.RawMessage(`{}`)})
		p.doc.paths[ptr] = true
	}
	val, err := json.Marshal(old)
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
func (p *patchBuilder) removeDeposed(addr source.Address, key string) {
	a := addr.String()
	if _, ok := p.doc.deposed[a][key]; !ok {
		return
	}
	delete(p.doc.deposed[a], key)
	ptr := entryPointer(addr) + "/deposed"
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

func (p *patchBuilder) putOutput(name string, o RecordedOutput) error {
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

func (p *patchBuilder) removeOutput(name string) {
	if !p.doc.outputs[name] {
		return
	}
	p.ops = append(p.ops, schema.PatchOperation{Op: "remove", Path: "/" + outputsKey + "/" + schema.EscapePointerToken(name)})
	delete(p.doc.outputs, name)
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
