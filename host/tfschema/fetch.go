package tfschema

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pierhq/pier/host/internal/proc"
	"github.com/pierhq/pier/host/internal/termtext"
	"github.com/pierhq/pier/schema"
	"github.com/pierhq/pier/schema/logkey"
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

// Fetcher runs the Terraform providers of one pier command: one `pier tf
// hold --plugin PATH` per plugin path and provider configuration, started
// on first use and kept until Close. The holder starts the provider and
// reads its schema once; the plan's checks get the schema ([Fetcher.Schema])
// and every bridge attaches to the same provider process
// ([Fetcher.Attachment]), so a command starts each Terraform provider
// once. A failure is remembered too, so that a broken plugin is reported
// once, not once per resource. It is safe for concurrent use.
type Fetcher struct {
	// Pier is pier's own executable.
	Pier string
	// Dir is the working directory of the command: the deployment's.
	Dir string
	// Timeout bounds starting a provider and reading its schema, and
	// configuring it; 0 means [DefaultTimeout].
	Timeout time.Duration
	// Logger receives the holders' stderr (the providers' logs), one
	// record per line; nil discards.
	Logger *slog.Logger

	mu    sync.Mutex
	cache map[string]*holder
}

// holder is one running `pier tf hold`.
type holder struct {
	plugin string
	done   chan struct{} // closed once started, or failed to
	schema *Schema
	attach json.RawMessage // for bridges; holds a TLS key, never logged
	err    error

	p      *proc.Process
	out    *bufio.Reader
	stderr *tailWriter // guarded by stderrMu
	// stderrDone is closed when the holder's stderr reaches end of file.
	stderrDone chan struct{}
	stderrMu   sync.Mutex

	stopOnce sync.Once
	stopErr  error

	cmu          sync.Mutex // one configure exchange at a time
	configured   bool
	configureErr error // the exchange failed: the holder is stopped
	// bridgeAttach is attach plus, when the provider rejected its
	// configuration, its error (configure_error).
	bridgeAttach json.RawMessage
}

// Fetches counts the providers started so far, for tests and progress.
func (f *Fetcher) Fetches() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.cache)
}

// Schema returns the schema of the Terraform provider at plugin, starting
// it (with configuration config, JSON; nil is none) on first use.
// Concurrent callers for one plugin wait for the same start.
func (f *Fetcher) Schema(ctx context.Context, plugin string, config []byte) (*Schema, error) {
	h, err := f.hold(ctx, plugin, config)
	if err != nil {
		return nil, err
	}
	return h.schema, nil
}

// Attachment returns what `pier adapter terraform --attach` reads on its
// configuration descriptor to use the provider at plugin with
// configuration config, starting and configuring the provider first if
// needed. When the provider rejects its configuration, the attachment
// carries the provider's error for the bridge to report on each request
// that needs a configured provider, as a bridge that configures it itself
// would: requests that need none, such as validating a resource's inputs,
// still answer. It holds a secret: pass it on a pipe only.
func (f *Fetcher) Attachment(ctx context.Context, plugin string, config []byte) ([]byte, error) {
	h, err := f.hold(ctx, plugin, config)
	if err != nil {
		return nil, err
	}
	if err := h.configure(ctx, f.timeout()); err != nil {
		return nil, err
	}
	return h.bridgeAttach, nil
}

func (f *Fetcher) timeout() time.Duration {
	if f.Timeout > 0 {
		return f.Timeout
	}
	return DefaultTimeout
}

func (f *Fetcher) hold(ctx context.Context, plugin string, config []byte) (*holder, error) {
	h, fresh := f.entry(plugin, config)
	if fresh {
		// Not ctx: the holder outlives the caller that happened to start
		// it, and a cancelled caller must not fail the others.
		h.err = f.start(h, config)
		close(h.done)
	}
	select {
	case <-h.done:
		return h, h.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Start starts the Terraform provider at plugin with configuration
// config, as the first [Fetcher.Schema] or [Fetcher.Attachment] for them
// would, without waiting for its schema: the holder's process is running
// when Start returns, so that what the caller starts next (the bridges
// that will attach to it) does not delay it. Those calls then wait for
// it, and report what failed.
func (f *Fetcher) Start(plugin string, config []byte) {
	h, fresh := f.entry(plugin, config)
	if !fresh {
		return
	}
	if err := f.spawn(h, config); err != nil {
		h.err = err
		close(h.done)
		return
	}
	go func() {
		h.err = f.first(h)
		close(h.done)
	}()
}

// entry returns the holder for plugin and config, and whether it is new:
// then the caller starts it, and closes its done.
func (f *Fetcher) entry(plugin string, config []byte) (*holder, bool) {
	key := plugin + "\x00" + string(config)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.cache == nil {
		f.cache = map[string]*holder{}
	}
	h, ok := f.cache[key]
	if !ok {
		h = &holder{plugin: plugin, done: make(chan struct{})}
		f.cache[key] = h
	}
	return h, !ok
}

// start runs the holder and reads its first line: the schema and the
// attachment.
func (f *Fetcher) start(h *holder, config []byte) error {
	if err := f.spawn(h, config); err != nil {
		return err
	}
	return f.first(h)
}

// spawn starts the holder's process.
func (f *Fetcher) spawn(h *holder, config []byte) error {
	p, err := proc.Start(proc.Spec{Path: f.Pier, Args: []string{"tf", "hold", "--plugin", h.plugin}, Dir: f.Dir, ConfigData: config})
	if err != nil {
		return fmt.Errorf("read the schema of Terraform provider %s: %w", h.plugin, err)
	}
	h.p = p
	h.out = bufio.NewReaderSize(p.Stdout(), 64<<10)
	h.stderr = &tailWriter{max: stderrTail, buf: &bytes.Buffer{}}
	h.stderrDone = make(chan struct{})
	log := f.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	log = log.With(logkey.TerraformProvider, h.plugin)
	go h.copyStderr(log)
	return nil
}

// first reads the holder's first line: the schema and the attachment.
func (f *Fetcher) first(h *holder) error {
	timeout := f.timeout()
	line, err := h.readLine(timeout, maxSchemaSize)
	if err != nil {
		return h.fail(err, timeout)
	}
	var first struct {
		MessageType string          `json:"message_type"`
		Schema      json.RawMessage `json:"schema"`
		Attach      json.RawMessage `json:"attach"`
	}
	if err := json.Unmarshal(line, &first); err != nil || first.MessageType != "tf_hold" {
		h.stop()
		return fmt.Errorf("read the schema of Terraform provider %s: pier tf hold wrote something other than a tf_hold message", h.plugin)
	}
	s, err := Parse(first.Schema)
	if err != nil {
		h.stop()
		return fmt.Errorf("read the schema of Terraform provider %s: %w", h.plugin, err)
	}
	h.schema, h.attach = s, first.Attach
	return nil
}

// errTooLong reports an over-long line from the holder.
var errTooLong = errors.New("line too long")

// readLine reads one line from the holder within timeout, and within
// pipeDrain of the holder's exit: a descendant that left its process group
// may hold the pipe open for ever.
func (h *holder) readLine(timeout time.Duration, limit int) ([]byte, error) {
	out := h.p.Stdout()
	deadline := time.Now().Add(timeout)
	_ = out.SetReadDeadline(deadline)
	defer func() { _ = out.SetReadDeadline(time.Time{}) }()
	var exited atomic.Bool
	watch := make(chan struct{})
	defer close(watch)
	go func() {
		select {
		case <-h.p.Exited():
			exited.Store(true)
			if d := time.Now().Add(pipeDrain); d.Before(deadline) {
				_ = out.SetReadDeadline(d)
			}
		case <-watch:
		}
	}()
	var line []byte
	for {
		chunk, err := h.out.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > limit {
			return nil, errTooLong
		}
		switch {
		case err == nil:
			return line, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, os.ErrDeadlineExceeded) && !exited.Load():
			return nil, context.DeadlineExceeded
		case errors.Is(err, os.ErrDeadlineExceeded):
			return nil, io.ErrUnexpectedEOF
		default:
			return nil, err
		}
	}
}

// fail stops a holder whose output broke off and explains why, from its
// exit status and the last of its stderr.
func (h *holder) fail(err error, timeout time.Duration) error {
	if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		_ = h.p.Kill() // hung, or misbehaving: no grace
	}
	werr := h.stop()
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("read the schema of Terraform provider %s: no answer within %s", h.plugin, timeout)
	case errors.Is(err, errTooLong):
		return fmt.Errorf("read the schema of Terraform provider %s: schema larger than %d MiB", h.plugin, maxSchemaSize>>20)
	case werr != nil:
		return fmt.Errorf("read the schema of Terraform provider %s: pier tf hold: %s: %s", h.plugin, h.p.ExitStatus(), lastError(h.stderrText()))
	}
	return fmt.Errorf("read the schema of Terraform provider %s: pier tf hold ended its output early: %s", h.plugin, lastError(h.stderrText()))
}

func (h *holder) copyStderr(log *slog.Logger) {
	defer close(h.stderrDone)
	sc := bufio.NewScanner(h.p.Stderr())
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		text := termtext.Printable(sc.Text()) // the terminal gets no escape sequences
		h.stderrMu.Lock()
		h.stderr.Write([]byte(text))
		h.stderr.Write([]byte("\n"))
		h.stderrMu.Unlock()
		log.Log(context.Background(), termtext.LineLevel(sc.Text()), text)
	}
	_, _ = io.Copy(io.Discard, h.p.Stderr())
}

func (h *holder) stderrText() string {
	h.stderrMu.Lock()
	defer h.stderrMu.Unlock()
	return h.stderr.buf.String()
}

// configure asks the holder to configure its provider, once; a failure
// is remembered unless it was a timeout.
func (h *holder) configure(ctx context.Context, timeout time.Duration) error {
	h.cmu.Lock()
	defer h.cmu.Unlock()
	if h.configured {
		return nil
	}
	if h.configureErr != nil {
		return h.configureErr
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if _, err := h.p.Stdin().Write([]byte("{\"configure\":true}\n")); err != nil {
		h.configureErr = h.fail(err, timeout)
		return h.configureErr
	}
	line, err := h.readLine(timeout, 1<<20)
	if err != nil {
		h.configureErr = fmt.Errorf("configure Terraform provider %s: %w", h.plugin, h.fail(err, timeout))
		return h.configureErr
	}
	var resp struct {
		Configured bool   `json:"configured"`
		Error      string `json:"error"`
	}
	if err := json.Unmarshal(line, &resp); err != nil || (!resp.Configured && resp.Error == "") {
		h.configureErr = fmt.Errorf("configure Terraform provider %s: pier tf hold answered something else", h.plugin)
		return h.configureErr
	}
	h.bridgeAttach = h.attach
	if resp.Error != "" {
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(h.attach, &fields); err != nil {
			h.configureErr = fmt.Errorf("configure Terraform provider %s: pier tf hold wrote a malformed attachment", h.plugin)
			return h.configureErr
		}
		fields["configure_error"], _ = json.Marshal(resp.Error)
		if h.bridgeAttach, err = json.Marshal(fields); err != nil {
			h.configureErr = fmt.Errorf("configure Terraform provider %s: %w", h.plugin, err)
			return h.configureErr
		}
	}
	h.configured = true
	return nil
}

// Validate checks a resource's inputs of type typ with the Terraform
// provider at plugin, unconfigured, as terraform validate does (see
// terraform.Bridge.Validate), starting the provider on first use. The
// diagnostics are what the provider refused, each with the attribute it
// names; none means valid.
func (f *Fetcher) Validate(ctx context.Context, plugin, typ string, inputs map[string]any) ([]schema.Diagnostic, error) {
	h, err := f.hold(ctx, plugin, nil)
	if err != nil {
		return nil, err
	}
	req, err := json.Marshal(map[string]any{"validate": map[string]any{"type": typ, "inputs": inputs}})
	if err != nil {
		return nil, fmt.Errorf("validate with Terraform provider %s: encode the inputs: %w", h.plugin, err)
	}
	timeout := f.timeout()
	h.cmu.Lock()
	defer h.cmu.Unlock()
	if h.configureErr != nil {
		return nil, h.configureErr
	}
	if _, err := h.p.Stdin().Write(append(req, '\n')); err != nil {
		return nil, fmt.Errorf("validate with Terraform provider %s: %w", h.plugin, h.fail(err, timeout))
	}
	line, err := h.readLine(timeout, maxSchemaSize)
	if err != nil {
		return nil, fmt.Errorf("validate with Terraform provider %s: %w", h.plugin, h.fail(err, timeout))
	}
	var resp struct {
		Diagnostics []schema.Diagnostic `json:"diagnostics"`
		Error       string              `json:"error"`
	}
	if err := json.Unmarshal(line, &resp); err != nil {
		return nil, fmt.Errorf("validate with Terraform provider %s: pier tf hold answered something else", h.plugin)
	}
	if resp.Error != "" {
		return nil, fmt.Errorf("validate with Terraform provider %s: %s", h.plugin, resp.Error)
	}
	return resp.Diagnostics, nil
}

// stop ends the holder: closing its stdin stops the provider, then it
// exits; after pipeDrain*2 it is killed.
func (h *holder) stop() error {
	h.stopOnce.Do(func() {
		_ = h.p.CloseStdin()
		go func() { _, _ = io.Copy(io.Discard, h.out) }()
		select {
		case <-h.stderrDone:
		case <-time.After(2 * pipeDrain):
		}
		h.stopErr = h.p.Wait(2 * pipeDrain)
	})
	return h.stopErr
}

// Close stops every provider the fetcher started and waits for them; a
// later use starts them afresh.
func (f *Fetcher) Close() error {
	f.mu.Lock()
	hs := f.cache
	f.cache = nil
	f.mu.Unlock()
	var wg sync.WaitGroup
	errs := make([]error, 0, len(hs))
	var emu sync.Mutex
	for _, h := range hs {
		wg.Go(func() {
			<-h.done
			h.cmu.Lock()
			failed := h.configureErr != nil
			h.cmu.Unlock()
			if h.err != nil || h.p == nil || failed {
				return // stopped, and reported, when it failed
			}
			if err := h.stop(); err != nil {
				emu.Lock()
				errs = append(errs, fmt.Errorf("stop Terraform provider %s: pier tf hold: %s: %s", h.plugin, h.p.ExitStatus(), lastError(h.stderrText())))
				emu.Unlock()
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
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
