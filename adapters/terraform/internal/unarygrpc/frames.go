package unarygrpc

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/http2/hpack"
	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// readFrames reads once from the connection and handles every frame that
// is then complete. A frame is handled only whole, so a read that a
// deadline interrupts loses nothing. The token is held.
func (c *Conn) readFrames() error {
	if c.r0 == c.r1 {
		c.r0, c.r1 = 0, 0
	} else if len(c.rbuf)-c.r1 < frameHeaderLen+defaultMaxFrame {
		c.r1 = copy(c.rbuf, c.rbuf[c.r0:c.r1])
		c.r0 = 0
	}
	n, err := c.nc.Read(c.rbuf[c.r1:])
	c.r1 += n
	if perr := c.parse(); perr != nil {
		return perr
	}
	if n > 0 {
		return nil // an error comes back on the next read
	}
	return err
}

// parse handles the complete frames in rbuf, then writes the control
// frames they called for: window updates at once, acknowledgements with
// the next request (or at once, for the idle reader).
func (c *Conn) parse() error {
	for {
		b := c.rbuf[c.r0:c.r1]
		if len(b) < frameHeaderLen {
			break
		}
		n := int(b[0])<<16 | int(b[1])<<8 | int(b[2])
		if n > defaultMaxFrame {
			return fmt.Errorf("the server sent a frame of %d bytes, above the %d this end allows", n, defaultMaxFrame)
		}
		if len(b) < frameHeaderLen+n {
			break
		}
		typ, flags := b[3], b[4]
		id := binary.BigEndian.Uint32(b[5:9]) & (1<<31 - 1)
		payload := b[frameHeaderLen : frameHeaderLen+n]
		c.r0 += frameHeaderLen + n
		if err := c.frame(typ, flags, id, payload); err != nil {
			return err
		}
	}
	if len(c.ctl) == 0 {
		return nil
	}
	c.wmu.Lock()
	c.out = append(c.out, c.ctl...)
	var err error
	if c.urgent || c.flushCtl {
		err = c.flush()
	}
	c.wmu.Unlock()
	c.ctl, c.urgent = c.ctl[:0], false
	return err
}

// frame handles one frame. An error is a connection error: the
// connection is then unusable.
func (c *Conn) frame(typ, flags byte, id uint32, p []byte) error {
	if c.hdrStream != 0 && typ != frameContinuation {
		return fmt.Errorf("the server interrupted a header block with a frame of type %d", typ)
	}
	switch typ {
	case frameData:
		return c.data(flags, id, p)
	case frameHeaders:
		if id == 0 {
			return fmt.Errorf("the server sent HEADERS on stream 0")
		}
		block, err := unpad(flags, p)
		if err != nil {
			return err
		}
		if flags&flagPriority != 0 {
			if len(block) < 5 {
				return fmt.Errorf("the server sent a HEADERS frame too short for its priority")
			}
			block = block[5:]
		}
		if flags&flagEndHeaders == 0 {
			c.hdrStream, c.hdrFlags = id, flags
			c.hdrBlock = append(c.hdrBlock[:0], block...)
			return nil
		}
		return c.headers(id, flags, block)
	case frameContinuation:
		if c.hdrStream == 0 || id != c.hdrStream {
			return fmt.Errorf("the server sent a CONTINUATION frame outside a header block")
		}
		c.hdrBlock = append(c.hdrBlock, p...)
		if len(c.hdrBlock) > maxHeaderBytes+defaultMaxFrame {
			return fmt.Errorf("the server sent a header block over %d bytes", maxHeaderBytes)
		}
		if flags&flagEndHeaders == 0 {
			return nil
		}
		id, flags = c.hdrStream, c.hdrFlags
		c.hdrStream = 0
		return c.headers(id, flags, c.hdrBlock)
	case frameRSTStream:
		if len(p) != 4 || id == 0 {
			return fmt.Errorf("the server sent a malformed RST_STREAM")
		}
		c.mu.Lock()
		if s := c.stream(id); s != nil && !s.done {
			c.finishLocked(s, rstError(binary.BigEndian.Uint32(p), s.deadline, time.Now()))
		}
		c.mu.Unlock()
	case frameSettings:
		return c.settings(flags, id, p)
	case framePushPromise:
		return fmt.Errorf("the server pushed a stream, which this end disabled")
	case framePing:
		if len(p) != 8 || id != 0 {
			return fmt.Errorf("the server sent a malformed PING")
		}
		if flags&flagAck == 0 {
			c.ctl = appendFrameHeader(c.ctl, 8, framePing, flagAck, 0)
			c.ctl = append(c.ctl, p...)
		}
	case frameGoAway:
		if len(p) < 8 || id != 0 {
			return fmt.Errorf("the server sent a malformed GOAWAY")
		}
		last := binary.BigEndian.Uint32(p) & (1<<31 - 1)
		code := binary.BigEndian.Uint32(p[4:])
		c.mu.Lock()
		c.goAway = true
		for _, s := range c.streams {
			if s.id > last && !s.done {
				c.finishLocked(s, status.Errorf(codes.Unavailable, "the server is closing the connection (GOAWAY, %s) and did not take this call", errCodeName(code)))
			}
		}
		c.broadcastLocked()
		c.mu.Unlock()
	case frameWindowUpdate:
		if len(p) != 4 {
			return fmt.Errorf("the server sent a malformed WINDOW_UPDATE")
		}
		inc := int64(binary.BigEndian.Uint32(p) & (1<<31 - 1))
		c.mu.Lock()
		defer c.mu.Unlock()
		if id == 0 {
			if inc == 0 || c.connSend+inc > maxWindow {
				return fmt.Errorf("the server sent a connection window update of %d, which HTTP/2 forbids", inc)
			}
			c.connSend += inc
		} else if s := c.stream(id); s != nil {
			s.sendWin += inc
		}
		c.broadcastLocked()
	}
	// PRIORITY and unknown frame types are ignored, as HTTP/2 asks.
	return nil
}

// data takes a DATA frame's message bytes and grants the window back.
func (c *Conn) data(flags byte, id uint32, p []byte) error {
	if id == 0 {
		return fmt.Errorf("the server sent DATA on stream 0")
	}
	body, err := unpad(flags, p)
	if err != nil {
		return err
	}
	// Flow control counts the whole payload, padding included.
	if c.recvConn += len(p); c.recvConn >= windowSize/4 {
		c.ctl = appendWindowUpdate(c.ctl, 0, uint32(c.recvConn))
		c.recvConn, c.urgent = 0, true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.stream(id)
	if s == nil || s.done {
		return nil // an abandoned call's: dropped
	}
	if !s.headers {
		return fmt.Errorf("the server sent DATA before the headers of stream %d", id)
	}
	if len(s.data)+len(body) > 5+c.cfg.MaxRecvMsgSize {
		s.tooLarge = true
		c.finishLocked(s, status.Errorf(codes.ResourceExhausted, "grpc: received message larger than max (%d vs. %d)", len(s.data)+len(body)-5, c.cfg.MaxRecvMsgSize))
		c.ctl = appendRSTStream(c.ctl, id, errCodeCancel)
		c.urgent = true
		return nil
	}
	s.data = append(s.data, body...)
	if flags&flagEndStream != 0 {
		c.finishLocked(s, status.Error(codes.Internal, "the server closed the call without sending its status (trailers)"))
		return nil
	}
	if s.recvWin += len(p); s.recvWin >= windowSize/4 {
		c.ctl = appendWindowUpdate(c.ctl, id, uint32(s.recvWin))
		s.recvWin, c.urgent = 0, true
	}
	return nil
}

// headers decodes a complete header block: a call's response headers, or
// its trailers (END_STREAM), which carry the status. Every block is
// decoded, a dropped call's too, to keep the HPACK table in step.
func (c *Conn) headers(id uint32, flags byte, block []byte) error {
	c.hdr = headerValues{}
	if _, err := c.dec.Write(block); err != nil {
		return fmt.Errorf("decode the server's headers: %w", err)
	}
	if err := c.dec.Close(); err != nil {
		return fmt.Errorf("decode the server's headers: %w", err)
	}
	h := &c.hdr
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.stream(id)
	if s == nil || s.done {
		return nil
	}
	end := flags&flagEndStream != 0
	if !s.headers {
		s.headers = true
		if err := h.httpError(); err != nil {
			c.finishLocked(s, err)
			return nil
		}
		if end { // trailers-only: the status comes with the headers
			c.finishLocked(s, h.status())
		}
		return nil
	}
	if !end {
		c.finishLocked(s, status.Error(codes.Internal, "the server sent a second header block that does not end the call"))
		return nil
	}
	c.finishLocked(s, h.status())
	return nil
}

// settings applies the server's SETTINGS and acknowledges them.
func (c *Conn) settings(flags byte, id uint32, p []byte) error {
	if id != 0 {
		return fmt.Errorf("the server sent SETTINGS on stream %d", id)
	}
	if flags&flagAck != 0 {
		return nil
	}
	if len(p)%6 != 0 {
		return fmt.Errorf("the server sent a malformed SETTINGS frame")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for ; len(p) > 0; p = p[6:] {
		v := binary.BigEndian.Uint32(p[2:])
		switch binary.BigEndian.Uint16(p) {
		case settingHeaderTableSize:
			c.tableSize = int(min(v, 1<<20))
		case settingInitialWindowSize:
			if v > maxWindow {
				return fmt.Errorf("the server set an initial window of %d, above HTTP/2's limit", v)
			}
			delta := int64(v) - c.streamSend
			c.streamSend = int64(v)
			for _, s := range c.streams {
				s.sendWin += delta
			}
		case settingMaxFrameSize:
			if v < defaultMaxFrame || v > maxFrameLimit {
				return fmt.Errorf("the server set a maximum frame size of %d, outside HTTP/2's bounds", v)
			}
			c.maxSend = int(v)
		}
	}
	c.gotSettings = true
	c.broadcastLocked()
	c.ctl = appendFrameHeader(c.ctl, 0, frameSettings, flagAck, 0)
	return nil
}

// finishLocked ends a call with its outcome; c.mu is held.
func (c *Conn) finishLocked(s *stream, err error) {
	s.done, s.err = true, err
	c.broadcastLocked()
}

// unpad strips a padded frame's padding.
func unpad(flags byte, p []byte) ([]byte, error) {
	if flags&flagPadded == 0 {
		return p, nil
	}
	if len(p) == 0 || int(p[0]) > len(p)-1 {
		return nil, fmt.Errorf("the server sent a frame with more padding than payload")
	}
	return p[1 : len(p)-int(p[0])], nil
}

// headerValues are the response header fields a call looks at.
type headerValues struct {
	httpStatus, contentType        string
	grpcStatus, grpcMessage, grpcB string
	hasGRPCStatus                  bool
}

func (h *headerValues) emit(f hpack.HeaderField) {
	switch f.Name {
	case ":status":
		h.httpStatus = f.Value
	case "content-type":
		h.contentType = f.Value
	case "grpc-status":
		h.grpcStatus, h.hasGRPCStatus = f.Value, true
	case "grpc-message":
		h.grpcMessage = f.Value
	case "grpc-status-details-bin":
		h.grpcB = f.Value
	}
}

// httpError is what response headers that are not a gRPC answer mean, as
// grpc-go maps them; nil for a gRPC answer.
func (h *headerValues) httpError() error {
	if h.httpStatus != "200" {
		if h.hasGRPCStatus {
			return nil // the status says more
		}
		code := codes.Unknown
		switch h.httpStatus {
		case "400":
			code = codes.Internal
		case "401":
			code = codes.Unauthenticated
		case "403":
			code = codes.PermissionDenied
		case "404":
			code = codes.Unimplemented
		case "429", "502", "503", "504":
			code = codes.Unavailable
		}
		return status.Errorf(code, "unexpected HTTP status code received from server: %s", h.httpStatus)
	}
	if ct := h.contentType; ct != "application/grpc" && !strings.HasPrefix(ct, "application/grpc+") && !strings.HasPrefix(ct, "application/grpc;") {
		return status.Errorf(codes.Unknown, "the server answered with content-type %q, not gRPC", ct)
	}
	return nil
}

// status is the call's outcome its trailers give: nil for OK.
func (h *headerValues) status() error {
	if !h.hasGRPCStatus {
		if err := h.httpError(); err != nil {
			return err
		}
		return status.Error(codes.Internal, "the server ended the call without a grpc-status")
	}
	n, err := strconv.ParseUint(h.grpcStatus, 10, 32)
	if err != nil {
		return status.Errorf(codes.Internal, "the server sent a malformed grpc-status %q", h.grpcStatus)
	}
	code := codes.Code(n)
	if code == codes.OK {
		return nil
	}
	if h.grpcB != "" {
		if data, err := decodeBinaryHeader(h.grpcB); err == nil {
			var sp spb.Status
			if proto.Unmarshal(data, &sp) == nil && codes.Code(sp.GetCode()) == code {
				return status.FromProto(&sp).Err()
			}
		}
	}
	return status.Error(code, decodeMessage(h.grpcMessage))
}

// decodeBinaryHeader decodes a -bin header, base64 with or without padding.
func decodeBinaryHeader(v string) ([]byte, error) {
	if len(v)%4 == 0 {
		return base64.StdEncoding.DecodeString(v)
	}
	return base64.RawStdEncoding.DecodeString(v)
}

// decodeMessage undoes grpc-message's percent-encoding; a malformed escape
// stays as it is.
func decodeMessage(m string) string {
	if !strings.Contains(m, "%") {
		return m
	}
	var b strings.Builder
	for i := 0; i < len(m); i++ {
		if m[i] == '%' && i+2 < len(m) {
			if v, err := strconv.ParseUint(m[i+1:i+3], 16, 8); err == nil {
				b.WriteByte(byte(v))
				i += 2
				continue
			}
		}
		b.WriteByte(m[i])
	}
	return b.String()
}

// rstError is what a server's RST_STREAM means for the call, as grpc-go
// maps it. A cancellation that comes once the call's deadline has passed
// is the server's own timer ending it (a grpc-go server resets a call
// whose grpc-timeout ran out), so it reads as DeadlineExceeded, as it
// does when this end's timer wins the race: on a loaded machine either
// can.
func rstError(code uint32, deadline, now time.Time) error {
	c := codes.Internal
	switch code {
	case errCodeRefusedStream:
		c = codes.Unavailable
	case errCodeCancel:
		c = codes.Canceled
		if !deadline.IsZero() && !now.Before(deadline) {
			c = codes.DeadlineExceeded
		}
	case errCodeEnhanceYourCalm:
		c = codes.ResourceExhausted
	case errCodeInadequateSecurit:
		c = codes.PermissionDenied
	}
	return status.Errorf(c, "the server reset the call (RST_STREAM, %s)", errCodeName(code))
}

func errCodeName(code uint32) string {
	switch code {
	case errCodeNoError:
		return "NO_ERROR"
	case errCodeProtocol:
		return "PROTOCOL_ERROR"
	case errCodeFlowControl:
		return "FLOW_CONTROL_ERROR"
	case errCodeRefusedStream:
		return "REFUSED_STREAM"
	case errCodeCancel:
		return "CANCEL"
	case errCodeEnhanceYourCalm:
		return "ENHANCE_YOUR_CALM"
	case errCodeInadequateSecurit:
		return "INADEQUATE_SECURITY"
	}
	return fmt.Sprintf("error code %d", code)
}

func appendFrameHeader(b []byte, n int, typ, flags byte, id uint32) []byte {
	return append(b, byte(n>>16), byte(n>>8), byte(n), typ, flags, byte(id>>24), byte(id>>16), byte(id>>8), byte(id))
}

func appendSetting(b []byte, id uint16, v uint32) []byte {
	return append(b, byte(id>>8), byte(id), byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
}

func appendWindowUpdate(b []byte, id, inc uint32) []byte {
	b = appendFrameHeader(b, 4, frameWindowUpdate, 0, id)
	return binary.BigEndian.AppendUint32(b, inc)
}

func appendRSTStream(b []byte, id, code uint32) []byte {
	b = appendFrameHeader(b, 4, frameRSTStream, 0, id)
	return binary.BigEndian.AppendUint32(b, code)
}
