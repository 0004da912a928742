// Package local is pier's local resource provider, served by `pier adapter
// local`: resources that act on the machine pier runs on. Its types, inputs,
// outputs and rules are those of the NixOps4 local provider:
//
//   - file writes a file; stateless, destroy removes it.
//   - exec runs a program (argv, no shell) and outputs its stdout; with
//     once it runs only on create and needs state.
//   - memo remembers its first value; it needs state.
//   - state_file stores a deployment's state as an append-only event log
//     (see [github.com/pierhq/pier/statefile]).
//
// Start with [New], which returns the [providersdk.Handler] the command
// serves, and [Operations], the optional operations a deployment declares
// for it. The package imports schema, providersdk and statefile from pier,
// never the engine (host/...): it is a provider like any other and runs out
// of process.
package local
