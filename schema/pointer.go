package schema

import (
	"fmt"
	"strings"
)

// Pointer builds an RFC 6901 JSON Pointer from unescaped reference tokens,
// escaping "~" as "~0" and "/" as "~1". Pointer() is "", the whole
// document. Resource names may contain any character, so every patch path
// is built with it (or [EscapePointerToken]), e.g. Pointer("resources", name).
func Pointer(segments ...string) string {
	var b strings.Builder
	for _, s := range segments {
		b.WriteByte('/')
		b.WriteString(EscapePointerToken(s))
	}
	return b.String()
}

// EscapePointerToken escapes one RFC 6901 reference token, for a pointer
// built by appending to another. A token with nothing to escape (nearly
// all) is returned as it is, at no allocation: every state record builds
// pointers.
func EscapePointerToken(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return escaper.Replace(s)
}

var escaper = strings.NewReplacer("~", "~0", "/", "~1")

// ParsePointer splits an RFC 6901 JSON Pointer into its unescaped
// reference tokens. "" is the whole document (no tokens). A non-empty
// pointer must start with "/", and "~" must be followed by "0" or "1".
func ParsePointer(p string) ([]string, error) {
	if p == "" {
		return nil, nil
	}
	if p[0] != '/' {
		return nil, fmt.Errorf("json pointer %q does not start with /", p)
	}
	segs := make([]string, 0, strings.Count(p, "/"))
	start := 1
	escaped := false
	for i := 1; i <= len(p); i++ {
		if i == len(p) || p[i] == '/' {
			seg := p[start:i]
			if escaped {
				seg = unescaper.Replace(seg)
			}
			segs = append(segs, seg)
			start, escaped = i+1, false
			continue
		}
		if p[i] == '~' {
			if i+1 == len(p) || (p[i+1] != '0' && p[i+1] != '1') {
				return nil, fmt.Errorf("json pointer %q: ~ at byte %d is not followed by 0 or 1", p, i)
			}
			escaped = true
			i++
		}
	}
	return segs, nil
}

// unescaper decodes "~1" before "~0" in one left-to-right pass, as RFC 6901
// section 4 requires ("~01" is "~1", not "/").
var unescaper = strings.NewReplacer("~1", "/", "~0", "~")
