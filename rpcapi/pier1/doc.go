// Package pier1 is the generated Go code of pier's RPC API, version 1,
// from pier1.proto (the documented source of truth; docs/rpcapi.md).
// `make proto` regenerates it; do not edit the .pb.go files.
package pier1
