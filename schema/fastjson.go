package schema

import (
	"encoding/json"
	"slices"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
)

// decodeFast decodes data, one JSON value with optional white space
// around it, into what encoding/json's Decoder with UseNumber gives an
// any: map[string]any, []any, string, json.Number, bool and nil. Every
// frame and every state read goes through here, and encoding/json's
// reflection and separate validity scan were most of a large state's
// read. It reports false for anything but plain valid JSON (a syntax
// error, invalid UTF-8, a lone surrogate escape, deep nesting): the
// caller then decodes with encoding/json, whose result or error is the
// answer. So where decodeFast answers it answers exactly as
// encoding/json; FuzzDecodeFast holds it to that.
func decodeFast(data []byte) (any, bool) {
	d := fastDecoder{data: data}
	defer d.release()
	d.space()
	v, ok := d.value(0)
	if !ok {
		return nil, false
	}
	d.space()
	return v, d.pos == len(d.data)
}

// decodeFastWrapper decodes data when it is what decodeFast takes and an
// object of exactly one member, as every message's wrapper is
// ({"createResourceResponse": {...}}): it returns the member's key and
// its value as decodeFast decodes them, without the map decodeFast would
// make only to hold them. Anything else, a repeated key included, it
// leaves to decodeFast and encoding/json. into, when not nil, is an empty
// map that the member's value, when an object, is decoded into instead of
// one of its own (see [DecodeResponse]).
func decodeFastWrapper(data []byte, into map[string]any) (key string, value any, ok bool) {
	d := fastDecoder{data: data, into: into}
	defer d.release()
	d.space()
	if d.pos >= len(d.data) || d.data[d.pos] != '{' {
		return "", nil, false
	}
	d.pos++
	d.space()
	if d.pos >= len(d.data) || d.data[d.pos] != '"' {
		return "", nil, false
	}
	if key, ok = d.str(true); !ok {
		return "", nil, false
	}
	d.space()
	if d.pos >= len(d.data) || d.data[d.pos] != ':' {
		return "", nil, false
	}
	d.pos++
	d.space()
	if value, ok = d.value(1); !ok {
		return "", nil, false
	}
	d.space()
	if d.pos >= len(d.data) || d.data[d.pos] != '}' {
		return "", nil, false
	}
	d.pos++
	d.space()
	if d.pos != len(d.data) {
		return "", nil, false
	}
	return key, value, true
}

// fastMaxDepth bounds nesting; deeper documents go to encoding/json,
// which has its own bound (10000).
const fastMaxDepth = 1000

// fastMaxKeys bounds the object keys a decode shares: a state repeats a
// few member names ("type", "inputProperties") once per resource, and
// one string each saves their copies on the heap.
const fastMaxKeys = 1024

// fastMaxShared is the longest string value (or number) a decode shares,
// and fastMaxValues how many it shares: a state repeats a few short values
// ("memo", "local", a dependency's address) once per resource, and
// each, as an any, is a copy and a box on the heap.
const (
	fastMaxShared = 16
	fastMaxValues = 1024
)

// keyTables and valueTables keep the tables of shared keys and short
// values between decodes. Most frames are small, and making tables for
// each one cost more than they shared: a table starts with what earlier
// frames used (strings are immutable, so sharing them between documents
// is safe). One that filled past half its bound is emptied first, so
// that a decode always has room for its own.
var (
	keyTables   = sync.Pool{New: func() any { return map[string]string{} }}
	valueTables = sync.Pool{New: func() any { return map[string]any{} }}
)

// scratch is the decode's stacks of members and elements.
func (d *fastDecoder) scratch() *fastScratch {
	if d.stacks == nil {
		d.stacks = scratches.Get().(*fastScratch)
	}
	return d.stacks
}

// release gives the decode's tables and stacks back.
func (d *fastDecoder) release() {
	if s := d.stacks; s != nil {
		// A decode that failed left what it was inside of.
		clear(s.members)
		clear(s.items)
		s.members, s.items = s.members[:0], s.items[:0]
		if cap(s.members) <= fastMaxScratch && cap(s.items) <= fastMaxScratch {
			scratches.Put(s)
		}
		d.stacks = nil
	}
	if d.keys != nil {
		if len(d.keys) > fastMaxKeys/2 {
			clear(d.keys)
		}
		keyTables.Put(d.keys)
		d.keys = nil
	}
	if d.values != nil {
		if len(d.values) > fastMaxValues/2 {
			clear(d.values)
		}
		valueTables.Put(d.values)
		d.values = nil
	}
}

type fastDecoder struct {
	data   []byte
	pos    int
	keys   map[string]string
	values map[string]any // short string values, boxed once
	buf    []byte
	stacks *fastScratch
	// into is the map the wrapper's value (depth 1) is decoded into when
	// it is an object; see decodeFastWrapper.
	into map[string]any
}

// fastScratch holds the members of the objects and the elements of the
// arrays a decode is inside of, innermost last, until each is complete and
// its map or slice can be made at its final size: growing a map member by
// member made and dropped a table at each doubling (a Terraform
// resource's outputs, ten or more members, outgrow a map's first group
// of eight), and growing a slice element by element did the same.
type fastScratch struct {
	members []member
	items   []any
}

type member struct {
	key   string
	value any
}

// scratches keep the stacks between decodes; one that grew past
// fastMaxScratch (a large state's thousands of resources) is let go
// rather than kept.
var scratches = sync.Pool{New: func() any { return new(fastScratch) }}

const fastMaxScratch = 1024

func (d *fastDecoder) space() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

func (d *fastDecoder) value(depth int) (any, bool) {
	if d.pos >= len(d.data) || depth > fastMaxDepth {
		return nil, false
	}
	switch c := d.data[d.pos]; c {
	case '{':
		return d.object(depth)
	case '[':
		return d.array(depth)
	case '"':
		if v, ok := d.shared(); ok {
			return v, true
		}
		s, ok := d.str(false)
		return s, ok
	case 't':
		return true, d.literal("true")
	case 'f':
		return false, d.literal("false")
	case 'n':
		return nil, d.literal("null")
	default:
		if c == '-' || c >= '0' && c <= '9' {
			return d.number()
		}
		return nil, false
	}
}

func (d *fastDecoder) literal(word string) bool {
	if len(d.data)-d.pos < len(word) || string(d.data[d.pos:d.pos+len(word)]) != word {
		return false
	}
	d.pos += len(word)
	return true
}

func (d *fastDecoder) object(depth int) (any, bool) {
	d.pos++ // {
	// m is made once the object is too large for the stack, or at its
	// end; the wrapper's value may have one already.
	var m map[string]any
	if depth == 1 && d.into != nil {
		m, d.into = d.into, nil
	}
	d.space()
	if d.pos < len(d.data) && d.data[d.pos] == '}' {
		d.pos++
		if m == nil {
			m = make(map[string]any)
		}
		return m, true
	}
	s := d.scratch()
	base := len(s.members)
	for {
		if d.pos >= len(d.data) || d.data[d.pos] != '"' {
			return nil, false
		}
		k, ok := d.str(true)
		if !ok {
			return nil, false
		}
		d.space()
		if d.pos >= len(d.data) || d.data[d.pos] != ':' {
			return nil, false
		}
		d.pos++
		d.space()
		v, ok := d.value(depth + 1)
		if !ok {
			return nil, false
		}
		s.members = append(s.members, member{k, v})
		if len(s.members)-base == fastMaxStacked {
			m = d.flush(m, base)
		}
		d.space()
		if d.pos >= len(d.data) {
			return nil, false
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
			d.space()
		case '}':
			d.pos++
			return d.flush(m, base), true
		default:
			return nil, false
		}
	}
}

// fastMaxStacked is the most members of one object, or elements of one
// array, the stacks hold: a larger object (a state's resources) gets its
// map then, and the rest of its members go straight into it, so that the
// stacks stay small; a larger array likewise.
const fastMaxStacked = 64

// flush moves the members stacked from base into m, made at their count
// when nil, and returns it.
func (d *fastDecoder) flush(m map[string]any, base int) map[string]any {
	s := d.stacks
	ms := s.members[base:]
	if m == nil {
		m = make(map[string]any, len(ms))
	}
	for _, e := range ms {
		m[e.key] = e.value // the last of repeated keys wins, as in encoding/json
	}
	clear(ms)
	s.members = s.members[:base]
	return m
}

func (d *fastDecoder) array(depth int) (any, bool) {
	d.pos++ // [
	d.space()
	if d.pos < len(d.data) && d.data[d.pos] == ']' {
		d.pos++
		return make([]any, 0), true
	}
	s := d.scratch()
	base := len(s.items)
	var a []any // made once the array is too large for the stack
	for {
		v, ok := d.value(depth + 1)
		if !ok {
			return nil, false
		}
		if a != nil {
			a = append(a, v)
		} else if s.items = append(s.items, v); len(s.items)-base == fastMaxStacked {
			a = d.unstack(base)
		}
		d.space()
		if d.pos >= len(d.data) {
			return nil, false
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
			d.space()
		case ']':
			d.pos++
			if a == nil {
				a = d.unstack(base)
			}
			return a, true
		default:
			return nil, false
		}
	}
}

// unstack returns the elements stacked from base as their own slice.
func (d *fastDecoder) unstack(base int) []any {
	s := d.stacks
	a := slices.Clone(s.items[base:])
	clear(s.items[base:])
	s.items = s.items[:base]
	return a
}

// str decodes the string at d.pos (at its opening quote); key shares the
// string with the decode's earlier keys of the same text.
func (d *fastDecoder) str(key bool) (string, bool) {
	d.pos++ // "
	start := d.pos
	for d.pos < len(d.data) {
		c := d.data[d.pos]
		switch {
		case c == '"':
			raw := d.data[start:d.pos]
			d.pos++
			if !key {
				return string(raw), true
			}
			return d.key(raw), true
		case c == '\\':
			return d.escaped(start, key)
		case c < 0x20:
			return "", false
		case c < utf8.RuneSelf:
			d.pos++
		default:
			r, size := utf8.DecodeRune(d.data[d.pos:])
			if r == utf8.RuneError && size == 1 {
				return "", false // encoding/json would put U+FFFD here
			}
			d.pos += size
		}
	}
	return "", false
}

// shared decodes the string at d.pos when it is short and has no
// escape, as the any the decode's earlier strings of the same text got;
// otherwise it leaves d.pos and reports false, for str to decode it.
func (d *fastDecoder) shared() (any, bool) {
	start := d.pos + 1
	end := start
	for end < len(d.data) && end-start <= fastMaxShared {
		c := d.data[end]
		if c == '"' {
			break
		}
		if c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			return nil, false
		}
		end++
	}
	if end >= len(d.data) || d.data[end] != '"' {
		return nil, false
	}
	raw := d.data[start:end]
	if v, ok := d.values[string(raw)]; ok {
		d.pos = end + 1
		return v, true
	}
	var v any = string(raw)
	if d.values == nil {
		d.values = valueTables.Get().(map[string]any)
	}
	if len(d.values) < fastMaxValues {
		d.values[string(raw)] = v
	}
	d.pos = end + 1
	return v, true
}

func (d *fastDecoder) key(raw []byte) string {
	if s, ok := d.keys[string(raw)]; ok {
		return s
	}
	s := string(raw)
	if d.keys == nil {
		d.keys = keyTables.Get().(map[string]string)
	}
	if len(d.keys) < fastMaxKeys {
		d.keys[s] = s
	}
	return s
}

// escaped decodes the rest of a string that holds an escape; start is
// where its text begins and d.pos is at the first backslash.
func (d *fastDecoder) escaped(start int, key bool) (string, bool) {
	b := append(d.buf[:0], d.data[start:d.pos]...)
	for d.pos < len(d.data) {
		c := d.data[d.pos]
		switch {
		case c == '"':
			d.pos++
			d.buf = b
			if key {
				return d.key(b), true
			}
			return string(b), true
		case c == '\\':
			if d.pos+1 >= len(d.data) {
				return "", false
			}
			e := d.data[d.pos+1]
			d.pos += 2
			switch e {
			case '"', '\\', '/':
				b = append(b, e)
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r, ok := d.hex4()
				if !ok {
					return "", false
				}
				if utf16.IsSurrogate(r) {
					// Only a well-formed pair; encoding/json's handling
					// of a lone one is left to it.
					if d.pos+1 >= len(d.data) || d.data[d.pos] != '\\' || d.data[d.pos+1] != 'u' {
						return "", false
					}
					d.pos += 2
					r2, ok := d.hex4()
					if !ok {
						return "", false
					}
					if r = utf16.DecodeRune(r, r2); r == utf8.RuneError {
						return "", false
					}
				}
				b = utf8.AppendRune(b, r)
			default:
				return "", false
			}
		case c < 0x20:
			return "", false
		case c < utf8.RuneSelf:
			b = append(b, c)
			d.pos++
		default:
			r, size := utf8.DecodeRune(d.data[d.pos:])
			if r == utf8.RuneError && size == 1 {
				return "", false
			}
			b = append(b, d.data[d.pos:d.pos+size]...)
			d.pos += size
		}
	}
	return "", false
}

func (d *fastDecoder) hex4() (rune, bool) {
	if len(d.data)-d.pos < 4 {
		return 0, false
	}
	var r rune
	for _, c := range d.data[d.pos : d.pos+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r*16 + rune(c)
	}
	d.pos += 4
	return r, true
}

// number decodes a number as its text, checked against JSON's grammar:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (d *fastDecoder) number() (any, bool) {
	start := d.pos
	if d.data[d.pos] == '-' {
		d.pos++
	}
	digits := func() bool {
		n := d.pos
		for d.pos < len(d.data) && d.data[d.pos] >= '0' && d.data[d.pos] <= '9' {
			d.pos++
		}
		return d.pos > n
	}
	switch {
	case d.pos < len(d.data) && d.data[d.pos] == '0':
		d.pos++
	case !digits():
		return nil, false
	}
	if d.pos < len(d.data) && d.data[d.pos] == '.' {
		d.pos++
		if !digits() {
			return nil, false
		}
	}
	if d.pos < len(d.data) && (d.data[d.pos] == 'e' || d.data[d.pos] == 'E') {
		d.pos++
		if d.pos < len(d.data) && (d.data[d.pos] == '+' || d.data[d.pos] == '-') {
			d.pos++
		}
		if !digits() {
			return nil, false
		}
	}
	return d.sharedNumber(d.data[start:d.pos]), true
}

// sharedNumber is the number raw, as the any the decode's earlier numbers
// of the same text got when it is short: a resource's outputs repeat a
// few small numbers (a day, an hour, a schema version) from one frame to
// the next, and each, as an any, is a copy and a box on the heap. Its key
// in the table of shared values starts with a NUL, which no string the
// table shares holds (see shared), so a number never comes back as the
// string of its digits nor the other way round.
func (d *fastDecoder) sharedNumber(raw []byte) any {
	if len(raw) > fastMaxShared {
		return json.Number(raw)
	}
	var key [fastMaxShared + 1]byte
	k := append(key[:0], 0)
	k = append(k, raw...)
	if v, ok := d.values[string(k)]; ok {
		return v
	}
	var v any = json.Number(raw)
	if d.values == nil {
		d.values = valueTables.Get().(map[string]any)
	}
	if len(d.values) < fastMaxValues {
		d.values[string(k)] = v
	}
	return v
}
