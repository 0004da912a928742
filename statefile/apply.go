package statefile

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	jsonpatch "github.com/evanphx/json-patch/v5"

	"github.com/pierhq/pier/schema"
)

// doc is a decoded state document (maps, slices, strings, bools, nil and
// json.Number, so numbers stay exact) plus the undo journal of the patch
// being applied. Every mutation goes through setMember, deleteMember,
// setElem or setRoot, which journal the previous value, so a patch that
// fails halfway can be rolled back in time proportional to its own size.
type doc struct {
	root any
	undo []undoEntry
	// canon is the scratch of the values Append keeps encoded (see stored).
	canon canonScanner
}

type undoEntry struct {
	m       map[string]any // member of an object, or
	a       []any          // element of an array, or (both nil) the root
	key     string
	idx     int
	old     any
	existed bool
}

// patchOptions are RFC 6902 semantics: json-patch's default of accepting
// negative array indices is not part of the RFC.
var patchOptions = func() *jsonpatch.ApplyOptions {
	o := jsonpatch.NewApplyOptions()
	o.SupportNegativeIndices = false
	return o
}()

func (d *doc) setMember(m map[string]any, k string, v any) {
	old, ok := m[k]
	d.undo = append(d.undo, undoEntry{m: m, key: k, old: old, existed: ok})
	m[k] = v
}

func (d *doc) deleteMember(m map[string]any, k string) {
	d.undo = append(d.undo, undoEntry{m: m, key: k, old: m[k], existed: true})
	delete(m, k)
}

func (d *doc) setElem(a []any, i int, v any) {
	d.undo = append(d.undo, undoEntry{a: a, idx: i, old: a[i]})
	a[i] = v
}

func (d *doc) setRoot(v any) {
	d.undo = append(d.undo, undoEntry{old: d.root})
	d.root = v
}

// rollback undoes every mutation journaled since mark, newest first.
func (d *doc) rollback(mark int) {
	for i := len(d.undo) - 1; i >= mark; i-- {
		e := d.undo[i]
		switch {
		case e.m != nil:
			if e.existed {
				e.m[e.key] = e.old
			} else {
				delete(e.m, e.key)
			}
		case e.a != nil:
			e.a[e.idx] = e.old
		default:
			d.root = e.old
		}
	}
	clear(d.undo[mark:])
	d.undo = d.undo[:mark]
}

// commit forgets the journal, keeping the mutations.
func (d *doc) commit() {
	clear(d.undo)
	d.undo = d.undo[:0]
}

// OpError reports the patch operation that could not be applied.
type OpError struct {
	Op   int    // position of the operation in its patch
	Kind string // "add", "remove", …
	Path string
	Err  error
}

func (e *OpError) Error() string {
	return fmt.Sprintf("patch operation %d (%s %q): %v", e.Op, e.Kind, e.Path, e.Err)
}

func (e *OpError) Unwrap() error { return e.Err }

// operation is one patch operation as it is applied. Append builds it from
// a schema.PatchOperation (raw value, decoded when needed); replay builds
// it from the event's own decoding pass (value already decoded), so a
// replayed value is parsed once.
type operation struct {
	Op, Path, From string
	hasValue       bool
	raw            json.RawMessage // the value as written; nil until needed, for replayed values
	val            any
	decoded        bool
}

func operations(p schema.Patch) []operation {
	ops := make([]operation, len(p))
	for i, op := range p {
		ops[i] = operation{Op: op.Op, Path: op.Path, From: op.From, hasValue: op.Value != nil, raw: op.Value}
	}
	return ops
}

// value is the decoded value. The caller owns it: it is decoded afresh
// from raw, or (replay) used only once.
func (o *operation) value() (any, error) {
	if !o.decoded {
		v, err := decodeValue(o.raw)
		if err != nil {
			return nil, err
		}
		o.val, o.decoded = v, true
	}
	return o.val, nil
}

// stored is the value an add or replace of an object's member keeps: for
// an object or array that Append was given, its encoding, put in
// json.Marshal's form (canonicalize), as a json.RawMessage that is decoded
// only when an operation or a read reaches into it (see lazy.go), so that
// recording a resource costs a copy of its bytes rather than a decode, and
// the document holds that copy rather than the decoded maps. Anything
// else (a scalar, which checkType may read, or a value canonicalize does
// not take) is decoded.
func (d *doc) stored(o *operation) (any, error) {
	if !o.decoded && len(o.raw) > 1 && (o.raw[0] == '{' || o.raw[0] == '[') {
		if enc, ok := d.canon.canonicalize(make([]byte, 0, len(o.raw)), o.raw); ok {
			return json.RawMessage(enc), nil
		}
	}
	return o.value()
}

func (o *operation) rawValue() (json.RawMessage, error) {
	if o.raw == nil {
		b, err := json.Marshal(o.val)
		if err != nil {
			return nil, err
		}
		o.raw = b
	}
	return o.raw, nil
}

// applyPatch applies every operation or, on the first failure, none: the
// document is rolled back and the error names the operation. On success
// the journal is kept so the caller can still roll back (e.g. when the
// result is not a nixopsState) or commit.
func (d *doc) applyPatch(p schema.Patch) error { return d.applyOps(operations(p)) }

func (d *doc) applyOps(ops []operation) error {
	mark := len(d.undo)
	for i := range ops {
		if err := d.applyOp(&ops[i]); err != nil {
			d.rollback(mark)
			return &OpError{Op: i, Kind: ops[i].Op, Path: ops[i].Path, Err: err}
		}
	}
	return nil
}

func (d *doc) applyOp(op *operation) error {
	op.Path, op.From = validUTF8(op.Path), validUTF8(op.From)
	path, err := schema.ParsePointer(op.Path)
	if err != nil {
		return fmt.Errorf("path: %w", err)
	}
	var from []string
	switch op.Op {
	case "add", "replace", "test":
		if !op.hasValue {
			return errors.New("missing value")
		}
	case "remove":
	case "move", "copy":
		if from, err = schema.ParsePointer(op.From); err != nil {
			return fmt.Errorf("from: %w", err)
		}
	default:
		return fmt.Errorf("unknown operation %q", op.Op)
	}
	if len(path) == 0 || (op.Op == "move" || op.Op == "copy") && len(from) == 0 {
		return d.applyRoot(op, path, from)
	}
	if done, err := d.fast(op, path, from); done {
		return err
	}
	return d.fallback(op, anchor(op.Op, path, from), path, from)
}

// ErrRemoveRoot is the error of a remove of "", the whole document: a
// patch may replace the document, never leave none.
var ErrRemoveRoot = errors.New(`cannot remove "", the whole document`)

// applyRoot applies an operation whose path or from is "", which RFC 6901
// defines as the whole document, not the member named "" (json-patch
// treats it as that member for remove, move and copy).
func (d *doc) applyRoot(op *operation, path, from []string) error {
	switch op.Op {
	case "add", "replace":
		v, err := op.value()
		if err != nil {
			return fmt.Errorf("value: %w", err)
		}
		d.setRoot(v)
		return nil
	case "remove":
		return ErrRemoveRoot
	case "test":
		v, err := op.value()
		if err != nil {
			return fmt.Errorf("value: %w", err)
		}
		if !jsonEqual(d.root, v) {
			return errors.New("test failed: the document differs from the value")
		}
		return nil
	}
	// move or copy, from or to the root.
	if len(from) == 0 {
		if len(path) == 0 {
			return nil // the document onto itself
		}
		if op.Op == "move" {
			return errors.New(`cannot move "", the whole document, into itself`)
		}
		// Copy the whole document to a location inside it: an add of
		// the document as it was.
		add := operation{Op: "add", Path: op.Path, hasValue: true, val: deepCopy(d.root), decoded: true}
		if done, err := d.fast(&add, path, nil); done {
			return err
		}
		return d.fallback(&add, anchor("add", path, nil), path, nil)
	}
	v, ok := d.lookup(from)
	if !ok {
		return fmt.Errorf("from %q does not exist", op.From)
	}
	if op.Op == "copy" {
		v = deepCopy(v)
	}
	d.setRoot(v)
	return nil
}

// jsonEqual compares decoded JSON values as test does below the root
// (json-patch): objects regardless of member order, numbers (json.Number)
// as written.
func jsonEqual(a, b any) bool {
	a, b = decoded(a), decoded(b)
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !jsonEqual(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !jsonEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	return a == b
}

// fast applies, in memory, the operations that touch members of objects:
// what the engine writes for every resource. It reports done=false, having
// changed nothing, for every other case.
func (d *doc) fast(op *operation, path, from []string) (done bool, err error) {
	if len(path) == 0 {
		return false, nil
	}
	parent, ok := d.lookup(path[:len(path)-1])
	if !ok {
		return false, nil
	}
	m, ok := parent.(map[string]any)
	if !ok {
		return false, nil
	}
	key := path[len(path)-1]
	switch op.Op {
	case "add", "replace":
		if _, exists := m[key]; !exists && op.Op == "replace" {
			return true, errors.New("path does not exist")
		}
		v, err := d.stored(op)
		if err != nil {
			return true, fmt.Errorf("value: %w", err)
		}
		d.setMember(m, key, v)
		return true, nil
	case "remove":
		if _, exists := m[key]; !exists {
			return true, errors.New("path does not exist")
		}
		d.deleteMember(m, key)
		return true, nil
	case "move", "copy":
		if len(from) == 0 {
			return false, nil
		}
		if op.Op == "copy" {
			v, ok := d.lookup(from)
			if !ok {
				return false, nil
			}
			d.setMember(m, key, deepCopy(v))
			return true, nil
		}
		// Moving a value into itself fails; let the library say so.
		if isPrefix(from, path[:len(path)-1]) {
			return false, nil
		}
		fp, ok := d.lookup(from[:len(from)-1])
		if !ok {
			return false, nil
		}
		fm, ok := fp.(map[string]any)
		if !ok {
			return false, nil
		}
		fkey := from[len(from)-1]
		v, exists := fm[fkey]
		if !exists {
			return true, fmt.Errorf("from %q does not exist", op.From)
		}
		d.deleteMember(fm, fkey)
		d.setMember(m, key, v)
		return true, nil
	}
	return false, nil
}

// anchor is the smallest sub-document that encloses everything an
// operation reads or writes: the parent of its path (and of from), or the
// path itself for test.
func anchor(kind string, path, from []string) []string {
	switch kind {
	case "test":
		return path
	case "move", "copy":
		if len(path) == 0 || len(from) == 0 {
			return nil
		}
		return commonPrefix(path[:len(path)-1], from[:len(from)-1])
	default:
		if len(path) == 0 {
			return nil
		}
		return path[:len(path)-1]
	}
}

// fallback applies one operation with json-patch to the sub-document at
// anchor, re-keyed as {"x": sub} so the library sees an ordinary member,
// and puts the result back. If anchor does not resolve in strict RFC 6901
// terms (a missing member, or an index json-patch parses more loosely),
// the library gets the whole document: that only happens for operations
// that fail anyway or use unusual indexes, so it costs nothing in
// practice and keeps the library's semantics exact.
func (d *doc) fallback(op *operation, at, path, from []string) error {
	sub, ok := d.lookup(at)
	if !ok {
		at = nil
	}
	jop := jsonpatch.Operation{"op": rawString(op.Op)}
	if op.hasValue {
		v, err := op.rawValue()
		if err != nil {
			return fmt.Errorf("encode value: %w", err)
		}
		jop["value"] = &v
	}
	var in []byte
	if len(at) == 0 {
		b, err := json.Marshal(d.root)
		if err != nil {
			return fmt.Errorf("encode document: %w", err)
		}
		in = b
		jop["path"] = rawString(op.Path)
		if op.Op == "move" || op.Op == "copy" {
			jop["from"] = rawString(op.From)
		}
	} else {
		b, err := json.Marshal(sub)
		if err != nil {
			return fmt.Errorf("encode %s: %w", schema.Pointer(at...), err)
		}
		in = make([]byte, 0, len(b)+6)
		in = append(append(append(in, `{"x":`...), b...), '}')
		jop["path"] = rawString(rekey(path, at))
		if op.Op == "move" || op.Op == "copy" {
			jop["from"] = rawString(rekey(from, at))
		}
	}
	out, err := jsonpatch.Patch{jop}.ApplyWithOptions(in, patchOptions)
	if err != nil {
		return err
	}
	v, err := decodeValue(out)
	if err != nil {
		return fmt.Errorf("decode patched document: %w", err)
	}
	if len(at) == 0 {
		d.setRoot(v)
		return nil
	}
	wrapped, ok := v.(map[string]any)
	if !ok {
		panic("json-patch returned a non-object for an object document: this is a bug in pier")
	}
	parent, _ := d.lookup(at[:len(at)-1])
	switch p := parent.(type) {
	case map[string]any:
		d.setMember(p, at[len(at)-1], wrapped["x"])
	case []any:
		i, _ := arrayIndex(at[len(at)-1], len(p))
		d.setElem(p, i, wrapped["x"])
	}
	return nil
}

// rekey rewrites a pointer below at as the same pointer below /x.
func rekey(p, at []string) string {
	segs := make([]string, 0, 1+len(p)-len(at))
	segs = append(segs, "x")
	segs = append(segs, p[len(at):]...)
	return schema.Pointer(segs...)
}

// lookup resolves reference tokens strictly: object members by name, array
// elements by canonical decimal index within bounds.
func (d *doc) lookup(segs []string) (any, bool) {
	v := d.root
	for _, s := range segs {
		switch c := v.(type) {
		case map[string]any:
			next, ok := c[s]
			if !ok {
				return nil, false
			}
			if _, raw := next.(json.RawMessage); raw {
				next = decoded(next)
				c[s] = next
			}
			v = next
		case []any:
			i, ok := arrayIndex(s, len(c))
			if !ok {
				return nil, false
			}
			if _, raw := c[i].(json.RawMessage); raw {
				c[i] = decoded(c[i])
			}
			v = c[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// arrayIndex parses an RFC 6901 array index: "0", or digits without a
// leading zero, below n.
func arrayIndex(s string, n int) (int, bool) {
	if s == "" || len(s) > 1 && s[0] == '0' {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	i, err := strconv.Atoi(s)
	if err != nil || i >= n {
		return 0, false
	}
	return i, true
}

func isPrefix(p, of []string) bool {
	if len(p) > len(of) {
		return false
	}
	for i := range p {
		if p[i] != of[i] {
			return false
		}
	}
	return true
}

func commonPrefix(a, b []string) []string {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return a[:n]
}

func rawString(s string) *json.RawMessage {
	b, _ := json.Marshal(s) // a string always encodes
	r := json.RawMessage(b)
	return &r
}

// decodeValue decodes exactly one JSON value, keeping numbers as
// json.Number so they are written back byte for byte. It decodes as
// encoding/json does, in schema's one-pass decoder.
func decodeValue(b []byte) (any, error) { return schema.DecodeJSON(b) }

// validUTF8 replaces each invalid byte with U+FFFD, as encoding/json does
// when it writes the event, so the member names in memory are the ones a
// later replay of the file produces.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func deepCopy(v any) any {
	switch c := v.(type) {
	case json.RawMessage:
		return decoded(c) // decoded afresh: nothing else holds it
	case map[string]any:
		m := make(map[string]any, len(c))
		for k, e := range c {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		a := make([]any, len(c))
		for i, e := range c {
			a[i] = deepCopy(e)
		}
		return a
	}
	return v
}
