package redact

import (
	"errors"

	"github.com/pierhq/pier/host/provider"
)

// This file keeps a resource's sensitive input values out of what its
// provider says about it. Providers echo their inputs in errors ("path
// \"x/hunter2\" is not local", "Cannot create fixture_file x/hunter2"), so
// every provider error and diagnostic about a change has the texts of the
// change's sensitive values replaced before anyone sees it.

// Error returns err with every text of secrets replaced, in its
// message and in the provider error it wraps, which renderers read field
// by field ([provider.ResponseError.Message], [provider.Error.Stderr]).
// errors.As still finds those types, as redacted copies.
func Error(err error, secrets []string) error {
	if err == nil || len(secrets) == 0 {
		return err
	}
	msg := err.Error()
	if Text(msg, secrets) == msg {
		return err
	}
	var inner error
	var resp *provider.ResponseError
	var perr *provider.Error
	var own Redactable
	switch {
	case errors.As(err, &resp):
		c := *resp
		c.Message = Text(c.Message, secrets)
		inner = &c
	case errors.As(err, &perr):
		c := *perr
		c.Stderr = make([]string, len(perr.Stderr))
		for i, l := range perr.Stderr {
			c.Stderr[i] = Text(l, secrets)
		}
		c.Err = &redactedError{msg: Text(perr.Err.Error(), secrets), err: perr.Err}
		inner = &c
	case errors.As(err, &own):
		inner = own.Redacted(secrets)
	default:
		// Nothing field by field: keep the chain for errors.Is, behind the
		// redacted message.
		return &redactedError{msg: Text(msg, secrets), err: err}
	}
	return &redactedError{msg: Text(msg, secrets), err: inner}
}

// A Redactable error holds text field by field (a provider's
// diagnostic): [Error] asks it for a copy with secrets replaced, so that
// errors.As still finds its type.
type Redactable interface {
	error
	Redacted(secrets []string) error
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
