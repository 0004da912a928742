// Package tfclient runs one Terraform provider binary and calls it over the
// Terraform plugin protocol, version 5 or 6, whichever the provider speaks.
//
// [Start] launches the provider with hashicorp/go-plugin (gRPC only, AutoMTLS,
// Unix sockets in a directory the client creates and removes, the provider
// SDK's own logging off unless asked for, Pdeathsig so the provider dies
// with its parent) and returns a [Client]. The Client's methods take and
// return the neutral [tfproto] types and msgpack bytes, so callers never see
// which protocol version is in use; the two generated packages stay behind
// v5.go and v6.go. [Attach] connects to a provider another process
// started, over [unarygrpc] instead of go-plugin and grpc-go.
//
// Everything the provider writes to stderr reaches the caller's
// *slog.Logger, a panic's stack trace at error level. It imports no pier
// package outside adapters/terraform.
package tfclient
