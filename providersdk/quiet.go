package providersdk

import (
	"io"
	"os"

	"github.com/pierhq/pier/schema/rawio"
)

// quietReader and quietWriter give [ServeIO] a request stream and a frame
// stream that do not wake the Go runtime's monitor thread between
// requests (see package rawio): a non-blocking *os.File, what
// [TakeStdin] and [TakeStdout] make of the host's pipes, is read and
// written by raw system calls. Anything else (a terminal, a file, a
// buffer) is used as it is.
func quietReader(r io.Reader) io.Reader {
	if f, ok := r.(*os.File); ok {
		if q := rawio.NewFile(f); q != nil {
			return q
		}
	}
	return r
}

func quietWriter(w io.Writer) io.Writer {
	if f, ok := w.(*os.File); ok {
		if q := rawio.NewFile(f); q != nil {
			return q
		}
	}
	return w
}
