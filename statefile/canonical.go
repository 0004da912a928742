package statefile

import (
	"bytes"
	"slices"
	"unicode/utf8"
)

// canonicalize appends to dst the encoding json.Marshal (and
// [schema.AppendJSON]) gives the value that raw, one JSON value, decodes
// to, and reports false when it cannot tell it without decoding. It sorts
// object members by key and copies everything else as it is, so it takes
// only compact JSON whose keys hold no escape, whose strings hold only the
// escapes json.Marshal writes, and whose objects repeat no key; numbers
// are copied, as they decode to json.Number. Such an encoding can stand
// in the document for the value itself (see lazy.go): encoding the
// document copies it, so the cache stays json.Marshal's encoding byte for
// byte, and nothing is decoded until an operation reaches into it.
// Invalid JSON, and nesting deeper than canonicalMaxDepth, report false
// too. FuzzCanonicalize holds it to json.Marshal.
func (s *canonScanner) canonicalize(dst, raw []byte) ([]byte, bool) {
	s.b, s.pos, s.out = raw, 0, dst
	ok := s.value(0) && s.pos == len(raw)
	out := s.out
	clear(s.members)
	s.b, s.out, s.members = nil, nil, s.members[:0]
	return out, ok
}

// canonicalMaxDepth bounds the nesting canonicalize follows.
const canonicalMaxDepth = 100

// canonScanner is canonicalize's state, and its scratch, which a document
// keeps between appends.
type canonScanner struct {
	b       []byte
	pos     int
	out     []byte
	members []canonMember // the members of the objects being scanned, innermost last
	tmp     []byte        // an object's members while they are put in order
}

// canonMember is one member of an object, "key":value, at out[start:end].
type canonMember struct {
	key        []byte // in b, without quotes
	start, end int
}

// value appends the value at s.pos.
func (s *canonScanner) value(depth int) bool {
	if s.pos >= len(s.b) {
		return false
	}
	start := s.pos
	var ok bool
	switch c := s.b[s.pos]; {
	case c == '{':
		return depth < canonicalMaxDepth && s.object(depth+1)
	case c == '[':
		return depth < canonicalMaxDepth && s.array(depth+1)
	case c == '"':
		_, _, ok = s.str()
	case c == 't':
		ok = s.literal("true")
	case c == 'f':
		ok = s.literal("false")
	case c == 'n':
		ok = s.literal("null")
	case c == '-' || '0' <= c && c <= '9':
		ok = s.number()
	}
	if ok {
		s.out = append(s.out, s.b[start:s.pos]...)
	}
	return ok
}

func (s *canonScanner) literal(lit string) bool {
	if !bytes.HasPrefix(s.b[s.pos:], []byte(lit)) {
		return false
	}
	s.pos += len(lit)
	return true
}

func (s *canonScanner) object(depth int) bool {
	s.pos++ // '{'
	s.out = append(s.out, '{')
	if s.pos < len(s.b) && s.b[s.pos] == '}' {
		s.pos++
		s.out = append(s.out, '}')
		return true
	}
	base, region := len(s.members), len(s.out)
	inOrder := true
	for {
		if s.pos >= len(s.b) || s.b[s.pos] != '"' {
			return false
		}
		key, escaped, ok := s.str()
		// json.Marshal sorts members by their decoded keys; a key without
		// escapes is its bytes.
		if !ok || escaped {
			return false
		}
		if n := len(s.members); n > base {
			switch c := bytes.Compare(s.members[n-1].key, key); {
			case c == 0:
				return false // a repeated member
			case c > 0:
				inOrder = false
			}
			s.out = append(s.out, ',')
		}
		start := len(s.out)
		s.out = append(append(append(s.out, '"'), key...), '"', ':')
		if s.pos >= len(s.b) || s.b[s.pos] != ':' {
			return false
		}
		s.pos++
		if !s.value(depth) {
			return false
		}
		s.members = append(s.members, canonMember{key: key, start: start, end: len(s.out)})
		if s.pos >= len(s.b) {
			return false
		}
		switch s.b[s.pos] {
		case ',':
			s.pos++
		case '}':
			s.pos++
			ok := inOrder || s.reorder(base, region)
			clear(s.members[base:])
			s.members = s.members[:base]
			s.out = append(s.out, '}')
			return ok
		default:
			return false
		}
	}
}

// reorder rewrites out[region:], the members s.members[base:] and the
// commas between them, with the members sorted by key, and reports false
// when a key repeats.
func (s *canonScanner) reorder(base, region int) bool {
	ms := s.members[base:]
	slices.SortFunc(ms, func(a, b canonMember) int { return bytes.Compare(a.key, b.key) })
	for i := 1; i < len(ms); i++ {
		if bytes.Equal(ms[i-1].key, ms[i].key) {
			return false
		}
	}
	s.tmp = append(s.tmp[:0], s.out[region:]...)
	s.out = s.out[:region]
	for i, m := range ms {
		if i > 0 {
			s.out = append(s.out, ',')
		}
		s.out = append(s.out, s.tmp[m.start-region:m.end-region]...)
	}
	return true
}

func (s *canonScanner) array(depth int) bool {
	s.pos++ // '['
	s.out = append(s.out, '[')
	if s.pos < len(s.b) && s.b[s.pos] == ']' {
		s.pos++
		s.out = append(s.out, ']')
		return true
	}
	for {
		if !s.value(depth) || s.pos >= len(s.b) {
			return false
		}
		switch s.b[s.pos] {
		case ',':
			s.pos++
			s.out = append(s.out, ',')
		case ']':
			s.pos++
			s.out = append(s.out, ']')
			return true
		default:
			return false
		}
	}
}

// str scans the string at s.pos and returns its bytes between the quotes
// and whether they hold an escape. It accepts only what
// schema.AppendJSONString writes: valid UTF-8 without U+2028 and U+2029,
// no control character, quote, backslash, <, > or & but as its escape,
// and no other escape.
func (s *canonScanner) str() (content []byte, escaped, ok bool) {
	s.pos++ // '"'
	start := s.pos
	for s.pos < len(s.b) {
		c := s.b[s.pos]
		switch {
		case c == '"':
			content = s.b[start:s.pos]
			s.pos++
			return content, escaped, true
		case c == '\\':
			if !s.escape() {
				return nil, false, false
			}
			escaped = true
		case c < 0x20 || c == '<' || c == '>' || c == '&':
			return nil, false, false
		case c < utf8.RuneSelf:
			s.pos++
		default:
			r, size := utf8.DecodeRune(s.b[s.pos:])
			if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
				return nil, false, false
			}
			s.pos += size
		}
	}
	return nil, false, false
}

// escape scans the escape at s.pos, a backslash, if it is one
// AppendJSONString writes.
func (s *canonScanner) escape() bool {
	if s.pos+1 >= len(s.b) {
		return false
	}
	switch s.b[s.pos+1] {
	case '"', '\\', 'b', 'f', 'n', 'r', 't':
		s.pos += 2
		return true
	case 'u':
	default:
		return false
	}
	if s.pos+6 > len(s.b) {
		return false
	}
	var r rune
	for _, h := range s.b[s.pos+2 : s.pos+6] {
		switch {
		case '0' <= h && h <= '9':
			r = r<<4 | rune(h-'0')
		case 'a' <= h && h <= 'f':
			r = r<<4 | rune(h-'a'+10)
		default:
			return false // AppendJSONString writes lower-case hex digits
		}
	}
	switch {
	case r == '\b' || r == '\f' || r == '\n' || r == '\r' || r == '\t':
		return false // written in their short forms
	case r < 0x20, r == '<', r == '>', r == '&', r == '\u2028', r == '\u2029':
		s.pos += 6
		return true
	}
	return false
}

// number scans a JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *canonScanner) number() bool {
	if s.b[s.pos] == '-' {
		s.pos++
	}
	switch {
	case s.pos < len(s.b) && s.b[s.pos] == '0':
		s.pos++
	case s.digits() == 0:
		return false
	}
	if s.pos < len(s.b) && s.b[s.pos] == '.' {
		s.pos++
		if s.digits() == 0 {
			return false
		}
	}
	if s.pos < len(s.b) && (s.b[s.pos] == 'e' || s.b[s.pos] == 'E') {
		s.pos++
		if s.pos < len(s.b) && (s.b[s.pos] == '+' || s.b[s.pos] == '-') {
			s.pos++
		}
		if s.digits() == 0 {
			return false
		}
	}
	return true
}

func (s *canonScanner) digits() int {
	start := s.pos
	for s.pos < len(s.b) && '0' <= s.b[s.pos] && s.b[s.pos] <= '9' {
		s.pos++
	}
	return s.pos - start
}
