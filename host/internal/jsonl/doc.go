// Package jsonl owns the framing of pier's provider protocol: one JSON value
// per line, terminated by "\n".
//
// It knows nothing about the messages inside a frame (that is package
// schema) nor about processes (that is package proc). Start with [Reader],
// whose explicit maximum frame size turns a runaway provider into a clear
// [ErrFrameTooLarge] instead of an out-of-memory kill.
package jsonl
