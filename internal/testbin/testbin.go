// Package testbin builds pier's own binary for tests that need a real
// subprocess: end-to-end tests and providers run as `pier adapter …`.
//
// The binary is built once per test process with `go build`, which the
// build cache makes cheap after the first time, with pier-layout (pier
// ui's Graphviz helper) next to it. Set PIER_BIN to use a prebuilt binary
// instead (make test does: make build puts pier-layout beside it).
package testbin

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

var (
	once sync.Once
	path string
	err  error
)

// Pier returns the path of a pier binary built from this checkout.
func Pier(tb testing.TB) string {
	tb.Helper()
	once.Do(func() {
		if p := os.Getenv("PIER_BIN"); p != "" {
			path, err = filepath.Abs(p)
			return
		}
		dir, derr := os.MkdirTemp("", "pier-testbin-")
		if derr != nil {
			err = derr
			return
		}
		path = filepath.Join(dir, "pier")
		// pier-layout beside it, where pier ui looks for it.
		cmd := exec.Command("go", "build", "-o", dir+"/", "github.com/pierhq/pier/cmd/pier", "github.com/pierhq/pier/cmd/pier-layout")
		cmd.Dir = moduleRoot()
		out, berr := cmd.CombinedOutput()
		if berr != nil {
			err = &buildError{out: string(out), err: berr}
		}
	})
	if err != nil {
		tb.Fatalf("build pier: %v", err)
	}
	return path
}

// ModuleRoot is the directory holding pier's go.mod.
func ModuleRoot() string { return moduleRoot() }

func moduleRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

type buildError struct {
	out string
	err error
}

func (e *buildError) Error() string { return e.err.Error() + "\n" + e.out }
