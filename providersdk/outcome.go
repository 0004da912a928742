package providersdk

import (
	"errors"
	"fmt"

	"github.com/pierhq/pier/schema"
)

// ErrOutcomeUnknown is wrapped by a handler's error when the handler cannot
// tell whether the operation took effect: the call that makes or removes
// the real object was sent, and its answer was lost (the backend's
// connection broke, the process serving it died, the call timed out or was
// cancelled).
//
// The v0 protocol has one way to say "I do not know": no answer. An
// errorResponse is an answer, and it tells the host that the operation
// failed, so a host that recorded the operation as pending (pier does,
// before every create and destroy) clears it, and its next run creates the
// object again. So for an error wrapping ErrOutcomeUnknown, [ServeIO]
// writes no response: it returns an [*OutcomeUnknownError], and the program
// must exit without answering anything more, with a non-zero status:
// [schema.OutcomeUnknownExitStatus], the one the error's ExitCode gives,
// lets pier's host say why. The host then
// sees a provider that died mid-request, which every v0 host takes as an
// operation that may have happened: pier keeps the pending operation, and
// the next plan says how to resolve it.
var ErrOutcomeUnknown = errors.New("outcome unknown")

// OutcomeUnknownError is what [ServeIO] returns, without answering, when a
// handler's error wraps [ErrOutcomeUnknown].
type OutcomeUnknownError struct {
	// Seq is the request's position in the stream, from 1.
	Seq int
	// Op and Type name the request: "create", and the resource type.
	Op, Type string
	Err      error
}

func (e *OutcomeUnknownError) Error() string {
	return fmt.Sprintf("request %d, %s %s: %v: exiting without an answer, so that the host keeps the operation as one that may have happened", e.Seq, e.Op, e.Type, e.Err)
}

func (e *OutcomeUnknownError) Unwrap() error { return e.Err }

// ExitCode is the status to exit with: [schema.OutcomeUnknownExitStatus].
func (e *OutcomeUnknownError) ExitCode() int { return schema.OutcomeUnknownExitStatus }
