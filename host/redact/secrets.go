package redact

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/host/statedoc"
	"github.com/pierhq/pier/schema"
)

// minSecretLen is the shortest sensitive text replaced in a provider's
// message: replacing "1" or "on" would garble every message while hiding
// nothing worth hiding.
const minSecretLen = 4

// EntrySecrets lists the texts of a recorded entry's sensitive values,
// longest first: what [EntryInputs] and [EntryOutputs] hide.
func EntrySecrets(e statedoc.Entry) []string {
	var out []string
	paths := TerraformPaths(e.OutputProperties)
	for _, p := range e.SensitiveInputs {
		paths = append(paths, Dotted(p))
	}
	for _, steps := range paths {
		out = Collect(out, e.InputProperties, steps)
		out = Collect(out, e.OutputProperties, steps)
	}
	for _, steps := range entryInputSensitiveOutputs(e) {
		out = Collect(out, source.Visible(e.OutputProperties), steps)
	}
	return SortSecrets(out)
}

// SortSecrets orders texts longest first, without repeats, the order
// [Text] replaces them in: a secret that holds a shorter one is replaced
// whole.
func SortSecrets(s []string) []string {
	slices.SortFunc(s, func(a, b string) int {
		if d := len(b) - len(a); d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	return slices.Compact(s)
}

// Collect appends the texts of the values at steps in v (see [At] for
// the steps).
func Collect(out []string, v any, steps []any) []string {
	if len(steps) == 0 {
		return appendTexts(out, v)
	}
	switch x := v.(type) {
	case map[string]any:
		k, ok := steps[0].(string)
		if !ok {
			return out
		}
		if k == AnyStep {
			for _, e := range x {
				out = Collect(out, e, steps[1:])
			}
			return out
		}
		if e, ok := x[k]; ok {
			out = Collect(out, e, steps[1:])
		}
	case []any:
		if steps[0] == AnyStep {
			for _, e := range x {
				out = Collect(out, e, steps[1:])
			}
			return out
		}
		if i, ok := schema.StepIndex(steps[0]); ok && i >= 0 && i < len(x) {
			out = Collect(out, x[i], steps[1:])
		}
	}
	return out
}

// appendTexts appends the strings and numbers in v as a message would
// spell them.
func appendTexts(out []string, v any) []string {
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case json.Number:
		s = string(x)
	case float64:
		s = strconv.FormatFloat(x, 'g', -1, 64)
	case map[string]any:
		for _, e := range x {
			out = appendTexts(out, e)
		}
		return out
	case []any:
		for _, e := range x {
			out = appendTexts(out, e)
		}
		return out
	}
	if len(s) >= minSecretLen {
		out = append(out, s)
	}
	// A program prints a secret a line at a time, without the newline
	// it was given with (stdin = "${var.token}\n", a PEM key): each line
	// is a text to hide too.
	if strings.ContainsAny(s, "\r\n") || strings.TrimSpace(s) != s {
		for line := range strings.FieldsFuncSeq(s, func(r rune) bool { return r == '\n' || r == '\r' }) {
			if line = strings.TrimSpace(line); len(line) >= minSecretLen && line != s {
				out = append(out, line)
			}
		}
	}
	return out
}

// Text returns s with every text of secrets (sorted by [SortSecrets])
// replaced.
func Text(s string, secrets []string) string {
	for _, x := range secrets {
		s = strings.ReplaceAll(s, x, source.SensitiveText)
	}
	return s
}

// InValue returns a copy of a JSON value with every text of secrets
// in its strings replaced.
func InValue(v any, secrets []string) any {
	switch x := v.(type) {
	case string:
		return Text(x, secrets)
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = InValue(e, secrets)
		}
		return m
	case []any:
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = InValue(e, secrets)
		}
		return l
	}
	return v
}
