// Package logkey names the attribute keys of pier's log records, on both
// sides of the provider pipe. Log consumers match on them, so they are
// API: a key is renamed only with a changelog entry.
//
// It sits under schema because the lowest packages that log, statefile
// and providersdk, may import nothing of pier but schema, and because two
// of its keys cross the pipe: pier numbers the requests it sends each
// provider process from 1 and logs that number as [RequestID], and
// providersdk logs the same number under the same key on the provider's
// stderr, so the two logs can be read side by side. It imports nothing.
package logkey
