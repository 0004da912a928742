package layout

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pierhq/pier/internal/testbin"
)

// helper is the real pier-layout, built beside the test's pier binary.
func helper(t *testing.T) string {
	t.Helper()
	p, err := find(filepath.Join(filepath.Dir(testbin.Pier(t)), Helper))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestSVG(t *testing.T) {
	t.Parallel()
	svg, err := SVG(t.Context(), helper(t), []byte(`digraph { "a" [id="r:a"]; "b" [id="r:b"]; "a" -> "b" }`))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<svg", `id="r:a"`, `id="r:b"`, "</svg>"} {
		if !strings.Contains(string(svg), want) {
			t.Errorf("the SVG has no %q:\n%s", want, svg)
		}
	}
}

func TestSVGErrors(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		dot  string
		want []string
	}{
		"not DOT": {dot: "digraph {", want: []string{"lay out the graph: ", "exit status 1", "pier-layout: read the graph: "}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := SVG(t.Context(), helper(t), []byte(tc.dot))
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

func TestSVGCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := SVG(ctx, helper(t), []byte("digraph { a }")); !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
}

func TestFindMissing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	notExec := filepath.Join(dir, "plain")
	if err := os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := map[string]struct {
		path  string
		cause string
	}{
		"absent":         {path: filepath.Join(dir, Helper), cause: "no such file or directory"},
		"a directory":    {path: dir, cause: "not an executable file"},
		"not executable": {path: notExec, cause: "not an executable file"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := find(tc.path)
			var missing *MissingError
			if !errors.As(err, &missing) || missing.Path != tc.path {
				t.Fatalf("got %v, want a MissingError for %s", err, tc.path)
			}
			for _, w := range []string{"pier-layout is missing", tc.path, tc.cause, "make build builds bin/pier and bin/pier-layout"} {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

// TestFindNextToExecutable: Find looks in the running executable's
// directory, which for a test is the test binary's, with no helper.
func TestFindNextToExecutable(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	_, err = Find()
	var missing *MissingError
	if !errors.As(err, &missing) || missing.Path != filepath.Join(filepath.Dir(exe), Helper) {
		t.Errorf("got %v, want a MissingError beside %s", err, exe)
	}
}

func TestTempDir(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		base   func(t *testing.T) string
		cached bool // the cache under base, kept after the run
	}{
		"the user's cache":              {base: func(t *testing.T) string { return filepath.Join(t.TempDir(), ".cache") }, cached: true},
		"a cache whose home is missing": {base: func(t *testing.T) string { return filepath.Join(t.TempDir(), "no-home", ".cache") }},
		"no cache directory":            {base: func(*testing.T) string { return "" }},
		"a cache this user made too wide": {base: func(t *testing.T) string {
			base := filepath.Join(t.TempDir(), ".cache")
			if err := os.MkdirAll(filepath.Join(base, "pier", "graphviz"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(filepath.Join(base, "pier", "graphviz"), 0o777); err != nil {
				t.Fatal(err)
			}
			return base
		}, cached: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			base := tc.base(t)
			dir, done, err := tempDirIn(base)
			if err != nil {
				t.Fatal(err)
			}
			fi, err := os.Stat(dir)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != 0o700 {
				t.Errorf("%s has mode %v, want 0700", dir, fi.Mode().Perm())
			}
			if got := dir == filepath.Join(base, "pier", "graphviz"); got != tc.cached {
				t.Errorf("TMPDIR %s: in the cache under %q = %v, want %v", dir, base, got, tc.cached)
			}
			done()
			if _, err := os.Stat(dir); (err == nil) != tc.cached {
				t.Errorf("after the run, %s exists = %v, want %v", dir, err == nil, tc.cached)
			}
		})
	}
}
