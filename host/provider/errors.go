package provider

import (
	"errors"
	"fmt"
	"strings"

	"github.com/pierhq/pier/host/internal/termtext"
	"github.com/pierhq/pier/schema"
)

// ErrNotDeclared is wrapped by the error returned for a request of an
// optional operation (destroy, read, import, preview) that the provider
// did not declare. Nothing is sent to the provider.
var ErrNotDeclared = errors.New("optional operation not declared by the provider")

// ErrClosed is wrapped by the error returned for a request to a closed
// [Process] or [Pool].
var ErrClosed = errors.New("provider closed")

// LostError is a request to a holder pool (see [NewHolderPool]) whose
// process exited after it had served: what that process held, a state's
// lock, went with it, so the pool starts no other in its place.
type LostError struct {
	Provider   string
	Executable string
	Pid        int
	// p is the process, whose exit status is known once it is reaped.
	p *Process
}

func (e *LostError) Error() string {
	status := ""
	if e.p != nil {
		if s := e.p.proc.ExitStatus(); s != "" {
			status = " (" + s + ")"
		}
	}
	return fmt.Sprintf("provider %q (%s): its process %d exited%s while it held the state's lock, so the lock is lost; pier starts no other process for it in the middle of a command, since another command may have taken the lock meanwhile", e.Provider, e.Executable, e.Pid, status)
}

// ExitStatus describes how the process ended, e.g. "signal: killed";
// "" while it is not yet reaped.
func (e *LostError) ExitStatus() string {
	if e.p == nil {
		return ""
	}
	return e.p.proc.ExitStatus()
}

// ErrorKind says how a provider process failed.
type ErrorKind int

//go:generate go tool stringer -type ErrorKind -trimprefix Kind

// The ways a provider process can fail. Each one kills the process; a
// [Pool] replaces it on the next request.
const (
	// KindUnknown is the zero value; no error has it.
	KindUnknown ErrorKind = iota
	// KindExited: the process exited (or closed stdout) before responding.
	KindExited
	// KindBadOutput: the response line is not JSON, or the provider wrote
	// a line nobody asked for (e.g. two responses to one request).
	KindBadOutput
	// KindWrongKind: a valid response of a kind that does not answer the
	// request, e.g. updateResourceResponse to createResourceRequest.
	KindWrongKind
	// KindInvalid: the response does not match the protocol schema.
	KindInvalid
	// KindTooLarge: the response line exceeds the frame size limit.
	KindTooLarge
	// KindTimeout: no response within the per-request timeout.
	KindTimeout
	// KindCanceled: the caller's context ended while waiting.
	KindCanceled
)

// Error is a transport or behaviour failure of a provider process: it did
// not answer a request with a valid response of the right kind. (A
// provider that answers with errorResponse returns a [*ResponseError].)
type Error struct {
	Provider     string // the provider declaration's name
	Executable   string
	Request      string // request kind, e.g. createResourceRequest; "" at shutdown
	ResourceType string
	Resource     string // resource address, e.g. web.db
	Kind         ErrorKind
	ExitStatus   string // e.g. "exit status 3", "signal: killed"; "" if unknown
	// ExitCode is the exit status as a number; -1 when a signal ended
	// the process or it is not known. 0 in an Error made by hand.
	ExitCode int
	Stderr   []string // the last lines the process wrote to stderr
	Err      error    // the cause
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(subject(e.Provider, e.Executable, e.Request, e.ResourceType, e.Resource))
	b.WriteString(": ")
	b.WriteString(e.Err.Error())
	if e.ExitStatus != "" && e.Kind == KindExited {
		fmt.Fprintf(&b, " (%s)", e.ExitStatus)
	}
	if len(e.Stderr) > 0 {
		b.WriteString("\nlast stderr lines:")
		for _, l := range e.Stderr {
			b.WriteString("\n  | ")
			b.WriteString(l)
		}
	} else if e.Kind != KindCanceled {
		b.WriteString("\n(the provider wrote nothing to stderr)")
	}
	if h := e.hint(); h != "" {
		b.WriteString("\nhint: ")
		b.WriteString(h)
	}
	// The cause may quote what the provider wrote.
	return termtext.Printable(b.String())
}

// Unwrap returns the cause, so that errors.Is(err, context.Canceled) and
// errors.As(err, **schema.ValidationError) work.
func (e *Error) Unwrap() error { return e.Err }

func (e *Error) hint() string {
	switch e.Kind {
	case KindExited:
		if e.Request == "" {
			return "a provider should exit with status 0 once its stdin is closed"
		}
		if e.ExitCode == schema.OutcomeUnknownExitStatus {
			return "the provider could not tell whether the operation took effect, so it exited without answering (see its stderr above): the operation may have happened"
		}
		return "a provider must answer every request with one line on stdout and keep running until its stdin is closed; see its stderr above"
	case KindBadOutput:
		return "stdout carries only protocol messages, one JSON response per request; write logs to stderr"
	case KindWrongKind:
		return "each request must be answered by its own response kind or by errorResponse"
	case KindInvalid:
		return "compare the response with the v0 resource protocol schema (schema/schemas/resource-schema-v0.json)"
	case KindTooLarge:
		if e.Request == "stateResourceReadRequest" {
			return "a state read returns the whole state document as one line, and pier reads states of up to schema.MaxStateSize bytes; pier never records a state past that size, so this state was written by another tool, or its provider returns more than it stores"
		}
		return "a provider's response is one line of at most the frame limit; outputs this large usually mean a file or log was returned by mistake"
	case KindTimeout:
		return "raise the per-request timeout if the operation is legitimately slow; the provider's process group was killed"
	}
	return ""
}

// ResponseError is a provider's errorResponse: the provider understood the
// request and reports that the operation failed.
type ResponseError struct {
	Provider     string
	Executable   string
	Request      string
	ResourceType string
	Resource     string
	Message      string // the provider's message, control characters escaped (see termtext.Printable)
}

func (e *ResponseError) Error() string {
	return subject(e.Provider, e.Executable, e.Request, e.ResourceType, e.Resource) + ": provider reported an error: " + e.Message
}

// StateLocked reports whether the provider refused because another
// process holds the state's lock; see [schema.StateLockedPrefix].
func (e *ResponseError) StateLocked() bool { return schema.StateLocked(e.Message) }

// subject names who failed doing what, the common prefix of all errors.
func subject(provider, executable, request, resourceType, resource string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "provider %q (%s)", provider, executable)
	if request == "" {
		b.WriteString(" at shutdown")
		return b.String()
	}
	fmt.Fprintf(&b, ": %s", request)
	if resource != "" {
		fmt.Fprintf(&b, " for %s", resource)
	}
	if resourceType != "" {
		fmt.Fprintf(&b, " (type %q)", resourceType)
	}
	return b.String()
}
