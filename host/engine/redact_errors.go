package engine

import (
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/pierhq/pier/host/provider"
	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/host/statedoc"
	"github.com/pierhq/pier/schema"
)

// This file keeps a resource's sensitive input values out of what its
// provider says about it. Providers echo their inputs in errors ("path
// \"x/hunter2\" is not local", "Cannot create fixture_file x/hunter2"), so
// every provider error and diagnostic about a change has the texts of the
// change's sensitive values replaced before anyone sees it.

// minSecretLen is the shortest sensitive text replaced in a provider's
// message: replacing "1" or "on" would garble every message while hiding
// nothing worth hiding.
const minSecretLen = 4

// secretTexts lists the texts of c's sensitive values, longest first: its
// inputs at its sensitive paths, and its prior object's sensitive inputs
// and outputs.
func (c *Change) secretTexts() []string {
	var out []string
	if c.Resource != nil {
		// A change resolved during apply has its resource's paths only.
		for _, p := range slices.Concat(c.SensitiveInputs, c.Resource.SensitiveInputs) {
			out = collectAt(out, c.Resource.Inputs, dotted(p))
		}
	}
	if c.Prior != nil {
		if c.Resource != nil {
			tf, _ := c.Prior.Entry.OutputProperties[tfKey].(map[string]any)
			for _, steps := range sensitivePaths(tf) {
				out = collectAt(out, c.Resource.Inputs, steps)
			}
		}
		out = append(out, entrySecretTexts(c.Prior.Entry)...)
	}
	return sortSecrets(out)
}

// entrySecretTexts lists the texts of a recorded entry's sensitive values:
// what [RedactEntryInputs] and [RedactEntryOutputs] hide.
func entrySecretTexts(e statedoc.Entry) []string {
	var out []string
	tf, _ := e.OutputProperties[tfKey].(map[string]any)
	paths := sensitivePaths(tf)
	for _, p := range e.SensitiveInputs {
		paths = append(paths, dotted(p))
	}
	for _, steps := range paths {
		out = collectAt(out, e.InputProperties, steps)
		out = collectAt(out, e.OutputProperties, steps)
	}
	for _, steps := range entryInputSensitiveOutputs(e) {
		out = collectAt(out, source.Visible(e.OutputProperties), steps)
	}
	return sortSecrets(out)
}

func sortSecrets(s []string) []string {
	slices.SortFunc(s, func(a, b string) int {
		if d := len(b) - len(a); d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	return slices.Compact(s)
}

// collectAt appends the texts of the values at steps in v (see
// [redactPath] for the steps).
func collectAt(out []string, v any, steps []any) []string {
	if len(steps) == 0 {
		return appendTexts(out, v)
	}
	switch x := v.(type) {
	case map[string]any:
		k, ok := steps[0].(string)
		if !ok {
			return out
		}
		if k == anyStep {
			for _, e := range x {
				out = collectAt(out, e, steps[1:])
			}
			return out
		}
		if e, ok := x[k]; ok {
			out = collectAt(out, e, steps[1:])
		}
	case []any:
		if steps[0] == anyStep {
			for _, e := range x {
				out = collectAt(out, e, steps[1:])
			}
			return out
		}
		if i, ok := schema.StepIndex(steps[0]); ok && i >= 0 && i < len(x) {
			out = collectAt(out, x[i], steps[1:])
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

func replaceSecrets(s string, secrets []string) string {
	for _, x := range secrets {
		s = strings.ReplaceAll(s, x, source.SensitiveText)
	}
	return s
}

// redactError returns err with every text of secrets replaced, in its
// message and in the provider error it wraps, which renderers read field
// by field ([provider.ResponseError.Message], [provider.Error.Stderr]).
// errors.As still finds those types, as redacted copies.
func redactError(err error, secrets []string) error {
	if err == nil || len(secrets) == 0 {
		return err
	}
	msg := err.Error()
	if replaceSecrets(msg, secrets) == msg {
		return err
	}
	var inner error
	var resp *provider.ResponseError
	var perr *provider.Error
	var derr *DiagnosticError
	switch {
	case errors.As(err, &resp):
		c := *resp
		c.Message = replaceSecrets(c.Message, secrets)
		inner = &c
	case errors.As(err, &perr):
		c := *perr
		c.Stderr = make([]string, len(perr.Stderr))
		for i, l := range perr.Stderr {
			c.Stderr[i] = replaceSecrets(l, secrets)
		}
		c.Err = &redactedError{msg: replaceSecrets(perr.Err.Error(), secrets), err: perr.Err}
		inner = &c
	case errors.As(err, &derr):
		inner = derr.redacted(secrets)
	default:
		// Nothing field by field: keep the chain for errors.Is, behind the
		// redacted message.
		return &redactedError{msg: replaceSecrets(msg, secrets), err: err}
	}
	return &redactedError{msg: replaceSecrets(msg, secrets), err: inner}
}

// redacted returns a copy of d with secrets replaced in its text.
func (d *DiagnosticError) redacted(secrets []string) *DiagnosticError {
	c := *d
	c.Diagnostic.Summary = replaceSecrets(c.Diagnostic.Summary, secrets)
	c.Diagnostic.Detail = replaceSecrets(c.Diagnostic.Detail, secrets)
	return &c
}

// redactedError is an error whose message had sensitive texts replaced.
// Unwrap leads to a redacted copy of the provider error, or to the
// original error when it has no fields that hold text.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }
