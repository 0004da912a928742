// Command pier-layout is pier's Graphviz helper: it reads a graph in DOT on
// standard input, lays it out with Graphviz's dot (goccy/go-graphviz, which
// runs Graphviz compiled to WebAssembly under wazero) and writes the SVG to
// standard output. pier ui's graph view starts it; it is not a tool of its
// own, and pier finds it next to its own executable.
//
// It is a separate program because go-graphviz compiles and instantiates
// its 1.5 MB WebAssembly module in package init: linked into pier, that
// cost about 17 MiB and 40 ms in every pier process (the command, each
// adapter and bridge), whether or not a graph was ever laid out. Here only
// a graph view pays it.
//
// The same init keeps wazero's compiled native code in $TMPDIR/go-graphviz
// and runs what it finds there. In a shared /tmp another user could plant
// code in that directory, so pier starts this helper with TMPDIR set to a
// directory only its user can write (see host/webview/internal/layout).
// The init has run before main, so main's check of TMPDIR below cannot
// undo a planted cache; it refuses to go on, so that a run by hand with a
// shared TMPDIR is an error and not a habit.
//
// Exit status: 0 with the SVG on stdout; 1 with the cause on stderr.
package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"

	"github.com/goccy/go-graphviz"
)

// maxDOT bounds the graph read from stdin. pier writes a few hundred bytes
// per resource, so 256 MiB is far above any deployment pier can plan, and
// a runaway writer ends in a clear error instead of an out-of-memory kill.
const maxDOT = 256 << 20

func main() {
	if err := run(context.Background(), os.Stdin, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "pier-layout: %v\n", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, in io.Reader, out io.Writer) error {
	if err := privateTempDir(os.TempDir()); err != nil {
		return err
	}
	dot, err := io.ReadAll(io.LimitReader(in, maxDOT+1))
	if err != nil {
		return fmt.Errorf("read the graph: %w", err)
	}
	if len(dot) > maxDOT {
		return fmt.Errorf("read the graph: larger than %d MiB", maxDOT>>20)
	}
	svg, err := render(ctx, dot)
	if err != nil {
		return err
	}
	if _, err := out.Write(svg); err != nil {
		return fmt.Errorf("write the SVG: %w", err)
	}
	return nil
}

func render(ctx context.Context, dot []byte) ([]byte, error) {
	gv, err := graphviz.New(ctx)
	if err != nil {
		return nil, fmt.Errorf("start graphviz: %w", err)
	}
	defer gv.Close()
	g, err := graphviz.ParseBytes(dot)
	if err != nil {
		return nil, fmt.Errorf("read the graph: %w", err)
	}
	defer g.Close()
	var svg bytes.Buffer
	if err := gv.Render(ctx, g, graphviz.SVG, &svg); err != nil {
		return nil, fmt.Errorf("lay out the graph: %w", err)
	}
	return svg.Bytes(), nil
}

// privateTempDir reports whether dir, where go-graphviz keeps compiled
// code, is a directory of this user's that no one else can write into.
func privateTempDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("TMPDIR %s: %w", dir, err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.IsDir():
		return fmt.Errorf("TMPDIR %s is not a directory", dir)
	case !ok:
		return errors.New("TMPDIR: no owner to check: this is a bug in pier-layout")
	case int(st.Uid) != os.Getuid() || fi.Mode().Perm()&0o077 != 0:
		return fmt.Errorf("TMPDIR %s (mode %v, owner uid %d) is not private to uid %d: go-graphviz runs the compiled code it finds there, so pier starts pier-layout with TMPDIR set to a directory only its user can use", dir, fi.Mode(), st.Uid, os.Getuid())
	}
	return nil
}
