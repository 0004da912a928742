package providersdk

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// DefaultMaxLineSize bounds one request line when [Options.MaxLineSize] is
// zero. Requests carry whole input documents, and a state_file's events can
// carry large values, so the bound is generous; it exists so that a broken
// host produces a clear "line too large" answer instead of an out-of-memory
// kill.
const DefaultMaxLineSize = 64 << 20

// LineTooLargeError reports a request line longer than the limit. The line
// was read to its end and dropped, so the next line is read normally.
type LineTooLargeError struct {
	Size  int // bytes in the line, without its newline
	Limit int
}

func (e *LineTooLargeError) Error() string {
	return fmt.Sprintf("request line of %d bytes exceeds the limit of %d bytes", e.Size, e.Limit)
}

// lineReader splits a stream into newline-terminated lines of bounded size,
// skipping blank lines. Each returned line is a fresh slice the caller owns.
type lineReader struct {
	r   *bufio.Reader
	max int
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// next returns the next non-blank line without its line terminator. It
// returns io.EOF at the end of the stream and *LineTooLargeError for a line
// over the limit; after the latter, reading may continue. A final line
// without a newline is returned as a line.
func (lr *lineReader) next() ([]byte, error) {
	for {
		line, err := lr.one()
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(line)) > 0 {
			return line, nil
		}
	}
}

func (lr *lineReader) one() ([]byte, error) {
	var line []byte
	size := 0
	for {
		chunk, err := lr.r.ReadSlice('\n')
		size += len(chunk)
		if size <= lr.max+1 { // +1: the newline does not count
			line = append(line, chunk...)
		} else {
			line = nil
		}
		switch {
		case err == nil:
			size-- // the newline
			if size > lr.max {
				return nil, &LineTooLargeError{Size: size, Limit: lr.max}
			}
			return trimEOL(line), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if size == 0 {
				return nil, io.EOF
			}
			if size > lr.max {
				return nil, &LineTooLargeError{Size: size, Limit: lr.max}
			}
			return trimEOL(line), nil
		default:
			return nil, err
		}
	}
}

func trimEOL(line []byte) []byte {
	line = bytes.TrimSuffix(line, []byte("\n"))
	return bytes.TrimSuffix(line, []byte("\r"))
}
