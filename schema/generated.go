package schema

import (
	"encoding/json"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
)

//go:generate go run ./internal/gen/cmd/schemagen -schemas schemas -o validate_gen.go

// This file is what the generated validators (validate_gen.go, written by
// internal/gen from schemas/*.json) call: where a value is, what went
// wrong there, and the JSON type tests. It knows no message; the checks
// are all generated.
//
// A validator takes a decoded value (as decodeJSON decodes it: maps,
// slices, strings, json.Number, bools and nil), its location and a
// report, and says whether the value is valid. A valid value costs no
// allocation: a location is a chain of stack values, and a pointer and a
// message are built only for a failure.

// loc is where a value is within the validated one: a chain from the
// value up to the root (nil).
type loc struct {
	up    *loc
	key   string // an object member's name, when index is -1
	index int    // an array element's index
}

// pointer renders l as an RFC 6901 JSON Pointer ("" for the root).
func (l *loc) pointer() string {
	var b strings.Builder
	l.write(&b)
	return b.String()
}

// write writes l's pointer to b. It copies what it reads of l and keeps
// nothing, so a loc never leaves its validator's stack.
func (l *loc) write(b *strings.Builder) {
	if l == nil {
		return
	}
	l.up.write(b)
	b.WriteByte('/')
	if l.index >= 0 {
		b.WriteString(strconv.Itoa(l.index))
	} else {
		// A copy: EscapePointerToken keeps its argument for all the analysis
		// knows, which would move every loc to the heap.
		b.WriteString(EscapePointerToken(strings.Clone(l.key)))
	}
}

// report collects the failures of one validation, or of one alternative
// of an anyOf or oneOf.
type report struct {
	problems []Problem
	// enum is set when an enum failed directly in this report (not in an
	// alternative of a nested anyOf): an anyOf alternative with such a
	// failure does not apply, and its failures are not shown.
	enum bool
	// quiet says only whether the value holds is wanted, not what failed:
	// an anyOf's first look at its alternatives. Nothing is recorded.
	quiet bool
}

func (r *report) fail(at *loc, expected string) {
	if r.quiet {
		return
	}
	r.problems = append(r.problems, Problem{Pointer: at.pointer(), Expected: expected})
}

func (r *report) failEnum(at *loc, expected string) {
	r.enum = true
	r.fail(at, expected)
}

// failExtra reports the members of m that known does not name, as
// jsonschema/v5 does: one failure at the object.
func (r *report) failExtra(at *loc, m map[string]any, known func(string) bool) {
	if r.quiet {
		return
	}
	var extra []string
	for k := range m {
		if !known(k) {
			extra = append(extra, "'"+k+"'")
		}
	}
	slices.Sort(extra)
	r.fail(at, "additionalProperties "+strings.Join(extra, ", ")+" not allowed")
}

// merge adds an anyOf alternative's failures.
func (r *report) merge(sub *report) { r.problems = append(r.problems, sub.problems...) }

// mergeAll adds a oneOf alternative's failures: an enum among them is
// this report's own, for an enclosing anyOf.
func (r *report) mergeAll(sub *report) {
	r.merge(sub)
	r.enum = r.enum || sub.enum
}

// requireAll checks that m has every name in names, reporting the missing
// ones at the object.
func requireAll(m map[string]any, names []string, at *loc, r *report) bool {
	if r.quiet {
		for _, n := range names {
			if _, ok := m[n]; !ok {
				return false
			}
		}
		return true
	}
	var missing []string
	for _, n := range names {
		if _, ok := m[n]; !ok {
			missing = append(missing, "'"+n+"'")
		}
	}
	if missing == nil {
		return true
	}
	r.fail(at, "missing properties: "+strings.Join(missing, ", "))
	return false
}

// countValid counts the alternatives of a oneOf that matched, and names
// the first two.
func countValid(oks ...bool) (n, first, second int) {
	first, second = -1, -1
	for i, ok := range oks {
		if !ok {
			continue
		}
		switch n {
		case 0:
			first = i
		case 1:
			second = i
		}
		n++
	}
	return n, first, second
}

func oneOfBoth(first, second int) string {
	return "valid against schemas at indexes " + strconv.Itoa(first) + " and " + strconv.Itoa(second)
}

func isObject(v any) bool  { _, ok := v.(map[string]any); return ok }
func isArray(v any) bool   { _, ok := v.([]any); return ok }
func isString(v any) bool  { _, ok := v.(string); return ok }
func isBoolean(v any) bool { _, ok := v.(bool); return ok }

func isNumber(v any) bool {
	switch v.(type) {
	case json.Number, float64:
		return true
	}
	return false
}

// isInteger reports whether v is a number with an integral value, in any
// spelling: 2, 2.0 and 0.2e1 are integers. A json.Number is judged from
// its digits, exactly and in time linear in its length, whatever its
// exponent (jsonschema/v5 builds a big.Rat, which fails, and panics, past
// an exponent of about ten million).
func isInteger(v any) bool {
	switch n := v.(type) {
	case json.Number:
		return decimalIsInteger(string(n))
	case float64:
		return n == math.Trunc(n) && !math.IsInf(n, 0)
	}
	return false
}

// decimalIsInteger reports whether the JSON number s is integral: its
// digits, less their trailing zeros, end at or before the decimal point
// once the exponent has moved it.
func decimalIsInteger(s string) bool {
	mant, exp, _ := strings.Cut(strings.ToLower(s), "e")
	intPart, frac, _ := strings.Cut(strings.TrimPrefix(mant, "-"), ".")
	digits := intPart + frac
	trimmed := strings.TrimRight(digits, "0")
	if trimmed == "" {
		return true // zero
	}
	zeros := len(digits) - len(trimmed)
	e := 0
	if exp != "" {
		var err error
		e, err = strconv.Atoi(exp)
		if err != nil || e > 1<<40 || e < -(1<<40) {
			// Beyond any number's length of digits: only its sign matters.
			return !strings.HasPrefix(exp, "-")
		}
	}
	// The value is digits × 10^-scale: integral when the scale is not
	// positive, or the trailing zeros cover it.
	scale := len(frac) - e
	return scale <= 0 || zeros >= scale
}

// numberBelow reports whether the number v is less than min (a JSON
// number from the schema).
func numberBelow(v any, min string) bool {
	var s string
	switch n := v.(type) {
	case json.Number:
		s = string(n)
	case float64:
		s = strconv.FormatFloat(n, 'g', -1, 64)
	default:
		return false
	}
	if min == "0" {
		// Negative: a minus sign and a digit other than zero before any
		// exponent. Exact for every spelling, and cheap.
		mant, _, _ := strings.Cut(strings.ToLower(s), "e")
		return strings.HasPrefix(mant, "-") && strings.Trim(mant, "-0.") != ""
	}
	a, okA := new(big.Rat).SetString(s)
	b, okB := new(big.Rat).SetString(min)
	return okA && okB && a.Cmp(b) < 0
}

func numberText(v any) string {
	switch n := v.(type) {
	case json.Number:
		return string(n)
	case float64:
		return strconv.FormatFloat(n, 'g', -1, 64)
	}
	return ""
}

// jsonType names v's JSON type, as a schema's type keyword does.
func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number, float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "an unknown Go type"
}
