// Package unarygrpc is a gRPC client connection for unary calls only,
// HTTP/2 over a connection the caller has already secured (TLS), in which
// each call runs on its caller's goroutine: the caller writes its request
// and reads the connection until its answer is in.
//
// It exists for the Terraform bridge's attached provider. A bridge serves
// one request at a time, so a connection carries one call at a time, and
// grpc-go's general transport (a reader goroutine, a writer goroutine and
// the caller handing each frame between them) spent more CPU on those
// handoffs than the bridge spent on the request itself. Here a call costs
// one write and the reads of its answer. Concurrent calls (a StopProvider
// while a call runs) still work: whoever holds the right to read
// ([Conn] keeps one token) reads frames for every call and hands each
// answer over. Between calls nobody reads, which is sound for the
// server's pings; after [Config.IdleRead] of quiet a goroutine reads
// (and answers them) until the next call.
//
// What it speaks: the gRPC-over-HTTP/2 wire format for unary calls
// (identity encoding only), HTTP/2 flow control in both directions,
// SETTINGS, PING, GOAWAY and RST_STREAM; no server push, no streams, no
// compression. [Conn] implements grpc.ClientConnInterface, so the
// generated protocol stubs use it unchanged; its NewStream refuses.
//
// It imports no pier package. Start at [New] and [Conn.Invoke].
package unarygrpc
