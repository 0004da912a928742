package local

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/pierhq/pier/providersdk"
	"github.com/pierhq/pier/schema"
	"github.com/pierhq/pier/schema/logkey"
)

// execType runs a program and outputs what it printed.
type execType struct{ p *Provider }

type execInputs struct {
	Executable string   `json:"executable"`
	Args       []string `json:"args"`
	Stdin      *string  `json:"stdin"`
	Once       bool     `json:"once,omitempty"`
}

// execWaitDelay bounds how long a run waits for the program's pipes after
// it exits or is killed, so that a grandchild holding stdout open cannot
// hang the provider.
const execWaitDelay = 5 * time.Second

// stderrTail is how much of a failed program's stderr its error quotes.
const stderrTail = 2 << 10

var errOnceNeedsState error = needsStateError("once=true needs a state handler: the first run's stdout is recorded and reused instead of running again, and without state (isStateful is false) there is nothing to reuse")

func (t execType) create(ctx context.Context, req *schema.CreateResourceRequest) (schema.Properties, error) {
	var in execInputs
	if err := providersdk.DecodeInputs(req.InputProperties, &in); err != nil {
		return nil, err
	}
	if in.Once && !req.IsStateful {
		return nil, errOnceNeedsState
	}
	return t.run(ctx, in)
}

// update runs the program again, unless once is set: then it returns the
// first run's recorded stdout.
func (t execType) update(ctx context.Context, req *schema.UpdateResourceRequest) (schema.Properties, error) {
	var in execInputs
	if err := providersdk.DecodeInputs(req.InputProperties, &in); err != nil {
		return nil, err
	}
	if in.Once {
		stdout, ok := req.Resource.OutputProperties["stdout"].(string)
		if !ok {
			return nil, errors.New("once=true but the recorded outputs have no stdout to reuse (was the state edited by hand?)")
		}
		return schema.Properties{"stdout": stdout}, nil
	}
	return t.run(ctx, in)
}

// destroy has nothing to undo: a run cannot be taken back.
func (execType) destroy(_ context.Context, res *schema.ExtantResource) error {
	var in execInputs
	return providersdk.DecodeInputs(res.InputProperties, &in)
}

// run executes the program directly (argv, never a shell) in Options.Dir.
// Its stdin is the stdin input, or empty; its stderr is forwarded. The
// stdin input may be secret, so it appears in no log or error.
func (t execType) run(ctx context.Context, in execInputs) (schema.Properties, error) {
	if in.Executable == "" {
		return nil, errors.New("executable must not be empty")
	}
	cmd := exec.CommandContext(ctx, in.Executable, in.Args...)
	cmd.Dir = t.p.opts.Dir
	cmd.WaitDelay = execWaitDelay
	cmd.SysProcAttr = execSysProcAttr()
	if in.Stdin != nil {
		cmd.Stdin = strings.NewReader(*in.Stdin)
	}
	var stdout bytes.Buffer
	tail := &tailWriter{max: stderrTail}
	cmd.Stdout = &stdout
	cmd.Stderr = io.MultiWriter(tail, t.p.opts.Stderr)
	t.p.log.Debug("exec", logkey.Executable, in.Executable, logkey.Args, len(in.Args))
	if err := cmd.Run(); err != nil {
		if s := tail.lastLines(5); s != "" {
			return nil, fmt.Errorf("run %q: %w; stderr ends with:\n%s", in.Executable, err, s)
		}
		return nil, fmt.Errorf("run %q: %w", in.Executable, err)
	}
	if !utf8.Valid(stdout.Bytes()) {
		return nil, fmt.Errorf("run %q: stdout is not valid UTF-8, so it cannot be a JSON string output", in.Executable)
	}
	return schema.Properties{"stdout": stdout.String()}, nil
}

// tailWriter keeps the last max bytes written to it.
type tailWriter struct {
	max int
	buf []byte
}

func (w *tailWriter) Write(p []byte) (int, error) {
	w.buf = append(w.buf, p...)
	if over := len(w.buf) - w.max; over > 0 {
		w.buf = append(w.buf[:0], w.buf[over:]...)
	}
	return len(p), nil
}

func (w *tailWriter) lastLines(n int) string {
	s := strings.TrimRight(strings.ToValidUTF8(string(w.buf), "\uFFFD"), "\n")
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
