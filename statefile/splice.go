package statefile

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/pierhq/pier/schema"
)

// A writer that opened its log from the resolved-state cache holds the
// cache's encoding of the document as it was then. Rewriting the cache at
// Close then need not encode the whole state again: it copies the members
// no event touched from the old encoding and encodes only the touched
// ones, so a command that changed one resource of 100,000 pays for that
// resource and one copy of the bytes, not for an encode of the state.
//
// The old encoding is encoding/json's, compact, with object members sorted
// by key, and the result must be exactly what json.Marshal of the current
// document would give (the cache is keyed by its own hash, and a reader
// compares nothing else): members are kept and merged in the same order,
// and every touched one is encoded with json.Marshal. What the splice
// cannot follow (a patch of the root, an encoding it cannot parse) makes
// the writer encode the whole state, as before.

// changedMembers records which members of the document the events since the
// encoding changed, two levels deep: /resources/X/… marks member X of the
// top-level member resources; a pointer of one token marks a top-level
// member whole.
type changedMembers struct {
	// all means the root itself changed: encode everything.
	all bool
	// top maps a top-level member to its touched members; nil means the
	// member is encoded whole.
	top map[string]map[string]bool
}

// mark records the members an operation's pointer changes.
func (t *changedMembers) mark(pointer string) {
	if t.all {
		return
	}
	segs, err := schema.ParsePointer(pointer)
	if err != nil || len(segs) == 0 {
		t.all = true
		return
	}
	if t.top == nil {
		t.top = map[string]map[string]bool{}
	}
	sub, seen := t.top[segs[0]]
	switch {
	case len(segs) == 1:
		t.top[segs[0]] = nil
	case seen && sub == nil:
		// Encoded whole already.
	default:
		if sub == nil {
			sub = map[string]bool{}
			t.top[segs[0]] = sub
		}
		sub[segs[1]] = true
	}
}

// markPatch records every pointer of a patch, the from of a move included.
func (t *changedMembers) markPatch(p schema.Patch) {
	for _, op := range p {
		t.mark(op.Path)
		if op.Op == "move" {
			t.mark(op.From)
		}
	}
}

// spliceEncoding returns json.Marshal(root) given old, json.Marshal of the
// document before the changes t records, or ok=false when it cannot.
func spliceEncoding(old []byte, root map[string]any, t *changedMembers) (out []byte, ok bool) {
	if t.all || old == nil {
		return nil, false
	}
	if len(t.top) == 0 {
		return old, true
	}
	out = make([]byte, 0, len(old)+len(old)/64)
	return spliceObject(out, old, root, func(key string, oldVal []byte, cur any) ([]byte, bool) {
		sub := t.top[key]
		m, isObj := cur.(map[string]any)
		if sub == nil || !isObj || len(oldVal) == 0 || oldVal[0] != '{' {
			return nil, false
		}
		return spliceObject(make([]byte, 0, len(oldVal)+len(oldVal)/64), oldVal, m, func(string, []byte, any) ([]byte, bool) { return nil, false }, sub)
	}, t.top)
}

// spliceObject appends to out the encoding of cur given old, the encoding
// of the object before the members named in touched changed. A member not
// touched is copied from old; a touched one is given to inner with its old
// encoding (nil if new), which may splice it in turn, else it is encoded
// afresh, or left out when cur no longer has it.
func spliceObject[V any](out, old []byte, cur map[string]any, inner func(key string, oldVal []byte, cur any) ([]byte, bool), touched map[string]V) ([]byte, bool) {
	// The touched members cur still has, sorted as json.Marshal sorts
	// keys, to merge in where old has none of them.
	var added []string
	for k := range touched {
		if _, ok := cur[k]; ok {
			added = append(added, k)
		}
	}
	slices.Sort(added)
	if len(old) < 2 || old[0] != '{' {
		return nil, false
	}
	out = append(out, '{')
	first := true
	// Untouched members are copied a run at a time: [runStart, runEnd)
	// of old, members and the commas between them.
	runStart, runEnd := -1, -1
	flush := func() {
		if runStart < 0 {
			return
		}
		if !first {
			out = append(out, ',')
		}
		first = false
		out = append(out, old[runStart:runEnd]...)
		runStart = -1
	}
	emit := func(key string, oldVal []byte) bool {
		flush()
		v, ok := cur[key]
		if !ok {
			return true
		}
		if !first {
			out = append(out, ',')
		}
		first = false
		out = append(appendString(out, key), ':')
		if oldVal != nil {
			if b, ok := inner(key, oldVal, v); ok {
				out = append(out, b...)
				return true
			}
		}
		var err error
		out, err = appendJSON(out, v)
		return err == nil
	}
	i := 1
	for i < len(old) && old[i] != '}' {
		if i > 1 {
			if old[i] != ',' {
				return nil, false
			}
			i++
		}
		kEnd, ok := skipString(old, i)
		if !ok || kEnd >= len(old) || old[kEnd] != ':' {
			return nil, false
		}
		rawKey := old[i:kEnd]
		key := string(rawKey[1 : len(rawKey)-1])
		if bytes.IndexByte(rawKey, '\\') >= 0 {
			if json.Unmarshal(rawKey, &key) != nil {
				return nil, false
			}
		}
		vStart := kEnd + 1
		vEnd, ok := skipValue(old, vStart)
		if !ok {
			return nil, false
		}
		for len(added) > 0 && added[0] < key {
			if !emit(added[0], nil) {
				return nil, false
			}
			added = added[1:]
		}
		if len(added) > 0 && added[0] == key {
			added = added[1:]
		}
		if _, isTouched := touched[key]; isTouched {
			if !emit(key, old[vStart:vEnd]) {
				return nil, false
			}
		} else {
			if runStart < 0 {
				runStart = i
			}
			runEnd = vEnd
		}
		i = vEnd
	}
	if i != len(old)-1 {
		return nil, false
	}
	flush()
	for _, k := range added {
		if !emit(k, nil) {
			return nil, false
		}
	}
	return append(out, '}'), true
}

// skipString returns the index just after the JSON string starting at i.
func skipString(b []byte, i int) (int, bool) {
	if i >= len(b) || b[i] != '"' {
		return 0, false
	}
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1, true
		}
	}
	return 0, false
}

// skipValue returns the index just after the compact JSON value starting
// at i.
func skipValue(b []byte, i int) (int, bool) {
	if i >= len(b) {
		return 0, false
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end, ok := skipString(b, j)
				if !ok {
					return 0, false
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, true
				}
			}
		}
		return 0, false
	}
	j := i
	for j < len(b) && !strings.ContainsRune(",}] \t\n\r", rune(b[j])) {
		j++
	}
	return j, j > i
}
