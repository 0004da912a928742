package unarygrpc

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"golang.org/x/net/http2/hpack"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// Config configures a [Conn].
type Config struct {
	// Authority is every call's :authority.
	Authority string
	// MaxRecvMsgSize bounds one response message in bytes; 0 means
	// DefaultMaxRecvMsgSize.
	MaxRecvMsgSize int
	// IdleRead is how long the connection may go unread once no call is
	// in flight before a goroutine reads it; 0 means DefaultIdleRead.
	IdleRead time.Duration
}

// DefaultMaxRecvMsgSize is grpc-go's own default bound of a response.
const DefaultMaxRecvMsgSize = 4 << 20

// DefaultIdleRead is how long an idle connection goes unread. Between
// calls the only frames a server sends are pings and settings, and no
// server needs those answered at once: grpc-go's keepalive, the one that
// closes a connection over a missed answer, pings after two hours of
// silence and waits 20 s. A minute of quiet keeps far inside that while
// costing nothing on a connection in use.
const DefaultIdleRead = time.Minute

// windowSize is this end's receive window, per call and for the
// connection: answers up to it flow without waiting for a window update.
const windowSize = 4 << 20

// HTTP/2 facts (RFC 9113).
const (
	clientPreface      = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
	frameHeaderLen     = 9
	defaultWindow      = 65535
	defaultMaxFrame    = 16384 // the largest frame this end accepts, never raised
	maxFrameLimit      = 1<<24 - 1
	defaultHeaderTable = 4096
	maxWindow          = 1<<31 - 1

	frameData         = 0x0
	frameHeaders      = 0x1
	frameRSTStream    = 0x3
	frameSettings     = 0x4
	framePushPromise  = 0x5
	framePing         = 0x6
	frameGoAway       = 0x7
	frameWindowUpdate = 0x8
	frameContinuation = 0x9

	flagEndStream  = 0x1
	flagAck        = 0x1
	flagEndHeaders = 0x4
	flagPadded     = 0x8
	flagPriority   = 0x20

	settingHeaderTableSize   = 0x1
	settingEnablePush        = 0x2
	settingInitialWindowSize = 0x4
	settingMaxFrameSize      = 0x5

	errCodeNoError           = 0x0
	errCodeProtocol          = 0x1
	errCodeFlowControl       = 0x3
	errCodeRefusedStream     = 0x7
	errCodeCancel            = 0x8
	errCodeEnhanceYourCalm   = 0xb
	errCodeInadequateSecurit = 0xc
)

// maxHeaderBytes bounds one decoded header field: grpc-message carries a
// provider's error text, which is short, and 1 MiB stops a broken peer.
const maxHeaderBytes = 1 << 20

// Conn is one HTTP/2 connection carrying unary gRPC calls. It is safe for
// concurrent use; see the package documentation for who reads when.
type Conn struct {
	nc  net.Conn
	cfg Config

	// token is the right to read nc: whoever takes it reads frames for
	// every call until what it waits for is done, then puts it back.
	token chan struct{}

	// wmu guards out, hbuf, enc and msg, and writing to nc. out holds
	// frames not yet written; between writers it holds only control
	// frames that need not go at once (ping and settings acknowledgements),
	// which the next request carries.
	wmu  sync.Mutex
	out  []byte
	hbuf headerBuffer
	enc  *hpack.Encoder
	msg  []byte

	// mu guards the fields below. Lock order: wmu before mu.
	mu          sync.Mutex
	streams     []*stream
	nextID      uint32
	err         error // set once the connection is unusable
	goAway      bool
	connSend    int64 // the connection's send window
	streamSend  int64 // a new call's send window (the server's setting)
	maxSend     int   // the largest frame the server accepts
	tableSize   int   // the server's header table size, for enc; -1 when applied
	gotSettings bool
	changed     chan struct{} // closed and replaced when waiters may see news; nil when none wait
	inflight    int
	idle        *time.Timer
	idleReading bool // the idle reader holds token
	kicked      bool // a call asked the idle reader to let go
	closed      bool
	idleDone    sync.WaitGroup
	spare       []byte // a finished call's response buffer, for the next

	// The reader's state, owned by whoever holds token.
	rbuf      []byte
	r0, r1    int
	dec       *hpack.Decoder
	hdr       headerValues
	hdrStream uint32 // a header block waits for CONTINUATION frames
	hdrFlags  byte
	hdrBlock  []byte
	recvConn  int    // connection bytes received and not yet granted back
	ctl       []byte // control frames parse produced
	urgent    bool   // ctl holds a window update: write it now
	flushCtl  bool   // write ctl at once (the idle reader does)
}

var _ grpc.ClientConnInterface = (*Conn)(nil)

// stream is one call's state, guarded by Conn.mu.
type stream struct {
	id       uint32
	sendWin  int64
	recvWin  int // bytes received and not yet granted back
	headers  bool
	data     []byte
	done     bool
	err      error // the call's outcome once done; nil is OK
	tooLarge bool
	deadline time.Time // the caller's, if any: see [rstError]
}

// New starts HTTP/2 on nc, a connection already secured and
// authenticated, and returns once the server's settings are in. ctx
// bounds that. nc belongs to the Conn from then on.
func New(ctx context.Context, nc net.Conn, cfg Config) (*Conn, error) {
	if cfg.MaxRecvMsgSize <= 0 {
		cfg.MaxRecvMsgSize = DefaultMaxRecvMsgSize
	}
	if cfg.IdleRead <= 0 {
		cfg.IdleRead = DefaultIdleRead
	}
	c := &Conn{
		nc:         nc,
		cfg:        cfg,
		token:      make(chan struct{}, 1),
		nextID:     1,
		connSend:   defaultWindow,
		streamSend: defaultWindow,
		maxSend:    defaultMaxFrame,
		tableSize:  -1,
		rbuf:       make([]byte, 2*(frameHeaderLen+defaultMaxFrame)),
	}
	c.token <- struct{}{}
	c.enc = hpack.NewEncoder(&c.hbuf)
	c.dec = hpack.NewDecoder(defaultHeaderTable, c.hdr.emit)
	c.dec.SetMaxStringLength(maxHeaderBytes)

	c.out = append(c.out, clientPreface...)
	c.out = appendFrameHeader(c.out, 12, frameSettings, 0, 0)
	c.out = appendSetting(c.out, settingEnablePush, 0)
	c.out = appendSetting(c.out, settingInitialWindowSize, windowSize)
	c.out = appendWindowUpdate(c.out, 0, windowSize-defaultWindow)
	if err := c.flush(); err != nil {
		nc.Close()
		return nil, fmt.Errorf("start HTTP/2: %w", err)
	}
	// The first call then already knows the server's windows and frame
	// size.
	if err := c.wait(ctx, func() bool { return c.gotSettings }); err != nil {
		nc.Close()
		return nil, fmt.Errorf("start HTTP/2: %w", err)
	}
	c.mu.Lock()
	c.idle = time.AfterFunc(cfg.IdleRead, c.idleRead)
	c.mu.Unlock()
	return c, nil
}

// Close closes the connection: calls in flight fail, and Close returns
// once the idle reader, if one runs, has stopped.
func (c *Conn) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	if c.idle != nil {
		c.idle.Stop()
	}
	c.failLocked(errors.New("the connection was closed"))
	c.mu.Unlock()
	err := c.nc.Close()
	c.idleDone.Wait()
	return err
}

// NewStream is not supported: this connection carries unary calls only.
func (c *Conn) NewStream(context.Context, *grpc.StreamDesc, string, ...grpc.CallOption) (grpc.ClientStream, error) {
	return nil, status.Error(codes.Unimplemented, "unarygrpc: streaming calls are not supported")
}

// Invoke makes one unary call: method is "/package.Service/Method", args
// and reply are protobuf messages. Call options are ignored: the
// connection's Config is what it applies. Errors are gRPC status errors,
// as grpc-go's: the server's status, codes.Canceled or DeadlineExceeded
// when ctx ends first, codes.Unavailable when the connection broke.
func (c *Conn) Invoke(ctx context.Context, method string, args, reply any, _ ...grpc.CallOption) error {
	req, ok := args.(proto.Message)
	if !ok {
		return status.Errorf(codes.Internal, "unarygrpc: request %T is not a protobuf message", args)
	}
	rep, ok := reply.(proto.Message)
	if !ok {
		return status.Errorf(codes.Internal, "unarygrpc: reply %T is not a protobuf message", reply)
	}
	if err := ctx.Err(); err != nil {
		return status.FromContextError(err).Err()
	}
	var timeout string
	deadline, hasDeadline := ctx.Deadline()
	if hasDeadline {
		d := time.Until(deadline)
		if d <= 0 {
			return status.Error(codes.DeadlineExceeded, context.DeadlineExceeded.Error())
		}
		timeout = encodeTimeout(d)
	}

	s := &stream{deadline: deadline}
	c.mu.Lock()
	c.inflight++
	s.data = c.spare[:0]
	c.spare = nil
	c.mu.Unlock()
	defer c.end(s)

	if err := c.send(ctx, s, method, timeout, req); err != nil {
		return err
	}
	if err := c.wait(ctx, func() bool { return s.done }); err != nil {
		c.cancel(s)
		return err
	}
	if s.err != nil {
		return s.err
	}
	msg, err := c.message(s.data)
	if err != nil {
		return err
	}
	if err := (proto.UnmarshalOptions{}).Unmarshal(msg, rep); err != nil {
		return status.Errorf(codes.Internal, "grpc: failed to unmarshal the received message: %v", err)
	}
	return nil
}

// message is the one message of a unary response.
func (c *Conn) message(data []byte) ([]byte, error) {
	if len(data) < 5 {
		return nil, status.Error(codes.Internal, "grpc: the server answered OK without a response message")
	}
	if data[0] != 0 {
		return nil, status.Error(codes.Internal, "grpc: the server sent a compressed message, and none was offered")
	}
	n := int(data[1])<<24 | int(data[2])<<16 | int(data[3])<<8 | int(data[4])
	switch {
	case n > c.cfg.MaxRecvMsgSize:
		return nil, status.Errorf(codes.ResourceExhausted, "grpc: received message larger than max (%d vs. %d)", n, c.cfg.MaxRecvMsgSize)
	case 5+n < len(data):
		return nil, status.Error(codes.Internal, "grpc: the server sent more than one message for a unary call")
	case 5+n > len(data):
		return nil, status.Error(codes.Internal, "grpc: the server's response message is cut short")
	}
	return data[5:], nil
}

// end forgets a finished call and, when it was the last in flight, arms
// the idle reader.
func (c *Conn) end(s *stream) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.remove(s)
	if !s.tooLarge && cap(s.data) <= 2*windowSize {
		c.spare = s.data[:0]
	}
	c.inflight--
	if c.inflight == 0 && c.idle != nil && !c.closed {
		c.idle.Reset(c.cfg.IdleRead)
	}
}

// remove drops s from the calls frames are read for; c.mu is held.
func (c *Conn) remove(s *stream) {
	for i, x := range c.streams {
		if x == s {
			c.streams = append(c.streams[:i], c.streams[i+1:]...)
			c.streams[len(c.streams):cap(c.streams)][0] = nil
			return
		}
	}
}

func (c *Conn) stream(id uint32) *stream {
	for _, s := range c.streams {
		if s.id == id {
			return s
		}
	}
	return nil
}

// send writes the call's headers and request message, waiting for send
// window when the message does not fit.
func (c *Conn) send(ctx context.Context, s *stream, method, timeout string, req proto.Message) error {
	c.wmu.Lock()
	c.mu.Lock()
	if err := c.usableLocked(); err != nil {
		c.mu.Unlock()
		c.wmu.Unlock()
		return err
	}
	// Stream ids are taken in the order headers are written, as HTTP/2
	// requires: under wmu.
	s.id = c.nextID
	c.nextID += 2
	s.sendWin = c.streamSend
	c.streams = append(c.streams, s)
	maxSend := c.maxSend
	if c.tableSize >= 0 {
		c.enc.SetMaxDynamicTableSizeLimit(uint32(c.tableSize))
		c.tableSize = -1
	}
	c.mu.Unlock()

	c.hbuf.b = c.hbuf.b[:0]
	c.field(":method", "POST")
	c.field(":scheme", "https")
	c.field(":path", method)
	c.field(":authority", c.cfg.Authority)
	c.field("content-type", "application/grpc")
	c.field("te", "trailers")
	if timeout != "" {
		c.field("grpc-timeout", timeout)
	}
	block := c.hbuf.b
	for first := true; first || len(block) > 0; first = false {
		n := min(len(block), maxSend)
		typ, flags := byte(frameContinuation), byte(0)
		if first {
			typ = frameHeaders
		}
		if n == len(block) {
			flags |= flagEndHeaders
		}
		c.out = appendFrameHeader(c.out, n, typ, flags, s.id)
		c.out = append(c.out, block[:n]...)
		block = block[n:]
	}

	size := proto.Size(req)
	c.msg = append(c.msg[:0], 0, byte(size>>24), byte(size>>16), byte(size>>8), byte(size))
	var err error
	if c.msg, err = (proto.MarshalOptions{UseCachedSize: true}).MarshalAppend(c.msg, req); err != nil {
		c.wmu.Unlock()
		return status.Errorf(codes.Internal, "grpc: error while marshaling: %v", err)
	}
	for body := c.msg; ; {
		c.mu.Lock()
		n := int(min(int64(len(body)), int64(c.maxSend), c.connSend, s.sendWin))
		if n > 0 {
			c.connSend -= int64(n)
			s.sendWin -= int64(n)
		}
		c.mu.Unlock()
		if n > 0 {
			var flags byte
			if n == len(body) {
				flags = flagEndStream
			}
			c.out = appendFrameHeader(c.out, n, frameData, flags, s.id)
			c.out = append(c.out, body[:n]...)
			if body = body[n:]; len(body) == 0 {
				break
			}
			continue
		}
		// Out of send window: write what is ready and wait for the
		// server's window update, reading if nobody else does. Another
		// call may use msg meanwhile: keep the rest aside.
		rest := append([]byte(nil), body...)
		err := c.flush()
		c.wmu.Unlock()
		if err != nil {
			return c.broken(err)
		}
		err = c.wait(ctx, func() bool { return s.done || (c.connSend > 0 && s.sendWin > 0) })
		if err != nil {
			c.cancel(s)
			return err
		}
		if s.done {
			return nil // the server answered before reading it all: its answer stands
		}
		c.wmu.Lock()
		body = rest
	}
	err = c.flush()
	c.wmu.Unlock()
	if err != nil {
		return c.broken(err)
	}
	return nil
}

func (c *Conn) field(name, value string) {
	// hpack's Encoder writes to hbuf and fails only when it does.
	_ = c.enc.WriteField(hpack.HeaderField{Name: name, Value: value})
}

// usableLocked says why no new call may start; c.mu is held.
func (c *Conn) usableLocked() error {
	switch {
	case c.err != nil:
		return c.err
	case c.closed:
		return status.Error(codes.Unavailable, "the connection was closed")
	case c.goAway:
		return status.Error(codes.Unavailable, "the server is closing the connection (GOAWAY)")
	}
	return nil
}

// flush writes out; wmu is held.
func (c *Conn) flush() error {
	if len(c.out) == 0 {
		return nil
	}
	_, err := c.nc.Write(c.out)
	c.out = c.out[:0]
	return err
}

// broken fails the connection over a write error and returns the error a
// call reports.
func (c *Conn) broken(err error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.failLocked(err)
	return c.err
}

// cancel abandons a call whose ctx ended: the server is told (RST_STREAM
// CANCEL), and what still arrives for it is dropped.
func (c *Conn) cancel(s *stream) {
	c.mu.Lock()
	wasDone := s.done
	if !s.done {
		s.done, s.err = true, status.Error(codes.Canceled, "the call was abandoned")
	}
	c.remove(s)
	c.mu.Unlock()
	if wasDone || s.id == 0 {
		return
	}
	c.wmu.Lock()
	c.out = appendRSTStream(c.out, s.id, errCodeCancel)
	err := c.flush()
	c.wmu.Unlock()
	if err != nil {
		_ = c.broken(err)
	}
}

// wait returns once done (evaluated under c.mu) holds, reading frames
// itself when nobody else is. It returns early with ctx's status when ctx
// ends, and with the connection's error when it breaks.
func (c *Conn) wait(ctx context.Context, done func() bool) error {
	c.mu.Lock()
	for {
		if done() {
			c.mu.Unlock()
			return nil
		}
		if c.err != nil {
			err := c.err
			c.mu.Unlock()
			return err
		}
		select {
		case <-c.token:
			c.mu.Unlock()
			err := c.read(ctx, done)
			c.release()
			return err
		default:
		}
		if c.idleReading && !c.kicked {
			c.kicked = true
			_ = c.nc.SetReadDeadline(aLongTimeAgo) // the idle reader lets go
		}
		if c.changed == nil {
			c.changed = make(chan struct{})
		}
		ch := c.changed
		c.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return status.FromContextError(ctx.Err()).Err()
		}
		c.mu.Lock()
	}
}

// aLongTimeAgo is a read deadline that has passed: it interrupts a read.
var aLongTimeAgo = time.Unix(1, 0)

// release puts the read token back and wakes whoever waits for it.
func (c *Conn) release() {
	c.mu.Lock()
	c.token <- struct{}{}
	c.broadcastLocked()
	c.mu.Unlock()
}

func (c *Conn) broadcastLocked() {
	if c.changed != nil {
		close(c.changed)
		c.changed = nil
	}
}

// read reads frames, holding the token, until done holds, ctx ends or the
// connection breaks. ctx's end interrupts a blocked read by a deadline.
func (c *Conn) read(ctx context.Context, done func() bool) error {
	var fired chan struct{}
	stop := func() bool { return true }
	if ctx.Done() != nil {
		fired = make(chan struct{})
		stop = context.AfterFunc(ctx, func() {
			defer close(fired)
			_ = c.nc.SetReadDeadline(aLongTimeAgo)
		})
	}
	defer func() {
		if !stop() {
			<-fired
			_ = c.nc.SetReadDeadline(time.Time{})
		}
	}()
	for {
		c.mu.Lock()
		d, err := done(), c.err
		c.mu.Unlock()
		if d {
			return nil
		}
		if err != nil {
			return err
		}
		if err := c.readFrames(); err != nil {
			if ctx.Err() != nil && isTimeout(err) {
				return status.FromContextError(ctx.Err()).Err()
			}
			return c.broken(err)
		}
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// idleRead reads the connection while no call is in flight, so that the
// server's pings are answered, until a call kicks it off.
func (c *Conn) idleRead() {
	c.mu.Lock()
	if c.closed || c.err != nil || c.inflight > 0 {
		c.mu.Unlock()
		return
	}
	select {
	case <-c.token:
	default:
		c.mu.Unlock()
		return
	}
	c.idleReading, c.kicked = true, false
	c.idleDone.Add(1)
	c.mu.Unlock()
	defer c.idleDone.Done()

	c.flushCtl = true
	c.wmu.Lock()
	err := c.flush() // acknowledgements the last call left
	c.wmu.Unlock()
	for err == nil {
		err = c.readFrames()
		c.mu.Lock()
		kicked := c.kicked
		c.mu.Unlock()
		if kicked {
			err = nil
			break
		}
	}
	c.flushCtl = false
	if err != nil {
		_ = c.broken(err)
	}
	c.mu.Lock()
	c.idleReading, c.kicked = false, false
	c.mu.Unlock()
	_ = c.nc.SetReadDeadline(time.Time{})
	c.release()
}

// failLocked makes the connection unusable and fails every call in
// flight; c.mu is held.
func (c *Conn) failLocked(err error) {
	if c.err != nil {
		return
	}
	if _, ok := status.FromError(err); !ok {
		err = status.Errorf(codes.Unavailable, "connection to the server: %v", err)
	}
	c.err = err
	for _, s := range c.streams {
		if !s.done {
			s.done, s.err = true, err
		}
	}
	c.broadcastLocked()
}

// headerBuffer is the io.Writer hpack encodes into.
type headerBuffer struct{ b []byte }

func (h *headerBuffer) Write(p []byte) (int, error) {
	h.b = append(h.b, p...)
	return len(p), nil
}

// encodeTimeout spells d as grpc-timeout: at most 8 digits and a unit,
// rounded up so that a short deadline never reads as none.
func encodeTimeout(d time.Duration) string {
	const maxValue = 1e8 - 1
	units := []struct {
		unit time.Duration
		name string
	}{{time.Nanosecond, "n"}, {time.Microsecond, "u"}, {time.Millisecond, "m"}, {time.Second, "S"}, {time.Minute, "M"}, {time.Hour, "H"}}
	for _, u := range units {
		if v := (d + u.unit - 1) / u.unit; v <= maxValue {
			return fmt.Sprintf("%d%s", v, u.name)
		}
	}
	return fmt.Sprintf("%dH", int64(maxValue))
}
