package tfschema

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/pierhq/pier/host/internal/proc"
)

// DefaultTimeout bounds one schema fetch: starting a Terraform provider
// and reading its schema takes well under a second for small providers
// and a few seconds for the largest (the AWS provider's schema is tens of
// megabytes), so a minute means the provider is hung.
const DefaultTimeout = time.Minute

// maxSchemaSize caps the JSON read from `pier tf schema`: the largest
// public providers' schemas with descriptions stay far below it, and a
// clear error beats running out of memory.
const maxSchemaSize = 256 << 20

// pipeDrain bounds how long a fetch waits for the command's output after
// the command has exited, and for the command to exit after closing its
// output. Both normally take microseconds; two seconds covers a loaded
// machine without letting a leftover daemon holding the pipes stall a plan.
const pipeDrain = 2 * time.Second

// stderrTail is how much of the command's stderr an error quotes.
const stderrTail = 2048

// Fetcher gets Terraform provider schemas by running
// `pier tf schema --json --plugin PATH`, once per plugin path for its
// lifetime; a failure is remembered too, so that a broken plugin is
// reported once, not once per resource. It is safe for concurrent use.
type Fetcher struct {
	// Pier is pier's own executable.
	Pier string
	// Dir is the working directory of the command: the deployment's.
	Dir string
	// Timeout bounds one fetch; 0 means [DefaultTimeout].
	Timeout time.Duration

	mu    sync.Mutex
	cache map[string]*fetch
}

type fetch struct {
	done   chan struct{}
	schema *Schema
	err    error
}

// Fetches counts the schema commands run so far, for tests and progress.
func (f *Fetcher) Fetches() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.cache)
}

// Schema returns the schema of the Terraform provider at plugin, running
// the schema command on first use. Concurrent callers for one plugin wait
// for the same run.
func (f *Fetcher) Schema(ctx context.Context, plugin string) (*Schema, error) {
	f.mu.Lock()
	if f.cache == nil {
		f.cache = map[string]*fetch{}
	}
	ft, ok := f.cache[plugin]
	if !ok {
		ft = &fetch{done: make(chan struct{})}
		f.cache[plugin] = ft
	}
	f.mu.Unlock()
	if !ok {
		ft.schema, ft.err = f.run(ctx, plugin)
		close(ft.done)
	}
	select {
	case <-ft.done:
		return ft.schema, ft.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (f *Fetcher) run(ctx context.Context, plugin string) (*Schema, error) {
	timeout := f.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	p, err := proc.Start(proc.Spec{Path: f.Pier, Args: []string{"tf", "schema", "--json", "--plugin", plugin}, Dir: f.Dir})
	if err != nil {
		return nil, fmt.Errorf("read the schema of Terraform provider %s: %w", plugin, err)
	}
	// The schema command has no input: closing stdin at once is harmless.
	_ = p.CloseStdin()
	stop := context.AfterFunc(ctx, func() { _ = p.Kill() })
	defer stop()

	var stdout, stderr bytes.Buffer
	var wg sync.WaitGroup
	var readErr error
	wg.Add(2)
	go func() {
		defer wg.Done()
		n, err := io.Copy(&stdout, io.LimitReader(p.Stdout(), maxSchemaSize+1))
		if err == nil && n > maxSchemaSize {
			readErr = fmt.Errorf("schema larger than %d MiB", maxSchemaSize>>20)
			_ = p.Kill()
		}
		_, _ = io.Copy(io.Discard, p.Stdout())
	}()
	go func() {
		defer wg.Done()
		_, _ = io.Copy(&tailWriter{max: stderrTail, buf: &stderr}, p.Stderr())
	}()
	// The pipes normally reach end of file when the command exits, but a
	// descendant that left the process group (setsid) may hold them open
	// for ever: once the command has exited, give them pipeDrain, then
	// reap, which closes them and ends the copies.
	copied := make(chan struct{})
	go func() { wg.Wait(); close(copied) }()
	select {
	case <-copied:
	case <-p.Exited():
		drain := time.NewTimer(pipeDrain)
		select {
		case <-copied:
		case <-drain.C:
		}
		drain.Stop()
	}
	waitErr := p.Wait(pipeDrain)
	<-copied
	switch {
	case ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
		return nil, fmt.Errorf("read the schema of Terraform provider %s: no answer within %s", plugin, timeout)
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case readErr != nil:
		return nil, fmt.Errorf("read the schema of Terraform provider %s: %w", plugin, readErr)
	case waitErr != nil:
		msg := lastError(stderr.String())
		return nil, fmt.Errorf("read the schema of Terraform provider %s: pier tf schema: %s: %s", plugin, p.ExitStatus(), msg)
	}
	s, err := Parse(stdout.Bytes())
	if err != nil {
		return nil, fmt.Errorf("read the schema of Terraform provider %s: %w", plugin, err)
	}
	return s, nil
}

// tailWriter keeps the last max bytes written to it.
type tailWriter struct {
	max int
	buf *bytes.Buffer
}

func (w *tailWriter) Write(p []byte) (int, error) {
	w.buf.Write(p)
	if extra := w.buf.Len() - w.max; extra > 0 {
		w.buf.Next(extra)
	}
	return len(p), nil
}

// lastError picks pier's own error message out of the schema command's
// stderr (the lines from its last "pier: " line on), dropping the
// provider's log lines before it; without one, the whole tail.
func lastError(stderr string) string {
	stderr = strings.TrimSpace(stderr)
	if stderr == "" {
		return "no error output"
	}
	if i := strings.LastIndex("\n"+stderr, "\npier: "); i >= 0 {
		return strings.TrimPrefix(stderr[i:], "pier: ")
	}
	return stderr
}
