// Package redact keeps sensitive values out of what pier shows: it
// replaces the values at sensitive paths in inputs and outputs (values.go:
// the paths the Terraform bridge lists, and those recorded as coming from
// sensitive values), collects the texts of a resource's secrets
// (secrets.go), and replaces them in provider errors (errors.go) and in
// the lines a provider logs about the resource (log.go).
//
// Planning and applying both redact, and the state commands show
// recorded entries through it, so it sits below them: it imports only
// host/statedoc, host/source and host/provider's error types.
//
// Start reading at [Outputs] and [Error].
package redact
