// Package providersdk is for writing NixOps4 resource protocol v0 providers
// in Go: pier's own adapters use it, and so can outside provider authors.
//
// A provider is a program that reads one JSON request per line on stdin and
// writes exactly one JSON response per line on stdout. The package owns that
// loop ([Serve], [ServeIO]): framing with an explicit maximum line size,
// validating every request and response against the protocol schema,
// dispatching to a typed [Handler], and turning handler errors into
// errorResponse frames so that one failed operation never ends the process.
// The process exits cleanly when the host closes stdin, which is the v0
// protocol's only stop signal.
//
// Start with [Handler]: it has the two operations every provider must
// implement. A handler opts into more by also implementing [Destroyer],
// [Reader], [Importer], [Previewer] (the optional operations, see [Operations]) or
// [StateProvider] (state storage; with [EncodedStateReader], a store that
// keeps its state encoded sends it without re-encoding). [DecodeInputs] and [EncodeOutputs] convert
// between protocol properties and Go structs, with the unknown-field check
// the protocol requires. [Logger] writes logs to stderr, the only place a
// provider may write anything that is not a frame. The sdktest subpackage
// drives a handler through real pipes for tests.
//
// The package imports only [github.com/pierhq/pier/schema] (and its framing,
// [github.com/pierhq/pier/schema/jsonl]) from pier. It
// knows nothing of the engine that hosts providers.
package providersdk
