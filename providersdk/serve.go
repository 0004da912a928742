package providersdk

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"

	"runtime/debug"

	"github.com/pierhq/pier/schema"
	"github.com/pierhq/pier/schema/jsonl"
	"github.com/pierhq/pier/schema/logkey"
)

// Options configures [Serve] and [ServeIO]. The zero value is ready to use.
type Options struct {
	// MaxLineSize bounds one request line in bytes; 0 means
	// [DefaultMaxLineSize]. A longer line is answered with an errorResponse
	// and skipped.
	MaxLineSize int
	// Logger receives the SDK's own logs: lifecycle at Info, one line per
	// request at Debug (kind, type and request id, never property
	// values, which may be secret). nil discards them.
	Logger *slog.Logger
	// HostValidates says the host checks every response against the v0
	// schema itself, as pier's does, so ServeIO skips its own check of
	// each response: the same work would be done twice, and a response
	// can be as large as the whole state. pier's own adapters set it; a
	// provider whose host may not validate should leave it false.
	HostValidates bool
}

// Serve runs the provider on the process's stdin and stdout; see [ServeIO].
// Call it from main. Stdout must carry only frames, so Serve first takes it
// with [TakeStdout]: while serving, anything else written to stdout goes to
// stderr. It takes stdin with [TakeStdin], so programs the provider starts
// read /dev/null. Use [Logger] for diagnostics.
func Serve(ctx context.Context, h Handler, opts Options) (err error) {
	requests, releaseStdin, err := TakeStdin()
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, releaseStdin()) }()
	frames, release, err := TakeStdout()
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, release()) }()
	return ServeIO(ctx, h, requests, frames, opts)
}

// ServeIO reads requests from in, one JSON value per line, and writes
// exactly one response line to out for each, before reading the next.
//
// Each request is validated against the v0 schema, accepting the optional
// operations h implements ([Operations]); an invalid request, an over-long
// line, a handler error or a handler panic becomes an errorResponse and
// serving continues. Unless [Options.HostValidates], each response is
// validated too: a handler that returns something the schema forbids gets
// an errorResponse saying so, since the host would reject it anyway.
//
// A handler error that wraps [ErrOutcomeUnknown] is the exception: the
// request is not answered, and ServeIO returns an [*OutcomeUnknownError]
// at once. The caller must then exit non-zero, so that the host sees the
// provider die mid-request and keeps the operation as one that may have
// happened.
//
// ServeIO returns nil when in reaches its end (the host closed stdin), an
// error when reading in or writing out fails, and ctx's error once ctx is
// done. In the last case it does not wait for a Read blocked in in; the
// goroutine doing that read ends when in returns.
func ServeIO(ctx context.Context, h Handler, in io.Reader, out io.Writer, opts Options) error {
	in, out = quietReader(in), quietWriter(out)
	s := newServer(h, opts)
	s.log.Debug("provider serving", logkey.Operations, s.ops)

	type frame struct {
		line []byte
		err  error
	}
	// The reader goroutine reads the next line only once the loop is done
	// with the last (more): a line is the reader's buffer, not a copy,
	// and a state event can be as large as the state.
	frames := make(chan frame)
	more := make(chan struct{})
	done := make(chan struct{})
	defer close(done)
	lr := newLineReader(in, s.max)
	go func() {
		for {
			line, err := lr.next()
			select {
			case frames <- frame{line, err}:
			case <-done:
				return
			}
			var tooLarge *jsonl.FrameTooLargeError
			if err != nil && !errors.As(err, &tooLarge) {
				return
			}
			select {
			case <-more:
			case <-done:
				return
			}
		}
	}()

	for seq := 1; ; seq++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		var f frame
		select {
		case <-ctx.Done():
			return ctx.Err()
		case f = <-frames:
		}
		var resp []byte
		var tooLarge *jsonl.FrameTooLargeError
		switch {
		case f.err == nil:
			var unknown *OutcomeUnknownError
			if resp, unknown = s.handle(ctx, seq, f.line); unknown != nil {
				return unknown
			}
		case errors.Is(f.err, io.EOF):
			s.log.Info("provider input closed, exiting")
			return nil
		case errors.As(f.err, &tooLarge):
			s.log.Warn("request line too large", logkey.RequestID, seq, logkey.Read, tooLarge.Read, logkey.Limit, tooLarge.Max)
			resp = s.errorFrame(tooLarge.Error())
		default:
			return fmt.Errorf("read request %d: %w", seq, f.err)
		}
		if _, err := out.Write(resp); err != nil {
			return fmt.Errorf("write response %d: %w", seq, err)
		}
		more <- struct{}{} // the reader waits for it: it did not stop on this frame
	}
}

// server holds what stays fixed while serving one stream.
type server struct {
	h   Handler
	ops []schema.Operation
	max int
	log *slog.Logger
	// checkResponses validates each response before it is sent.
	checkResponses bool
	// out holds the last response frame handle encoded, reused: ServeIO
	// writes each frame before it handles the next request.
	out []byte
}

func newServer(h Handler, opts Options) *server {
	s := &server{h: h, ops: Operations(h), max: opts.MaxLineSize, log: opts.Logger, checkResponses: !opts.HostValidates}
	if s.max <= 0 {
		s.max = DefaultMaxLineSize
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	return s
}

// handle answers one request line with one response line, newline
// included, or with an [*OutcomeUnknownError] when it must not answer. The
// line may be the server's own buffer: write it before the next handle.
func (s *server) handle(ctx context.Context, seq int, line []byte) ([]byte, *OutcomeUnknownError) {
	ctx = context.WithValue(ctx, requestIDKey{}, seq)
	// One parse validates and decodes, numbers as json.Number so that
	// integers beyond 2^53 stay exact on their way through.
	req, err := schema.DecodeRequest(line, s.ops)
	if err != nil {
		var invalid *schema.ValidationError
		if !errors.As(err, &invalid) {
			// The schema accepted it, so this is a gap between schema and types.
			return s.errorFrame(fmt.Sprintf("decode request: %v", err)), nil
		}
		s.log.Warn("invalid request", logkey.RequestID, seq, logkey.Error, err)
		return s.errorFrame(err.Error()), nil
	}
	kind, typ := req.Kind(), req.ResourceType()
	s.log.Debug("request", logkey.RequestID, seq, logkey.Op, kind, logkey.Type, typ)

	frame, ok, err := s.encodedState(ctx, seq, req)
	if ok {
		return frame, nil
	}
	var resp *schema.Response
	if err == nil {
		resp, err = s.dispatch(ctx, req)
	}
	if err != nil {
		if errors.Is(err, ErrOutcomeUnknown) {
			return nil, &OutcomeUnknownError{Seq: seq, Op: opName(kind), Type: typ, Err: err}
		}
		s.log.Debug("operation failed", logkey.RequestID, seq, logkey.Op, kind, logkey.Type, typ, logkey.Error, err)
		msg := fmt.Sprintf("%s %s: %v", opName(kind), typ, err)
		var locked interface{ StateLocked() bool }
		if errors.As(err, &locked) && locked.StateLocked() {
			// The host tells a lock conflict by this prefix alone.
			msg = schema.StateLockedPrefix + msg
		}
		return s.errorFrame(msg), nil
	}
	// Encoded as json.Marshal does (HTML escaped too), by hand, with the
	// newline, into the server's buffer: no copy of the frame per
	// response.
	data, err := resp.AppendJSON(s.out[:0])
	if err != nil {
		return s.errorFrame(fmt.Sprintf("%s %s: encode response: %v", opName(kind), typ, err)), nil
	}
	data = append(data, '\n')
	s.out = data
	if !s.checkResponses {
		return data, nil
	}
	if err := schema.ValidateResponse(data[:len(data)-1], s.ops); err != nil {
		s.log.Error("handler returned an invalid response", logkey.RequestID, seq, logkey.Op, kind, logkey.Type, typ, logkey.Error, err)
		return s.errorFrame(fmt.Sprintf("%s %s: the provider produced an %v (this is a bug in the provider)", opName(kind), typ, err)), nil
	}
	return data, nil
}

// encodedState answers a state read from an [EncodedStateReader]'s bytes,
// when the handler is one and has them: the frame is built around them
// instead of encoding the document again. With ok and err both unset the
// request is left to dispatch; a handler's error (or panic) is returned
// for handle to answer, as dispatch's are.
func (s *server) encodedState(ctx context.Context, seq int, req *schema.Request) (frame []byte, ok bool, err error) {
	er, is := s.h.(EncodedStateReader)
	if !is || req.StateResourceReadRequest == nil {
		return nil, false, nil
	}
	state, ok, err := func() (state []byte, ok bool, err error) {
		defer func() {
			if r := recover(); r != nil {
				s.log.Error("handler panicked", logkey.RequestID, RequestID(ctx), logkey.Panic, fmt.Sprint(r), logkey.Stack, string(debug.Stack()))
				state, ok, err = nil, false, fmt.Errorf("panic: %v (this is a bug in the provider)", r)
			}
		}()
		return er.StateReadEncoded(ctx, req.StateResourceReadRequest)
	}()
	if err != nil || !ok {
		return nil, false, err
	}
	// A frame is one line: the encoding must not break it.
	if bytes.ContainsAny(state, "\r\n") {
		var buf bytes.Buffer
		if err := json.Compact(&buf, state); err != nil {
			return nil, false, fmt.Errorf("encoded state: %w", err)
		}
		state = buf.Bytes()
	}
	const head, tail = `{"stateResourceReadResponse":{"state":`, "}}\n"
	frame = make([]byte, 0, len(head)+len(state)+len(tail))
	frame = append(append(append(frame, head...), state...), tail...)
	if s.checkResponses {
		if err := schema.ValidateResponse(frame[:len(frame)-1], s.ops); err != nil {
			s.log.Error("handler returned an invalid response", logkey.RequestID, seq, logkey.Op, req.Kind(), logkey.Error, err)
			return nil, false, fmt.Errorf("the provider produced an %v (this is a bug in the provider)", err)
		}
	}
	return frame, true, nil
}

// errorFrame encodes an errorResponse line.
func (s *server) errorFrame(msg string) []byte {
	data, err := json.Marshal(schema.Response{ErrorResponse: &schema.ErrorResponse{Message: msg}})
	if err != nil {
		panic("encode errorResponse: " + err.Error() + ": this is a bug in pier")
	}
	return append(data, '\n')
}

// errNilResponse is what a handler that returned neither a response nor an
// error gets.
var errNilResponse = errors.New("handler returned no response and no error (this is a bug in the provider)")

// dispatch calls the handler method for the request's kind. A panic in the
// handler is turned into an error so that one bad resource cannot take down
// a provider process that others share.
func (s *server) dispatch(ctx context.Context, req *schema.Request) (resp *schema.Response, err error) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("handler panicked", logkey.RequestID, RequestID(ctx), logkey.Panic, fmt.Sprint(r), logkey.Stack, string(debug.Stack()))
			resp, err = nil, fmt.Errorf("panic: %v (this is a bug in the provider)", r)
		}
	}()
	switch {
	case req.CreateResourceRequest != nil:
		r, err := s.h.Create(ctx, req.CreateResourceRequest)
		if err != nil || r == nil {
			return nil, orNil(err)
		}
		r.OutputProperties = nonNil(r.OutputProperties)
		return &schema.Response{CreateResourceResponse: r}, nil
	case req.UpdateResourceRequest != nil:
		r, err := s.h.Update(ctx, req.UpdateResourceRequest)
		if err != nil || r == nil {
			return nil, orNil(err)
		}
		r.OutputProperties = nonNil(r.OutputProperties)
		return &schema.Response{UpdateResourceResponse: r}, nil
	case req.StateResourceReadRequest != nil:
		sp, ok := s.h.(StateProvider)
		if !ok {
			return nil, errNotStateProvider
		}
		r, err := sp.StateRead(ctx, req.StateResourceReadRequest)
		if err != nil || r == nil {
			return nil, orNil(err)
		}
		return &schema.Response{StateResourceReadResponse: r}, nil
	case req.StateResourceEvent != nil:
		sp, ok := s.h.(StateProvider)
		if !ok {
			return nil, errNotStateProvider
		}
		r, err := sp.StateEvent(ctx, req.StateResourceEvent)
		if err != nil || r == nil {
			return nil, orNil(err)
		}
		return &schema.Response{StateResourceEventResponse: r}, nil
	case req.DestroyResourceRequest != nil:
		// Validation already refused the kind unless h is a Destroyer.
		r, err := s.h.(Destroyer).Destroy(ctx, req.DestroyResourceRequest)
		if err != nil || r == nil {
			return nil, orNil(err)
		}
		return &schema.Response{DestroyResourceResponse: r}, nil
	case req.ReadResourceRequest != nil:
		r, err := s.h.(Reader).Read(ctx, req.ReadResourceRequest)
		if err != nil || r == nil {
			return nil, orNil(err)
		}
		return &schema.Response{ReadResourceResponse: r}, nil
	case req.ImportResourceRequest != nil:
		r, err := s.h.(Importer).Import(ctx, req.ImportResourceRequest)
		if err != nil || r == nil {
			return nil, orNil(err)
		}
		r.InputProperties = nonNil(r.InputProperties)
		r.OutputProperties = nonNil(r.OutputProperties)
		return &schema.Response{ImportResourceResponse: r}, nil
	case req.PreviewResourceRequest != nil:
		r, err := s.h.(Previewer).Preview(ctx, req.PreviewResourceRequest)
		if err != nil || r == nil {
			return nil, orNil(err)
		}
		return &schema.Response{PreviewResourceResponse: r}, nil
	}
	return nil, errors.New("request has no known operation (this is a bug in pier's schema package)")
}

var errNotStateProvider = errors.New("this provider stores no state: it implements neither stateResourceReadRequest nor stateResourceEvent")

func orNil(err error) error {
	if err == nil {
		return errNilResponse
	}
	return err
}

// nonNil makes a handler's nil properties the empty object the schema wants.
func nonNil(p schema.Properties) schema.Properties {
	if p == nil {
		return schema.Properties{}
	}
	return p
}

// opName is the human name of a request kind, used to prefix errors.
func opName(kind string) string {
	switch kind {
	case "createResourceRequest":
		return "create"
	case "updateResourceRequest":
		return "update"
	case "destroyResourceRequest":
		return "destroy"
	case "readResourceRequest":
		return "read"
	case "importResourceRequest":
		return "import"
	case "previewResourceRequest":
		return "preview"
	case "stateResourceReadRequest":
		return "state read"
	case "stateResourceEvent":
		return "state event"
	}
	return kind
}
