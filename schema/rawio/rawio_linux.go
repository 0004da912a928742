package rawio

import (
	"io"
	"os"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Conn makes the reads and writes of one non-blocking descriptor raw
// system calls, through its [syscall.RawConn]: the poller waits when a
// call would block. Its callers wrap the outcome as their descriptor's
// own errors ([File] as package os does; a socket as package net does).
//
// What a raw call reads into or writes from, and its outcome, are fields
// (one set per direction, since a read and a write may run at once), and
// the functions the RawConn calls are made once: a closure per call would
// allocate twice per read and write. Two reads, or two writes, must not
// run at once.
type Conn struct {
	rc syscall.RawConn

	readFn, writeFn func(fd uintptr) bool
	rbuf, wbuf      []byte
	rn, wn          int
	rerr, werr      syscall.Errno
}

// NewConn returns the raw reads and writes of rc's descriptor, which must
// be non-blocking.
func NewConn(rc syscall.RawConn) *Conn {
	c := &Conn{rc: rc}
	c.readFn, c.writeFn = c.rawRead, c.rawWrite
	return c
}

// rawRead reads rbuf once: false (wait) when nothing is there yet.
func (c *Conn) rawRead(fd uintptr) bool {
	for {
		r, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&c.rbuf[0])), uintptr(len(c.rbuf)))
		if e == syscall.EINTR {
			continue
		}
		c.rn, c.rerr = int(r), e
		return e != syscall.EAGAIN
	}
}

// rawWrite writes wbuf[wn:] once: false (wait) when the descriptor is
// full.
func (c *Conn) rawWrite(fd uintptr) bool {
	for {
		b := c.wbuf[c.wn:]
		r, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
		if e == syscall.EINTR {
			continue
		}
		if e == 0 {
			c.wn += int(r)
		}
		c.werr = e
		return e != syscall.EAGAIN
	}
}

// Read reads into p (not empty) once there is something to read. errno
// is the read's own failure; err is the poller's (a deadline passed, the
// descriptor closed). n is 0 at end of file.
func (c *Conn) Read(p []byte) (n int, errno syscall.Errno, err error) {
	c.rbuf, c.rn, c.rerr = p, 0, 0
	err = c.rc.Read(c.readFn)
	n, errno = c.rn, c.rerr
	c.rbuf = nil
	return n, errno, err
}

// Write writes all of p, waiting whenever the descriptor is full; n is
// how much was written before errno or err (as for Read) stopped it.
func (c *Conn) Write(p []byte) (n int, errno syscall.Errno, err error) {
	c.wbuf, c.wn = p, 0
	defer func() { c.wbuf = nil }()
	for c.wn < len(p) {
		c.werr = 0
		if err := c.rc.Write(c.writeFn); err != nil {
			return c.wn, 0, err
		}
		if c.werr != 0 {
			return c.wn, c.werr, nil
		}
	}
	return c.wn, 0, nil
}

// File is a non-blocking *os.File read and written by raw system calls.
// Errors are the file's own: a raw call's errno is wrapped as os.File
// wraps it, and when the poller refuses (a deadline passed, the file is
// closed) the file's own Read or Write runs instead and reports it.
type File struct {
	f *os.File
	c *Conn
}

// NewFile returns f read and written by raw system calls, or nil when f
// is not a non-blocking file (os.Pipe's are; a terminal or a regular file
// is not).
func NewFile(f *os.File) *File {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	nonblock := false
	if err := rc.Control(func(fd uintptr) {
		fl, err := unix.FcntlInt(fd, unix.F_GETFL, 0)
		nonblock = err == nil && fl&unix.O_NONBLOCK != 0
	}); err != nil || !nonblock {
		return nil
	}
	return &File{f: f, c: NewConn(rc)}
}

func (q *File) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return q.f.Read(p)
	}
	n, errno, err := q.c.Read(p)
	switch {
	case err != nil:
		return q.f.Read(p)
	case errno != 0:
		return 0, &os.PathError{Op: "read", Path: q.f.Name(), Err: errno}
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

func (q *File) Write(p []byte) (int, error) {
	n, errno, err := q.c.Write(p)
	switch {
	case err != nil:
		m, err := q.f.Write(p[n:])
		return n + m, err
	case errno != 0:
		return n, &os.PathError{Op: "write", Path: q.f.Name(), Err: errno}
	}
	return n, nil
}

// PollNow is poll(2) of fds with a zero timeout, as a raw system call: it
// never blocks, so, like File's calls, it need not wake the runtime's
// monitor. It returns how many are ready, or -1 for an error.
func PollNow(fds []unix.PollFd) int {
	for {
		var zero unix.Timespec // ppoll may write the time left back
		r, _, e := syscall.RawSyscall6(unix.SYS_PPOLL, uintptr(unsafe.Pointer(&fds[0])), uintptr(len(fds)), uintptr(unsafe.Pointer(&zero)), 0, 0, 0)
		if e == syscall.EINTR {
			continue
		}
		if e != 0 {
			return -1
		}
		return int(r)
	}
}
