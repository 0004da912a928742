package jsonl

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// DefaultMaxFrame is the largest frame a [Reader] accepts unless told
// otherwise: 64 MiB. Provider outputs are JSON objects that end up in the
// state log; a legitimate one is kilobytes, and anything near this size is a
// provider bug (an accidental dump of a file or a runaway loop), which must
// fail clearly long before it can exhaust pier's memory.
const DefaultMaxFrame = 64 << 20

// ErrFrameTooLarge is returned (wrapped in a [*FrameTooLargeError]) when a
// line exceeds the reader's maximum.
var ErrFrameTooLarge = errors.New("frame too large")

// FrameTooLargeError reports a line longer than the reader's maximum. It is
// returned as soon as the line passes the limit, before the rest of it is
// read, so that refusing a runaway line costs no more than the limit. The
// next read discards the rest of that line and returns the line after it:
// a host that kills the writer never pays for reading the rest, and a
// provider that answers the refusal goes on serving.
type FrameTooLargeError struct {
	Max  int // the configured maximum in bytes
	Read int // bytes of the line read before giving up (more than Max)
}

func (e *FrameTooLargeError) Error() string {
	return fmt.Sprintf("frame too large: line exceeds the %d byte limit (%d bytes read)", e.Max, e.Read)
}

// Unwrap lets errors.Is(err, ErrFrameTooLarge) match.
func (e *FrameTooLargeError) Unwrap() error { return ErrFrameTooLarge }

// readChunk is the bufio buffer size. Lines longer than it are assembled
// from chunks; the common short frame is returned without copying.
const readChunk = 64 << 10

// keepBuffer is the largest assembly block a Reader keeps between frames.
// A state read can be hundreds of MiB; holding that buffer for the rest of
// a long apply would double the memory the decoded state already takes.
const keepBuffer = 1 << 20

// Reader reads newline-terminated frames. It is not safe for concurrent use.
type Reader struct {
	br  *bufio.Reader
	max int
	buf []byte // reused to assemble lines longer than one chunk
	// skip says the last frame was refused before its newline was read:
	// the next read first discards the rest of that line.
	skip bool
}

// NewReader returns a Reader that rejects frames longer than max bytes
// (excluding the newline). max <= 0 means [DefaultMaxFrame].
func NewReader(r io.Reader, max int) *Reader {
	if max <= 0 {
		max = DefaultMaxFrame
	}
	return &Reader{br: bufio.NewReaderSize(r, readChunk), max: max}
}

// Max returns the reader's frame size limit in bytes.
func (r *Reader) Max() int { return r.max }

// Buffered reports how many bytes were read from the underlying reader but
// not yet returned: a non-zero value right after a frame means the writer
// sent more than one frame.
func (r *Reader) Buffered() int { return r.br.Buffered() }

// Peek reports whether a frame's first byte is available, waiting as the
// underlying reader does. It consumes nothing.
func (r *Reader) Peek() error {
	_, err := r.br.Peek(1)
	return err
}

// ReadFrame returns the next line without its "\n" (a trailing "\r" is
// kept; JSON treats it as whitespace). The slice is valid until the next
// call. At a clean end of input it returns io.EOF; input that ends in the
// middle of a line returns io.ErrUnexpectedEOF with the partial line. A
// line over the limit returns a [*FrameTooLargeError]; reading on returns
// the line after it.
func (r *Reader) ReadFrame() ([]byte, error) { return r.ReadFrameLimit(r.max) }

// ReadFrameLimit is [Reader.ReadFrame] with max bytes as the limit for
// this one frame, instead of the reader's: a host that knows a response
// legitimately carries more (a whole state document) raises the bound for
// that response only. max <= 0 means the reader's limit.
func (r *Reader) ReadFrameLimit(max int) ([]byte, error) {
	if r.skip {
		if err := r.discardLine(); err != nil {
			return nil, err
		}
	}
	if max <= 0 {
		max = r.max
	}
	if cap(r.buf) > keepBuffer {
		r.buf = nil
	}
	line, err := r.br.ReadSlice('\n')
	if err == nil {
		if len(line)-1 > max {
			return nil, r.tooLarge(max, len(line)-1, false)
		}
		return line[:len(line)-1], nil
	}
	// A line longer than one chunk is gathered in blocks, none of which
	// is copied or regrown while the line is read, and a line is refused
	// as soon as it passes max, before the piece that passes it is kept:
	// a refused line costs at most max bytes, where a buffer that doubles
	// as it grows cost several times that (4.2 GB for a state read
	// refused at 1 GiB). Only a line that is kept whole is copied once,
	// into one slice of its size.
	g := gather{limit: max + 1} // the newline is gathered too
	if cap(r.buf) > 0 {
		g.blocks = [][]byte{r.buf[:0]}
	}
	for {
		switch {
		case err == nil:
			if g.n+len(line)-1 > max {
				return nil, r.tooLarge(max, g.n+len(line)-1, false)
			}
			g.add(line)
			frame := g.join()
			r.buf = g.reuse()
			return frame[:len(frame)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			if g.n+len(line) > max {
				return nil, r.tooLarge(max, g.n+len(line), true)
			}
			g.add(line)
		case errors.Is(err, io.EOF) && g.n+len(line) == 0:
			return nil, io.EOF
		case errors.Is(err, io.EOF) && g.n+len(line) > max:
			return nil, r.tooLarge(max, g.n+len(line), false)
		case errors.Is(err, io.EOF):
			g.add(line)
			return g.join(), io.ErrUnexpectedEOF
		default:
			g.add(line)
			return g.join(), err
		}
		line, err = r.br.ReadSlice('\n')
	}
}

// maxBlock bounds the blocks a long line is gathered in: large enough
// that a line of hundreds of MiB takes few, small enough that the last,
// partly filled one wastes little.
const maxBlock = 16 << 20

// gather holds a long line in blocks of growing size as it is read.
type gather struct {
	blocks [][]byte // the last one is being filled
	n      int
	limit  int // no block reaches past this many bytes of line
}

func (g *gather) add(p []byte) {
	g.n += len(p)
	for len(p) > 0 {
		if len(g.blocks) == 0 {
			g.blocks = append(g.blocks, make([]byte, 0, readChunk))
		}
		last := &g.blocks[len(g.blocks)-1]
		if len(*last) == cap(*last) {
			size := max(min(2*cap(*last), maxBlock, g.limit-(g.n-len(p))), len(p))
			g.blocks = append(g.blocks, make([]byte, 0, size))
			continue
		}
		k := min(len(p), cap(*last)-len(*last))
		*last = append(*last, p[:k]...)
		p = p[k:]
	}
}

// join returns the line in one slice: the first block itself when it
// holds all of it, otherwise a copy of the blocks into a slice of exactly
// the line's size.
func (g *gather) join() []byte {
	switch len(g.blocks) {
	case 0:
		return nil
	case 1:
		return g.blocks[0]
	}
	out := make([]byte, 0, g.n)
	for _, b := range g.blocks {
		out = append(out, b...)
	}
	return out
}

// reuse is the block worth keeping for the next long line: the first,
// unless joining let it go.
func (g *gather) reuse() []byte {
	if len(g.blocks) == 1 {
		return g.blocks[0]
	}
	return nil
}

// tooLarge refuses the current line; midLine says its newline is still
// unread, so the next read must skip to it.
func (r *Reader) tooLarge(max, n int, midLine bool) error {
	r.buf = nil // let a huge buffer go
	r.skip = midLine
	return &FrameTooLargeError{Max: max, Read: n}
}

// discardLine reads up to and including the next newline, keeping
// nothing: the rest of a refused line. At the end of input it returns
// io.EOF, since the refused line was the last.
func (r *Reader) discardLine() error {
	for {
		_, err := r.br.ReadSlice('\n')
		switch {
		case err == nil:
			r.skip = false
			return nil
		case errors.Is(err, bufio.ErrBufferFull):
		default:
			return err
		}
	}
}

// Encode marshals v as one frame: compact JSON followed by "\n". JSON
// encoding escapes newlines inside strings, so the frame is one line.
func Encode(v any) ([]byte, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode frame: %w", err)
	}
	return append(data, '\n'), nil
}

// WriteFrame writes data, one JSON value, as a frame with a single Write so
// that a frame is never interleaved with another writer's. data must not
// contain a newline; use [Encode] to marshal a Go value.
func WriteFrame(w io.Writer, data []byte) error {
	if i := bytes.IndexByte(data, '\n'); i >= 0 && i != len(data)-1 {
		return fmt.Errorf("write frame: value contains a newline at byte %d", i)
	}
	if len(data) == 0 || data[len(data)-1] != '\n' {
		data = append(data[:len(data):len(data)], '\n')
	}
	if _, err := w.Write(data); err != nil {
		return fmt.Errorf("write frame: %w", err)
	}
	return nil
}
