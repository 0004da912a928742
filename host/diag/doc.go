// Package diag is pier's one diagnostic type, [Diagnostic], and its one
// translator from the errors the host returns, [FromError]. Both front
// ends render from it: cmd/pier as text (with the source snippet at
// file:line:col) or as --json lines, the RPC service as Diagnostic
// messages. So a configuration error, a provider's diagnostic, a failed
// resource or a refused destroy reads the same wherever it is shown.
//
// It knows the host's error types (the configuration's and the lock
// file's HCL diagnostics, the engine's resource, provider-diagnostic and
// prevent_destroy errors, the Terraform schema check's unknown inputs) and
// nothing of how a front end draws them. An error type of a front end's
// own describes itself by implementing [Diagnoser].
package diag
