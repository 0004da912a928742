package providersdk

import (
	"bytes"
	"errors"
	"io"

	"github.com/pierhq/pier/schema/jsonl"
)

// DefaultMaxLineSize bounds one request line when [Options.MaxLineSize] is
// zero. Requests carry whole input documents, and a state_file's events can
// carry large values, so the bound is generous: it is the protocol's frame
// limit, [jsonl.DefaultMaxFrame], and exists so that a broken host produces
// a clear "frame too large" answer instead of an out-of-memory kill.
const DefaultMaxLineSize = jsonl.DefaultMaxFrame

// lineReader reads request lines through the protocol's framing, as a
// provider is asked to: blank lines are skipped, a trailing "\r" is
// dropped, and a last line without a newline still counts. A returned
// line is valid until the next call.
type lineReader struct {
	r *jsonl.Reader
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{r: jsonl.NewReader(r, max)}
}

// next returns the next non-blank line without its line terminator. It
// returns io.EOF at the end of the stream and a [*jsonl.FrameTooLargeError]
// for a line over the limit; after the latter, reading may continue.
func (lr *lineReader) next() ([]byte, error) {
	for {
		line, err := lr.r.ReadFrame()
		if errors.Is(err, io.ErrUnexpectedEOF) {
			err = nil // the last line, without its newline
		}
		if err != nil {
			return nil, err
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(bytes.TrimSpace(line)) > 0 {
			return line, nil
		}
	}
}
