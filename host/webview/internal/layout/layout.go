package layout

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/pierhq/pier/host/internal/proc"
)

// Helper is the helper's file name, looked for in the directory of the
// running executable.
const Helper = "pier-layout"

// maxSVG bounds what is read back from the helper. Its SVG is a few
// hundred bytes per node and edge; 1 GiB is far above that, and a helper
// gone wrong ends in an error rather than in pier's memory.
const maxSVG = 1 << 30

// stderrTail bounds the helper's stderr kept for an error message.
const stderrTail = 4 << 10

// exitGrace bounds the wait for the helper's exit once its output has
// ended: it has nothing left to do but exit.
const exitGrace = 10 * time.Second

// MissingError is returned when the helper is not next to pier.
type MissingError struct {
	// Path is where the helper was looked for.
	Path string
	Err  error
}

func (e *MissingError) Error() string {
	return fmt.Sprintf("the graph layout helper %s is missing: pier runs it from its own directory, as %s (%v); install it next to pier (make build builds bin/pier and bin/%s)", Helper, e.Path, e.Err, Helper)
}

func (e *MissingError) Unwrap() error { return e.Err }

// Find returns the path of the helper next to the running executable.
func Find() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find %s: locate pier's own executable: %w", Helper, err)
	}
	return find(filepath.Join(filepath.Dir(exe), Helper))
}

func find(path string) (string, error) {
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return "", &MissingError{Path: path, Err: err}
	case fi.IsDir() || fi.Mode().Perm()&0o111 == 0:
		return "", &MissingError{Path: path, Err: errors.New("not an executable file")}
	}
	return path, nil
}

// SVG lays dot out with the helper at path and returns the SVG document.
func SVG(ctx context.Context, path string, dot []byte) ([]byte, error) {
	tmp, done, err := tempDir()
	if err != nil {
		return nil, fmt.Errorf("lay out the graph with %s: %w", path, err)
	}
	defer done()
	p, err := proc.Start(proc.Spec{Path: path, Env: map[string]string{"TMPDIR": tmp}})
	if err != nil {
		return nil, fmt.Errorf("lay out the graph: %w", err)
	}
	// The helper reads all of its input before it writes, so the input
	// is written while the output is read, or a large graph would fill
	// both pipes.
	var wg sync.WaitGroup
	var svg, stderr bytes.Buffer
	var readErr error
	wg.Go(func() {
		_, _ = p.Stdin().Write(dot) // a helper that stops reading says why on stderr
		_ = p.CloseStdin()
	})
	wg.Go(func() {
		n, err := io.Copy(&svg, io.LimitReader(p.Stdout(), maxSVG+1))
		if err == nil && n > maxSVG {
			err = fmt.Errorf("its SVG is larger than %d MiB", maxSVG>>20)
			_ = p.Kill()
		}
		readErr = err
		_, _ = io.Copy(io.Discard, p.Stdout())
	})
	wg.Go(func() {
		_, _ = io.Copy(&tailWriter{buf: &stderr}, p.Stderr())
	})
	stop := context.AfterFunc(ctx, func() { _ = p.Kill() })
	wg.Wait()
	stop()
	werr := p.Wait(exitGrace)
	switch {
	case werr != nil && ctx.Err() != nil:
		return nil, fmt.Errorf("lay out the graph: %w", ctx.Err())
	case werr != nil:
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = "no message"
		}
		return nil, fmt.Errorf("lay out the graph: %s: %s: %s", path, p.ExitStatus(), msg)
	case readErr != nil:
		return nil, fmt.Errorf("lay out the graph: read %s's output: %w", path, readErr)
	}
	return svg.Bytes(), nil
}

// tempDir returns the TMPDIR to give the helper, and what to do after its
// run: the per-user cache directory pier/graphviz, or, without one, a
// private directory of its own that done removes.
func tempDir() (dir string, done func(), err error) {
	base, err := os.UserCacheDir()
	if err != nil {
		base = ""
	}
	return tempDirIn(base)
}

// tempDirIn is tempDir with base as the user's cache directory, "" for
// none.
func tempDirIn(base string) (dir string, done func(), err error) {
	// A HOME that does not exist (a system user, a test harness's
	// HOME=/no-home) is no place to create a cache, as in host/filehash.
	if base != "" {
		if _, err := os.Stat(filepath.Dir(base)); err == nil {
			dir := filepath.Join(base, "pier", "graphviz")
			if err := private(dir); err != nil {
				return "", nil, err
			}
			return dir, func() {}, nil
		}
	}
	dir, err = os.MkdirTemp("", "pier-layout-")
	if err != nil {
		return "", nil, fmt.Errorf("make a private TMPDIR: %w", err)
	}
	return dir, func() { _ = os.RemoveAll(dir) }, nil
}

// private makes dir (and its parents) if needed, and checks that it is a
// directory of this user's that no one else can write into; one of this
// user's with a wider mode is narrowed to 0700.
func private(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("make the Graphviz cache directory: %w", err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("check the Graphviz cache directory: %w", err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.IsDir():
		return fmt.Errorf("the Graphviz cache directory %s is not a directory", dir)
	case !ok:
		return errors.New("the Graphviz cache directory has no owner to check to check: this is a bug in pier")
	case int(st.Uid) != os.Getuid():
		return fmt.Errorf("the Graphviz cache directory %s belongs to uid %d, not to uid %d: Graphviz runs the compiled code kept there, so pier uses it only when it is its user's own", dir, st.Uid, os.Getuid())
	case fi.Mode().Perm()&0o077 != 0:
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("make the Graphviz cache directory private: %w", err)
		}
	}
	return nil
}

// tailWriter keeps the last stderrTail bytes written to buf.
type tailWriter struct{ buf *bytes.Buffer }

func (w *tailWriter) Write(b []byte) (int, error) {
	w.buf.Write(b)
	if over := w.buf.Len() - stderrTail; over > 0 {
		w.buf.Next(over)
	}
	return len(b), nil
}
