// Package conformance checks that a resource provider follows the v0
// protocol as docs/providers.md describes it, by running it through a
// scripted session: create, update, read, destroy, state read and event,
// error handling for an unknown type and an unknown input field, the
// refusal of stateless use for types that require state, stdout hygiene,
// several requests per process and a clean exit when stdin closes.
//
// It owns the script and the verdicts, nothing else: the provider runs
// through [provider.Start] exactly as during a deployment, so a provider
// that passes here behaves the way pier's engine needs. It must not import
// the engine, statefile or cmd/pier. Start with [Check]; `pier provider
// check` is its command-line front end, and [Names] lists the checks.
package conformance
