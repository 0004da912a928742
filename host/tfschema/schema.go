package tfschema

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/agext/levenshtein"

	"github.com/pierhq/pier/internal/tfschemadoc"
)

// Schema is the part of a Terraform provider's schema the check needs:
// its resource types and data sources by v0 type name (data sources carry
// the bridge's "data-source-" prefix, as `pier tf schema` lists them).
type Schema struct {
	Plugin string
	Types  map[string]*Type
}

// Type is one resource type or data source.
type Type struct {
	Name string
	// attrs are the attributes and nested blocks by dotted path, "*"
	// standing for any element of a nested collection, as `pier tf schema`
	// writes them.
	attrs map[string]*attribute
	// children lists the names valid below a path prefix ("" for the top,
	// "rules.*." below a nested list), for suggestions.
	children map[string][]string
	// sensitive are the paths the schema marks sensitive, sorted.
	sensitive []string
}

type attribute struct {
	// nesting is set for nested blocks and nested attributes: "single",
	// "group", "list", "set" or "map". Their elements are checked too.
	nesting string
}

// Parse decodes the output of `pier tf schema --json`.
func Parse(data []byte) (*Schema, error) {
	var doc tfschemadoc.Document
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("decode schema: %w", err)
	}
	if doc.MessageType != tfschemadoc.MessageType {
		return nil, fmt.Errorf("decode schema: message_type is %q, want %s", doc.MessageType, tfschemadoc.MessageType)
	}
	s := &Schema{Plugin: doc.Plugin, Types: make(map[string]*Type, len(doc.ResourceTypes)+len(doc.DataSources))}
	for _, list := range [][]tfschemadoc.Type{doc.ResourceTypes, doc.DataSources} {
		for _, tj := range list {
			t := &Type{Name: tj.Name, attrs: make(map[string]*attribute, len(tj.Attributes)), children: map[string][]string{}}
			for _, a := range tj.Attributes {
				t.attrs[a.Path] = &attribute{nesting: a.Nesting}
				prefix, name := splitPath(a.Path)
				t.children[prefix] = append(t.children[prefix], name)
				if a.Sensitive {
					t.sensitive = append(t.sensitive, a.Path)
				}
			}
			slices.Sort(t.sensitive)
			s.Types[tj.Name] = t
		}
	}
	return s, nil
}

// splitPath splits "rules.*.name" into the prefix "rules.*." and "name".
func splitPath(p string) (prefix, name string) {
	i := strings.LastIndexByte(p, '.')
	return p[:i+1], p[i+1:]
}

// TypeNames returns the schema's type names, sorted.
func (s *Schema) TypeNames() []string {
	names := make([]string, 0, len(s.Types)) // never nil: no types is an empty list
	for n := range s.Types {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// SensitivePaths returns the attribute paths the schema marks sensitive,
// dotted with "*" for any element of a nested collection, sorted: the
// form the Terraform bridge records in its outputs.
func (t *Type) SensitivePaths() []string { return slices.Clone(t.sensitive) }

// Unknown is an input key the schema lacks.
type Unknown struct {
	// Path leads from the inputs' top to the key: object keys as strings,
	// list elements as ints.
	Path []any
	// Suggestion is the closest valid name at that place, or "".
	Suggestion string
}

// Attribute renders the path the way Terraform does: metadata.api_key,
// rules[0].name; a key that is no identifier (of a nested map) is quoted:
// ports["8080"].number.
func (u Unknown) Attribute() string {
	var b strings.Builder
	for i, s := range u.Path {
		switch x := s.(type) {
		case int:
			fmt.Fprintf(&b, "[%d]", x)
		case string:
			if !identifier(x) {
				fmt.Fprintf(&b, "[%q]", x)
				continue
			}
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(x)
		}
	}
	return b.String()
}

func identifier(s string) bool {
	for i, r := range s {
		ok := r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && (r == '-' || r >= '0' && r <= '9')
		if !ok {
			return false
		}
	}
	return s != ""
}

// Check returns the input keys that t has no attribute or block for, in
// a stable order. It descends into nested blocks and nested attributes;
// values that are not yet known, and attributes of plain object, map or
// dynamic type, are not looked into.
func (t *Type) Check(inputs map[string]any) []Unknown {
	var out []Unknown
	t.check("", nil, inputs, &out)
	return out
}

func (t *Type) check(prefix string, path []any, obj map[string]any, out *[]Unknown) {
	keys := slices.Sorted(maps.Keys(obj))
	for _, k := range keys {
		p := prefix + k
		at := append(slices.Clip(path), k)
		a, ok := t.attrs[p]
		if !ok {
			*out = append(*out, Unknown{Path: at, Suggestion: Suggest(k, t.children[prefix])})
			continue
		}
		elem := p + ".*."
		switch a.nesting {
		case "single", "group":
			if m, ok := obj[k].(map[string]any); ok {
				t.check(p+".", at, m, out)
			}
		case "list", "set":
			list, _ := obj[k].([]any)
			for i, e := range list {
				if m, ok := e.(map[string]any); ok {
					t.check(elem, append(slices.Clip(at), i), m, out)
				}
			}
		case "map":
			m, _ := obj[k].(map[string]any)
			for _, mk := range slices.Sorted(maps.Keys(m)) {
				if em, ok := m[mk].(map[string]any); ok {
					t.check(elem, append(slices.Clip(at), mk), em, out)
				}
			}
		}
	}
}

// Suggest returns the name in names closest to name, or "" when none is
// within an edit distance of 2: far-off suggestions mislead more than
// they help.
func Suggest(name string, names []string) string {
	best, bestDist := "", 3
	for _, n := range names {
		if d := levenshtein.Distance(name, n, nil); d < bestDist {
			best, bestDist = n, d
		}
	}
	return best
}
