package rawio

import (
	"io"
	"os"
)

// Wrap returns f read and written by raw system calls ([NewFile]), or f
// itself when it cannot be.
func Wrap(f *os.File) io.ReadWriter {
	if q := NewFile(f); q != nil {
		return q
	}
	return f
}
