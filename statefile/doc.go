// Package statefile owns pier's state_file: an append-only log of JSON
// Patch events whose replay is the deployment state document
// {"_type":"nixopsState","resources":{},"deployments":{}}.
//
// The file format is NixOps4's. The first value is the initialising event,
// which adds the empty document at path "". Every later value is
// {"index":N,"meta":{"time":…,"event":…},"patch":[RFC 6902 operations]}.
// The reader accepts any whitespace-separated concatenation of JSON values
// (NixOps4 pretty-prints); the writer appends one compact value per line
// and fsyncs before returning (on Linux the write itself is synchronous,
// O_DSYNC).
//
// Start with [Open] (the writer: lock, repair a torn tail, replay) and
// [Log.Append]; [Replay] and [Verify] are read-only. [Pointer] builds the
// RFC 6901 pointers that patches use.
//
// Replay cost follows the bytes of the events, not events × state size:
// the state is kept decoded and the common operations (add, replace, remove,
// move and copy between object members) are applied in memory. Every other
// case is handed to evanphx/json-patch, applied only to the smallest
// sub-document that encloses the operation, so the library's semantics are
// the reference (a differential test and FuzzReplay check this). One
// deliberate difference: a member named "" (pointer "/a//b") is a member,
// as RFC 6901 says and NixOps4 does, where json-patch resolves the empty
// token to the container itself. Only a move or copy into or out of an
// array, with an empty token in its pointers, still gets the library's
// reading. Operation members are matched case-sensitively, as json-patch
// and NixOps4 match them.
//
// Every event the writer appends carries a checksum in its meta
// ([ChecksumKey]), which every replay checks; events without one (NixOps4
// writes none) are read as they are. An event that is not valid UTF-8 is
// refused ([ErrInvalidUTF8]), never read with its bytes replaced.
//
// A torn tail is a last value cut short mid-JSON, or NUL bytes at the end
// (a crash that extended the file without writing its data). Readers report
// it; Open keeps a copy and cuts it off, so no whole event is lost.
//
// Files beside the log, all mode 0600 like the log itself:
//   - FILE.lock carries the exclusive flock a writer holds from Open to
//     Close, and the holder's {"pid","since"} for [LockedError]. It is
//     never removed. The writer also flocks FILE itself, the lock
//     NixOps4's writer takes while it appends.
//   - FILE.torn-TIME keeps the bytes of a torn last event that Open cut off.
//   - FILE.TIME.bak is the log as it was before [Compact].
//   - FILE.cache is the resolved-state cache ([CacheSuffix]): the state the
//     log resolves to, keyed by the SHA-256 of the log's bytes, written by
//     a writer's Close. [Read] and [Open] use it instead of replaying a
//     log that matches it byte for byte, and ignore it otherwise. Deleting
//     it loses nothing.
//
// Compaction writes the initialising event plus one snapshot event (meta
// event "compact") whose patch adds each top-level member of the state,
// with the highest index so far, so numbering continues.
//
// This package imports only [github.com/pierhq/pier/schema] from pier. It
// knows nothing about providers or the engine.
package statefile
