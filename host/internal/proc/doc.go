// Package proc starts and stops provider processes. It is the only package
// in pier's host that imports os/exec.
//
// A process is started from an argv (never through a shell) with an
// explicit working directory, an environment built from an allow-list of
// the parent's variables plus configured extras, its own process group (so
// a Ctrl-C in the terminal reaches pier, which owns shutdown, and not the
// providers), and a parent-death signal. Optional configuration bytes are
// passed on file descriptor 3 through a pipe, never in argv or the
// environment. No other descriptor passes: those pier inherited without
// close-on-exec are marked before the first child starts.
//
// The package knows nothing about the protocol spoken on the pipes; see
// package jsonl for framing and package provider for the protocol. Start
// with [Start] and [Process.Wait].
//
// Only Linux is supported: exit detection without reaping uses waitid with
// WNOWAIT, and Pdeathsig is Linux-specific.
package proc
