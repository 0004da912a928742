package tfclient

import (
	"errors"
	"io"
	"net"
	"os"
	"syscall"
	"unsafe"
)

// quiet wraps an attached bridge's socket to the provider so that its
// reads and writes do not wake the Go runtime's monitor thread.
//
// A bridge waits for the provider three times a request (validate, plan,
// apply), and each time its only processor goes idle, the runtime's
// monitor (sysmon) sees nothing to watch and sleeps. The first system call
// made through package syscall after that wakes it (entersyscall): a futex
// wake of another thread, then the monitor's 20 µs polling until the
// process is idle again, about a tenth of a bridge's CPU on a fresh apply.
// The monitor watches system calls so that one that blocks does not hold
// the processor; a read or write of a non-blocking socket never blocks
// (it returns EAGAIN, and the poller waits), so it needs no watching and
// is made as a raw system call, as the runtime makes its own
// non-blocking ones. Waiting, deadlines and closing stay the poller's,
// through [syscall.RawConn].
//
// Sockets Go's net package made are always non-blocking. Anything else is
// returned as it is.
func quiet(c net.Conn) net.Conn {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return c
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return c
	}
	q := &quietConn{Conn: c, rc: rc}
	q.readFn, q.writeFn = q.rawRead, q.rawWrite
	return q
}

// quietConn is a net.Conn whose Read and Write are raw system calls on
// the non-blocking descriptor of Conn; the rest is Conn's.
//
// What a raw call reads into or writes from, and its outcome, are fields
// (one set per direction, since a read and a write may run at once), and
// the functions RawConn calls are made once: a closure made per call
// would allocate twice per read and write. Two reads, or two writes, must
// not run at once, which the one user, a tls.Conn, never does (it holds a
// lock per direction around every read and write of its connection).
type quietConn struct {
	net.Conn
	rc syscall.RawConn

	readFn, writeFn func(fd uintptr) bool
	rbuf, wbuf      []byte
	rn, wn          int
	rerr, werr      syscall.Errno
}

// rawRead reads rbuf once: false (wait) when nothing is there yet.
func (c *quietConn) rawRead(fd uintptr) bool {
	for {
		r, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&c.rbuf[0])), uintptr(len(c.rbuf)))
		if e == syscall.EINTR {
			continue
		}
		c.rn, c.rerr = int(r), e
		return e != syscall.EAGAIN
	}
}

// rawWrite writes wbuf[wn:] once: false (wait) when the socket is full.
func (c *quietConn) rawWrite(fd uintptr) bool {
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

func (c *quietConn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	c.rbuf, c.rn, c.rerr = p, 0, 0
	err := c.rc.Read(c.readFn)
	n, errno := c.rn, c.rerr
	c.rbuf = nil
	switch {
	case err != nil:
		return 0, c.opError("read", err)
	case errno != 0:
		return 0, c.opError("read", os.NewSyscallError("read", errno))
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

func (c *quietConn) Write(p []byte) (int, error) {
	c.wbuf, c.wn = p, 0
	defer func() { c.wbuf = nil }()
	for c.wn < len(p) {
		c.werr = 0
		if err := c.rc.Write(c.writeFn); err != nil {
			return c.wn, c.opError("write", err)
		}
		if c.werr != 0 {
			return c.wn, c.opError("write", os.NewSyscallError("write", c.werr))
		}
	}
	return c.wn, nil
}

// opError wraps err as package net does its own errors, so that messages
// and errors.Is read the same as without the wrapper: the RawConn's
// "raw-read" wrapping gives way to the "read" a net.Conn says.
func (c *quietConn) opError(op string, err error) error {
	var oe *net.OpError
	if errors.As(err, &oe) {
		err = oe.Err
	}
	if errors.Is(err, os.ErrClosed) {
		err = net.ErrClosed
	}
	return &net.OpError{Op: op, Net: c.LocalAddr().Network(), Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
}
