package schema

import (
	"encoding/json"
	"slices"
	"strings"
	"unicode/utf8"
)

// AppendJSON appends the encoding of v, a decoded JSON value (maps,
// slices, strings, [json.Number], bools, nil and [json.RawMessage], as
// [DecodeJSON] gives them and a state document holds them), to b: byte
// for byte what json.Marshal(v) gives, without its reflection. Every state
// event written, the resolved-state cache and every request the host sends
// (see [Request.AppendJSON]) are encoded here, so their cost follows the
// bytes. Any other type is handed to json.Marshal; FuzzAppendJSON
// holds the two to the same bytes.
//
// A json.RawMessage is trusted to be valid JSON, as a state document's
// are (a cached encoding is hashed, and written by this encoder), and
// only scanned for what json.Marshal would change in it: a caller with
// raw bytes from elsewhere checks them first, with [json.Valid].
func AppendJSON(b []byte, v any) ([]byte, error) { return appendValue(b, v, false) }

// appendValue is [AppendJSON]; with checkRaw a json.RawMessage is checked
// as json.Marshal checks one, for values from a caller that does not
// vouch for its raw bytes.
func appendValue(b []byte, v any, checkRaw bool) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case bool:
		if x {
			return append(b, "true"...), nil
		}
		return append(b, "false"...), nil
	case string:
		return AppendJSONString(b, x), nil
	case json.Number:
		if x == "" {
			return append(b, '0'), nil // as json.Marshal writes it
		}
		if !validNumber(string(x)) {
			break // json.Marshal says why
		}
		return append(b, x...), nil
	case map[string]any:
		if x == nil {
			return append(b, "null"...), nil
		}
		return appendObject(b, x, checkRaw)
	case []any:
		if x == nil {
			return append(b, "null"...), nil
		}
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendValue(b, e, checkRaw); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case json.RawMessage:
		if x == nil {
			return append(b, "null"...), nil
		}
		if plainJSON(x) && (!checkRaw || json.Valid(x)) {
			return append(b, x...), nil
		}
	}
	e, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, e...), nil
}

// appendObject appends m with its members sorted by key, as json.Marshal
// sorts them.
func appendObject(b []byte, m map[string]any, checkRaw bool) ([]byte, error) {
	var small [16]string
	keys := small[:0]
	if len(m) > len(small) {
		keys = make([]string, 0, len(m))
	}
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, strings.Compare)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(AppendJSONString(b, k), ':')
		var err error
		if b, err = appendValue(b, m[k], checkRaw); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

const hexDigits = "0123456789abcdef"

// AppendJSONString appends s as a JSON string, as [AppendJSON] does but
// without boxing s in an interface, escaped as json.Marshal escapes it:
// quote, backslash and control characters; <, > and & (its HTML safety);
// U+2028 and U+2029; and each byte of invalid UTF-8 as U+FFFD.
func AppendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(append(b, s[start:i]...), `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(append(b, s[start:i]...), '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(append(b, s[start:]...), '"')
}

// plainJSON reports whether raw, which must be valid JSON, is already
// what json.Marshal writes for a json.RawMessage: compact, and without a
// character that it escapes (<, >, &, U+2028, U+2029). Such bytes are
// copied as they are; any other raw value is left to json.Marshal, which
// also checks that it is valid.
func plainJSON(raw []byte) bool {
	if len(raw) == 0 {
		return false
	}
	inString := false
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; c {
		case '"':
			inString = !inString
		case '\\':
			if inString {
				i++ // the escaped byte, a quote perhaps
			}
		case ' ', '\t', '\n', '\r':
			if !inString {
				return false
			}
		case '<', '>', '&':
			return false
		case 0xE2:
			if i+2 < len(raw) && raw[i+1] == 0x80 && raw[i+2]&^1 == 0xA8 {
				return false
			}
		}
	}
	return true
}

// validNumber reports whether s is a JSON number:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func validNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	digits := func() bool {
		n := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i > n
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case !digits():
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if !digits() {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if !digits() {
			return false
		}
	}
	return i == len(s)
}
