// Package rpcapi serves pier's engine over gRPC: `pier rpcapi`, after
// Terraform's rpcapi. The protocol is pier's own (rpcapi/pier1/pier1.proto;
// docs/rpcapi.md); this package holds the server behind it and the
// go-plugin wiring that clients start it with.
//
// It owns the handle table (objects by int64 handle, with the
// dependencies that keep one from closing under another), the handshake
// gate, the mapping from engine events and errors to messages, and the
// server's lifetime: it exits when its last client connection closes and
// stops every provider it started first. It drives the engine through
// host/session only. Start at [Serve] and [Server].
package rpcapi
