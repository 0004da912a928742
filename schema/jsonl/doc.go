// Package jsonl is the framing of the v0 provider protocol: one JSON value
// per line, terminated by "\n", read with an explicit maximum size.
//
// Both ends use it: pier reads providers' responses with it, and
// providersdk reads the host's requests with it, so a frame means the
// same thing, and an over-long one fails the same way, on either side of
// the pipe. It sits under schema because it is part of the protocol an
// outside provider author relies on, and because providersdk may import
// nothing of pier but schema; like schema it imports nothing from pier.
//
// It knows nothing about the messages inside a frame (that is package
// schema) nor about processes (that is host/internal/proc). Start with
// [Reader], whose explicit maximum frame size turns a runaway writer into
// a clear [ErrFrameTooLarge], naming the limit, instead of an
// out-of-memory kill; the reader then goes on with the next line.
package jsonl
