// Package layout lays a graph in DOT out as SVG with Graphviz's dot, by
// running pier-layout (cmd/pier-layout), the helper shipped next to pier.
//
// Graphviz runs in a helper of its own, not in pier, because the library
// that carries it (goccy/go-graphviz) compiles its WebAssembly in package
// init: linked into pier, every pier process paid for it, the adapters and
// bridges included. This package is the one place that knows the helper:
// where it is ([Find]), how it is started and what it is given ([SVG]).
//
// The helper gets a TMPDIR that only pier's user can write, because
// go-graphviz keeps compiled native code under $TMPDIR and runs it: a
// per-user cache directory, so that the slow first compile (seconds) is
// paid once, or else a private directory of its own for one run.
//
// It imports host/internal/proc, the one package of the host that starts
// processes, and knows nothing of the web view above it.
package layout
