package tfclient

import (
	"errors"
	"io"
	"net"
	"os"
	"syscall"

	"github.com/pierhq/pier/schema/rawio"
)

// quiet wraps an attached bridge's socket to the provider so that its
// reads and writes are raw system calls (see package rawio): a bridge
// waits for the provider three times a request (validate, plan, apply),
// and the wake-ups of the runtime's monitor after each wait were about a
// tenth of a bridge's CPU on a fresh apply.
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
	return &quietConn{Conn: c, raw: rawio.NewConn(rc)}
}

// quietConn is a net.Conn whose Read and Write are raw system calls on
// the non-blocking descriptor of Conn; the rest is Conn's. Two reads, or
// two writes, must not run at once, which the one user, a tls.Conn,
// never does (it holds a lock per direction around every read and write
// of its connection).
type quietConn struct {
	net.Conn
	raw *rawio.Conn
}

func (c *quietConn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	n, errno, err := c.raw.Read(p)
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
	n, errno, err := c.raw.Write(p)
	switch {
	case err != nil:
		return n, c.opError("write", err)
	case errno != 0:
		return n, c.opError("write", os.NewSyscallError("write", errno))
	}
	return n, nil
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
