// Package provider runs resource provider processes and speaks the v0
// JSON-lines protocol with them: one request line on stdin, one response
// line on stdout, logs on stderr.
//
// It owns the host side of the protocol: validating both directions
// against package schema, refusing optional operations a provider has not
// declared ([ErrNotDeclared]), turning every way a provider can misbehave
// (exiting, garbage, wrong or invalid or oversized responses, hanging) into
// an [*Error] of a precise [ErrorKind] that names the provider, request,
// resource and the tail of its stderr, and forwarding stderr to a
// *slog.Logger line by line.
//
// Start with [Start] for one process or [NewPool] for a lazily started set
// of processes with one request in flight each. It must not import package
// host or anything that plans or records state: it runs requests it is
// given. Processes are started through host/internal/proc (the only
// package using os/exec) and frames are read through schema/jsonl.
package provider
