package provider

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/pierhq/pier/host/internal/proc"
	"github.com/pierhq/pier/host/internal/termtext"
	"github.com/pierhq/pier/schema"
	"github.com/pierhq/pier/schema/jsonl"
	"github.com/pierhq/pier/schema/logkey"
	"github.com/pierhq/pier/schema/rawio"
)

// exitWait is how long pier waits for a provider that closed its stdout
// to finish exiting, so that the error can report its real exit status
// rather than the kill that would follow.
const exitWait = 2 * time.Second

// pendingReadTimeout bounds reading an unexpected extra line for the error
// message; the line is already (partly) there when this runs.
const pendingReadTimeout = 100 * time.Millisecond

// Process is one running provider process. It serves one request at a
// time: concurrent calls queue on an internal lock. After an [*Error] the
// process is dead and every later call fails; a [Pool] replaces it.
type Process struct {
	cfg    Config
	proc   *proc.Process
	in     io.Writer // the process's stdin, written by raw system calls (see package rawio)
	out    *jsonl.Reader
	stderr *stderrForwarder
	guard  *exitGuard
	log    *slog.Logger
	// exitFile polls readable once the process has exited (see
	// [proc.Process.ExitFile]); nil where there is none.
	exitFile *os.File
	// abandon ends a request's pipe I/O and kills the process group, when
	// the request's context ends: made once, for every request's
	// context.AfterFunc.
	abandon func()

	// sent is set once a request has been written to the process (or
	// attempted): from then on it may hold what it locked on first use.
	sent atomic.Bool
	// exitChecks counts calls of exited.
	exitChecks atomic.Int64
	// unusable is set, under mu, once failed or closed is: usable reads
	// it without waiting for a request in flight to release mu.
	unusable atomic.Bool

	mu     sync.Mutex // one request in flight; guards the fields below
	failed *Error     // why the process is unusable, once it is
	closed bool
	// requests counts the requests written to the process: each one's
	// number is its request_id in the log, the same number providersdk
	// gives it on the provider's side.
	requests int
}

// Start starts the provider process described by cfg. Nothing is sent to
// it: the v0 protocol has no handshake.
func Start(ctx context.Context, cfg Config) (*Process, error) {
	cfg = cfg.withDefaults()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("start provider %q (%s): %w", cfg.Name, cfg.Executable, err)
	}
	pr, err := proc.Start(proc.Spec{
		Path:        cfg.Executable,
		Args:        cfg.Args,
		Env:         cfg.Env,
		Dir:         cfg.Dir,
		ConfigData:  cfg.ConfigData,
		ConfigLater: cfg.configLater,
	})
	if err != nil {
		return nil, fmt.Errorf("start provider %q: %w (check the provider's executable path and that it is executable)", cfg.Name, err)
	}
	log := cfg.Logger.With(logkey.Provider, cfg.Name)
	p := &Process{
		cfg:    cfg,
		proc:   pr,
		in:     rawio.Wrap(pr.Stdin()),
		out:    jsonl.NewReader(rawio.Wrap(pr.Stdout()), cfg.MaxFrame),
		stderr: newStderrForwarder(pr.Stderr(), log),
		guard:  newExitGuard(pr),
		log:    log,
	}
	if !cfg.noExitFile {
		p.exitFile = pr.ExitFile()
	}
	p.abandon = func() {
		past := time.Unix(1, 0)
		_ = pr.Stdout().SetReadDeadline(past)
		_ = pr.Stdin().SetWriteDeadline(past)
		_ = pr.Kill()
	}
	log.Info("provider started", logkey.Executable, cfg.Executable, logkey.Pid, pr.Pid())
	return p, nil
}

// Pid returns the process id, which is also its process group id.
func (p *Process) Pid() int { return p.proc.Pid() }

// Discard kills a process that was never sent a request, such as one
// started early whose configuration never came, and reaps it. It reports
// nothing: the process had no work to lose.
func (p *Process) Discard() {
	_ = p.proc.Kill()
	_ = p.Close()
}

// request is a validated request ready to send.
type request struct {
	kind, resourceType, resource string
	data                         []byte // the frame without its newline; its capacity holds the newline
	size                         *int   // if set, receives the response line's length
	id                           int    // the request's number in its process, once sent
	// buf is the pooled buffer data lies in, which release gives back
	// once the request is answered (see [encodeRequest]).
	buf *[]byte
}

// release gives r's encoding buffer back to [encodeBuffers]; r.data is
// not to be used after. Nothing keeps the frame past the call that sends
// it: the write is done when it returns, and errors name the request by
// its kind and resource, never by its bytes.
func (r *request) release() {
	if r.buf != nil {
		putEncodeBuffer(r.buf, r.data)
		r.buf, r.data = nil, nil
	}
}

// operationOf maps a request kind to the optional operation it belongs
// to, or "" for v0 requests.
func operationOf(kind string) schema.Operation {
	switch kind {
	case "destroyResourceRequest":
		return schema.OperationDestroy
	case "readResourceRequest":
		return schema.OperationRead
	case "importResourceRequest":
		return schema.OperationImport
	case "previewResourceRequest":
		return schema.OperationPreview
	}
	return ""
}

// prepare checks a request before any process is involved: exactly one
// message, an operation the provider declared, and a schema-valid frame
// (unless the provider validates it on receipt: see
// [Config.ReceiverValidates]).
func prepare(cfg Config, resource string, req *schema.Request) (request, error) {
	r := request{kind: req.Kind(), resourceType: req.ResourceType(), resource: resource}
	// who names the request in errors; only a failure pays for it.
	who := func() string { return subject(cfg.Name, cfg.Executable, r.kind, r.resourceType, resource) }
	if r.kind == "" {
		return r, fmt.Errorf("provider %q (%s): request for %s must set exactly one message", cfg.Name, cfg.Executable, resource)
	}
	if op := operationOf(r.kind); op != "" && !slices.Contains(cfg.Operations, op) {
		return r, fmt.Errorf("%s: %w: %q is not among the declared operations %v", who(), ErrNotDeclared, op, cfg.Operations)
	}
	data, buf, err := encodeRequest(req)
	if err != nil {
		return r, fmt.Errorf("%s: encode request: %w", who(), err)
	}
	r.data, r.buf = data, buf
	if !cfg.ReceiverValidates {
		if err := schema.ValidateRequest(data, cfg.Operations); err != nil {
			r.release()
			return r, fmt.Errorf("%s: pier built an invalid request: %w", who(), err)
		}
	}
	return r, nil
}

// encodeBuffers hold the buffers [encodeRequest] encodes into. A request
// is sent from its buffer and the buffer comes back once the call returns
// (see [request.release]), so that after the first few requests encoding
// one allocates nothing: copying each out of its buffer, as json.Marshal
// does, was 1.2 MB of the command's 19.9 MB allocated on a fresh apply of
// 1000 bridged resources.
var encodeBuffers = sync.Pool{New: func() any { return new([]byte) }}

// maxPooledBuffer is the largest encoding buffer put back in
// [encodeBuffers]: a request is mostly a resource's inputs and outputs, a
// few KiB; one that carried a large file's contents is let go rather than
// kept for the rest of the run.
const maxPooledBuffer = 64 << 10

// encodeRequest is json.Marshal(req), by [schema.Request.AppendJSON],
// into a buffer from [encodeBuffers], which it returns with the encoding:
// the caller gives it back with putEncodeBuffer once it is done with the
// bytes. The newline that ends the frame follows them, within their
// capacity: see [frame]. On an error the buffer is already back.
func encodeRequest(req *schema.Request) ([]byte, *[]byte, error) {
	buf, _ := encodeBuffers.Get().(*[]byte)
	b, err := req.AppendJSON((*buf)[:0])
	if err != nil {
		putEncodeBuffer(buf, b)
		return nil, nil, err
	}
	b = append(b, '\n')
	return b[:len(b)-1], buf, nil
}

// putEncodeBuffer gives back buf, which b (its contents, possibly
// regrown) now lies in, unless it grew past maxPooledBuffer.
func putEncodeBuffer(buf *[]byte, b []byte) {
	if cap(b) <= maxPooledBuffer {
		*buf = b[:0]
		encodeBuffers.Put(buf)
	}
}

// frame is data, as [encodeRequest] made it, with the newline that follows
// it, so that sending it copies nothing: [jsonl.WriteFrame] would
// otherwise copy each request to append one (1.9 MB of the command's
// 31 MB allocated on a fresh apply of 1000 bridged resources).
func frame(data []byte) []byte {
	if cap(data) > len(data) {
		if f := data[:len(data)+1]; f[len(data)] == '\n' {
			return f
		}
	}
	return data
}

// Call sends req for the resource at address resource and returns the
// provider's response. An errorResponse is returned as a [*ResponseError],
// a misbehaving process as an [*Error] (and the process is killed), an
// undeclared optional operation as an error wrapping [ErrNotDeclared].
// Cancelling ctx kills the process group.
func (p *Process) Call(ctx context.Context, resource string, req *schema.Request) (*schema.Response, error) {
	r, err := prepare(p.cfg, resource, req)
	if err != nil {
		return nil, err
	}
	defer r.release()
	return p.call(ctx, r, false)
}

// errExitedIdle is what call returns, sending nothing, when it finds
// that the process exited while idle: a [Pool] replaces it (or, holding,
// is lost).
var errExitedIdle = errors.New("provider process exited while idle")

// exited reports whether the process has exited (a failed one has). It
// costs a system call (see [proc.Process.HasExited]); exitChecks counts
// them, for the test that a request asks once.
func (p *Process) exited() bool {
	p.exitChecks.Add(1)
	return p.proc.HasExited()
}

// wasSent reports whether the process was ever sent a request.
func (p *Process) wasSent() bool { return p.sent.Load() }

// usable reports whether the process can take another request. It does
// not wait for a request in flight: a state handler's pool asks it of its
// process before every grant of a first request (see [Pool.LostErr]),
// and waiting there held the apply's scheduler for a whole state record.
func (p *Process) usable() bool { return !p.unusable.Load() }

// call sends r and reads its response. idle says a [Pool] calls with a
// process that was idle before r: then a process found to have exited
// before r was sent is not failed but answered with errExitedIdle, for
// the pool to replace; otherwise it fails with KindExited, as if r had
// been sent.
func (p *Process) call(ctx context.Context, r request, idle bool) (*schema.Response, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	who := func() string { return subject(p.cfg.Name, p.cfg.Executable, r.kind, r.resourceType, r.resource) }
	switch {
	case p.closed:
		return nil, fmt.Errorf("%s: %w", who(), ErrClosed)
	case p.failed != nil:
		return nil, fmt.Errorf("%s: process unusable after an earlier failure: %w", who(), p.failed)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", who(), err)
	}
	p.stderr.setRequest(r.resource, 0)
	defer p.stderr.setRequest("", 0)

	exited, pending := p.preflight(idle)
	if exited && idle {
		return nil, errExitedIdle
	}
	if line, ok := p.readPending(pending); ok {
		return nil, p.fail(r, KindBadOutput, fmt.Errorf("extra output after the previous response, before this request was sent: %s", snippet(line)))
	}
	if exited {
		return nil, p.fail(r, KindExited, errors.New("exited before responding"))
	}

	// Cancellation unblocks the write or read below and kills the group.
	stop := context.AfterFunc(ctx, p.abandon)
	defer stop()
	stopped := func() bool { return stop() || ctx.Err() == nil }

	deadline := time.Now().Add(p.cfg.Timeout)
	p.requests++
	r.id = p.requests
	p.stderr.setRequest(r.resource, r.id)
	if p.debug() {
		p.log.Debug("request", logkey.RequestID, r.id, logkey.Resource, r.resource, logkey.Op, r.kind, logkey.Bytes, len(r.data))
	}
	p.guard.watch()
	unwatch := p.guard.unwatch
	p.sent.Store(true)
	_ = p.proc.Stdin().SetWriteDeadline(deadline)
	if err := jsonl.WriteFrame(p.in, frame(r.data)); err != nil {
		return nil, p.failIO(ctx, r, unwatch(), fmt.Errorf("send request: %w", err))
	}
	_ = p.proc.Stdout().SetReadDeadline(deadline)
	line, err := p.out.ReadFrameLimit(p.cfg.responseLimit(r.kind))
	if exited := unwatch(); err != nil {
		return nil, p.failIO(ctx, r, exited, err)
	}
	if r.size != nil {
		*r.size = len(line)
	}
	// The read deadline stays: nothing reads stdout between requests, and
	// whatever reads it next sets its own (readPending, the next request,
	// Close).
	// One poll asks both pipes what the two checks below need: whether
	// stderr has lines still to log, and whether stdout has output after
	// the response. Output that arrives later is caught before the next
	// request, or by Close.
	extraReady, stderrIdle := p.pollPipes()
	p.stderr.settleFrom(stderrIdle) // log what the provider wrote before answering under this resource
	if !stopped() {
		// Cancelled just as the response arrived: the kill is under way.
		return nil, p.fail(r, KindCanceled, fmt.Errorf("request abandoned: %w", context.Cause(ctx)))
	}

	resp, err := p.decode(r, line)
	if err != nil {
		return nil, err
	}
	if extra, ok := p.readPending(extraReady); ok {
		return nil, p.fail(r, KindBadOutput, fmt.Errorf("extra output after the response (a provider writes exactly one line per request): %s", snippet(extra)))
	}
	if resp.ErrorResponse != nil {
		return nil, &ResponseError{
			Provider: p.cfg.Name, Executable: p.cfg.Executable, Request: r.kind,
			ResourceType: r.resourceType, Resource: r.resource, Message: termtext.Printable(resp.ErrorResponse.Message),
		}
	}
	return resp, nil
}

// failIO classifies a failed write or read; exited says the process had
// exited and the watcher ended the I/O.
func (p *Process) failIO(ctx context.Context, r request, exited bool, err error) *Error {
	var tooLarge *jsonl.FrameTooLargeError
	switch {
	case ctx.Err() != nil:
		return p.fail(r, KindCanceled, fmt.Errorf("request abandoned: %w", context.Cause(ctx)))
	case exited && errors.Is(err, os.ErrDeadlineExceeded):
		return p.fail(r, KindExited, errors.New("exited before responding; a process it started still holds its pipes"))
	case errors.Is(err, os.ErrDeadlineExceeded):
		return p.fail(r, KindTimeout, fmt.Errorf("no response within %s", p.cfg.Timeout))
	case errors.As(err, &tooLarge):
		return p.fail(r, KindTooLarge, fmt.Errorf("response line exceeds the %d byte limit: %w", tooLarge.Max, jsonl.ErrFrameTooLarge))
	case errors.Is(err, io.EOF):
		return p.fail(r, KindExited, errors.New("exited before responding"))
	case errors.Is(err, io.ErrUnexpectedEOF):
		return p.fail(r, KindExited, errors.New("exited in the middle of a response line"))
	}
	// A broken pipe on send means the process is gone; read its status.
	return p.fail(r, KindExited, fmt.Errorf("exited before responding: %w", err))
}

// decode checks a response line: JSON, schema-valid, and of the kind that
// answers the request (or errorResponse).
func (p *Process) decode(r request, line []byte) (*schema.Response, error) {
	// encoding/json would turn each invalid byte into U+FFFD, and pier
	// would record an id that no longer names the object.
	if !utf8.Valid(line) {
		return nil, p.fail(r, KindBadOutput, fmt.Errorf("response is not valid UTF-8 (first invalid byte at offset %d); JSON text is UTF-8, so the provider must escape or encode binary data", invalidUTF8At(line)))
	}
	// One parse validates and decodes: a state read carries the whole
	// state, and this runs on every plan.
	resp, err := schema.DecodeResponse(line, p.cfg.Operations)
	if err != nil {
		return nil, p.failDecode(r, line, err)
	}
	want, got := schema.ResponseKind(r.kind), resp.Kind()
	if got != want && got != "errorResponse" {
		return nil, p.fail(r, KindWrongKind, fmt.Errorf("response is %s, want %s or errorResponse", got, want))
	}
	if p.debug() {
		p.log.Debug("response", logkey.RequestID, r.id, logkey.Resource, r.resource, logkey.Op, got, logkey.Bytes, len(line))
	}
	if pr := resp.PreviewResourceResponse; pr != nil {
		// Diagnostics are shown to people, like an error's message.
		for i := range pr.Diagnostics {
			pr.Diagnostics[i].Summary = termtext.Printable(pr.Diagnostics[i].Summary)
			pr.Diagnostics[i].Detail = termtext.Printable(pr.Diagnostics[i].Detail)
		}
	}
	return resp, nil
}

// failDecode fails the process for a response that does not decode. It
// is apart from decode so that the target of errors.As is allocated only
// for a failure.
func (p *Process) failDecode(r request, line []byte, err error) *Error {
	var invalid *schema.ValidationError
	if errors.As(err, &invalid) {
		return p.fail(r, KindInvalid, fmt.Errorf("response does not match the protocol schema: %w", err))
	}
	return p.fail(r, KindBadOutput, fmt.Errorf("response is not JSON (%v): %s", err, snippet(line)))
}

// debug reports whether debug records are logged: a record's arguments
// cost allocations at the call, whether it is logged or not, and a
// request logs two.
func (p *Process) debug() bool { return p.log.Enabled(context.Background(), slog.LevelDebug) }

// fail kills and reaps the process and records why. The caller holds mu.
func (p *Process) fail(r request, kind ErrorKind, cause error) *Error {
	if kind != KindExited {
		_ = p.proc.Kill()
	}
	p.reap(exitWait)
	e := &Error{
		Provider: p.cfg.Name, Executable: p.cfg.Executable, Request: r.kind,
		ResourceType: r.resourceType, Resource: r.resource, Kind: kind,
		ExitStatus: p.proc.ExitStatus(), ExitCode: p.proc.ExitCode(), Stderr: p.stderr.lines(), Err: cause,
	}
	p.failed = e
	p.unusable.Store(true)
	p.log.Debug("provider process failed", logkey.RequestID, r.id, logkey.Resource, r.resource, logkey.Kind, kind.String(), logkey.ExitStatus, e.ExitStatus)
	return e
}

// reap drains stderr (bounded), waits up to grace for the process to exit
// (then kills it), kills any descendants left in its group, and waits for
// the stderr goroutine. It returns the process's exit error.
func (p *Process) reap(grace time.Duration) error {
	p.stderr.wait(stderrDrainTimeout)
	err := p.proc.Wait(grace)
	<-p.stderr.done // reaping closed the pipe, so this is prompt
	return err
}

// preflight asks, before a request is sent and without blocking, whether
// the process has exited and whether stdout has output waiting (or
// buffered), which nobody asked for. With an exit file one poll asks
// both; without, checkExit (a process that was idle in a pool) asks
// waitid first, and exited is false for any other. The caller holds mu.
func (p *Process) preflight(checkExit bool) (exited, pending bool) {
	pending = p.out.Buffered() > 0
	var out *os.File
	if !pending {
		out = p.proc.Stdout()
	}
	if p.exitFile != nil {
		p.exitChecks.Add(1)
		ready, asked := pollIn([3]*os.File{out, p.exitFile})
		if asked[1] {
			return ready[1], pending || ready[0]
		}
		// Closed: the process was reaped, which HasExited knows.
		return p.proc.HasExited(), pending || ready[0]
	}
	if checkExit && p.exited() {
		return true, pending
	}
	return false, pending || out != nil && readable(out)
}

// pollPipes asks, in one poll, whether stdout has output waiting (or
// buffered) and whether the stderr forwarder is idle: caught up, with
// nothing left in its pipe. The caller holds mu.
func (p *Process) pollPipes() (stdoutReady, stderrIdle bool) {
	stdoutReady = p.out.Buffered() > 0
	caughtUp := p.stderr.caughtUp()
	var out, errPipe *os.File
	if !stdoutReady {
		out = p.proc.Stdout()
	}
	if caughtUp {
		errPipe = p.stderr.pipe
	}
	if out == nil && errPipe == nil {
		return true, false
	}
	outReady, errReady := readableBoth(out, errPipe)
	return stdoutReady || outReady, caughtUp && !errReady
}

// readPending reads what pendingOutput found when ready says stdout has
// output waiting. The caller holds mu.
func (p *Process) readPending(ready bool) ([]byte, bool) {
	if !ready {
		return nil, false
	}
	_ = p.proc.Stdout().SetReadDeadline(time.Now().Add(pendingReadTimeout))
	line, _ := p.out.ReadFrame()
	_ = p.proc.Stdout().SetReadDeadline(time.Time{})
	return line, true
}

// snippet quotes the start of a line for an error message.
// invalidUTF8At returns the offset of the first byte that is not part of
// a valid UTF-8 sequence.
func invalidUTF8At(b []byte) int {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return -1
}

func snippet(line []byte) string {
	const max = 120
	if len(line) > max {
		return fmt.Sprintf("%q… (%d bytes)", line[:max], len(line))
	}
	return fmt.Sprintf("%q", line)
}

// Close stops the process: it closes stdin (the v0 protocol's only stop
// signal), waits up to Config.CloseGrace for the process to exit, then
// kills its process group, and reaps it. It reports a provider that wrote
// unrequested output or exited with a non-zero status. Close waits for a
// request in flight to finish; it is idempotent.
func (p *Process) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil
	}
	p.closed = true
	p.unusable.Store(true)
	if p.failed != nil {
		return nil // already killed and reaped when it failed
	}
	_ = p.proc.CloseStdin()

	// Drain stdout: anything there now is output nobody asked for. The
	// last request's read deadline may have passed since.
	_ = p.proc.Stdout().SetReadDeadline(time.Time{})
	var extra []byte
	outDone := make(chan struct{})
	go func() {
		defer close(outDone)
		for {
			line, err := p.out.ReadFrame()
			if len(line) > 0 && extra == nil {
				extra = slices.Clone(line)
			}
			if err != nil {
				return
			}
		}
	}()
	grace := time.NewTimer(p.cfg.CloseGrace)
	defer grace.Stop()
	killed := false
	select {
	case <-p.proc.Exited():
	case <-grace.C:
		p.log.Warn("provider did not exit after its stdin was closed; killing it", logkey.Grace, p.cfg.CloseGrace.String(), logkey.Pid, p.proc.Pid())
		_ = p.proc.Kill()
		killed = true
	}
	// Give the pipes a bounded moment to deliver the last lines before
	// reaping closes them.
	drain := time.NewTimer(stderrDrainTimeout)
	select {
	case <-outDone:
	case <-drain.C:
	}
	drain.Stop()
	waitErr := p.reap(0)
	<-outDone
	p.log.Info("provider stopped", logkey.Pid, p.proc.Pid(), logkey.ExitStatus, p.proc.ExitStatus())

	switch {
	case extra != nil:
		return &Error{Provider: p.cfg.Name, Executable: p.cfg.Executable, Kind: KindBadOutput,
			ExitStatus: p.proc.ExitStatus(), ExitCode: p.proc.ExitCode(), Stderr: p.stderr.lines(),
			Err: fmt.Errorf("unrequested output after the last response: %s", snippet(extra))}
	case waitErr != nil && !killed:
		return &Error{Provider: p.cfg.Name, Executable: p.cfg.Executable, Kind: KindExited,
			ExitStatus: p.proc.ExitStatus(), ExitCode: p.proc.ExitCode(), Stderr: p.stderr.lines(),
			Err: errors.New("exited unsuccessfully after its stdin was closed")}
	}
	return nil
}
