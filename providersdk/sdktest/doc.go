// Package sdktest drives a [providersdk.Handler] the way a host does, for
// tests: [Start] runs [providersdk.ServeIO] on a goroutine behind a pair of
// io.Pipes, and [Client.Call] writes one request line and reads one
// response line. Everything between the two, framing, schema validation
// both ways and error handling, is the real serving loop.
//
// It imports providersdk and schema only; to test a provider as a separate
// process, start the process itself and speak to its stdin and stdout.
package sdktest
