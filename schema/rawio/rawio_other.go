//go:build !linux

package rawio

import "os"

// File is not made on this system: the raw system calls of the Linux
// version are not written for others.
type File struct{ *os.File }

// NewFile returns nil: f is used as it is.
func NewFile(f *os.File) *File { return nil }
