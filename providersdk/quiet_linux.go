package providersdk

import (
	"io"
	"os"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// quietReader and quietWriter give [ServeIO] a request stream and a frame
// stream that do not wake the Go runtime's monitor thread: when in or out
// is a non-blocking *os.File (what [TakeStdin] and [TakeStdout] make of
// the host's pipes), its reads and writes become raw system calls.
//
// Between requests a provider's only work is waiting, so the runtime's
// monitor (sysmon) sees every processor idle and sleeps, and the first
// system call made through package syscall after that (the read of the
// next request) wakes it: a futex wake of another thread and then the
// monitor's 20 µs polling until the process is idle again, at every
// request. The monitor watches system calls so that one that blocks does
// not hold the processor; a read or write of a non-blocking descriptor
// never blocks (it returns EAGAIN, and Go's poller waits), so it needs no
// watching, as the runtime's own non-blocking calls get none. The waiting
// stays the poller's, through [syscall.RawConn]. A blocking descriptor (a
// terminal, a file) is read and written as it is.
func quietReader(r io.Reader) io.Reader {
	if q := quiet(r); q != nil {
		return q
	}
	return r
}

func quietWriter(w io.Writer) io.Writer {
	if q := quiet(w); q != nil {
		return q
	}
	return w
}

// quiet is the wrapper of v, or nil when v is not a non-blocking file.
func quiet(v any) *quietFile {
	f, ok := v.(*os.File)
	if !ok {
		return nil
	}
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
	q := &quietFile{f: f, rc: rc}
	q.readFn, q.writeFn = q.rawRead, q.rawWrite
	return q
}

// quietFile reads and writes a non-blocking file by raw system calls.
// Errors are the file's own: a raw call's errno is wrapped as os.File
// wraps it, and when the poller fails (the file is closed) the file's own
// Read or Write runs instead and reports it.
//
// What a raw call reads into or writes from, and its outcome, are fields
// (one set per direction: ServeIO reads on one goroutine and writes on
// another), and the functions RawConn calls are made once: a closure made
// per call would allocate twice per read and write.
type quietFile struct {
	f  *os.File
	rc syscall.RawConn

	readFn, writeFn func(fd uintptr) bool
	rbuf, wbuf      []byte
	rn, wn          int
	rerr, werr      syscall.Errno
}

// rawRead reads rbuf once: false (wait) when nothing is there yet.
func (q *quietFile) rawRead(fd uintptr) bool {
	for {
		r, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&q.rbuf[0])), uintptr(len(q.rbuf)))
		if e == syscall.EINTR {
			continue
		}
		q.rn, q.rerr = int(r), e
		return e != syscall.EAGAIN
	}
}

// rawWrite writes wbuf[wn:] once: false (wait) when the pipe is full.
func (q *quietFile) rawWrite(fd uintptr) bool {
	for {
		b := q.wbuf[q.wn:]
		r, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
		if e == syscall.EINTR {
			continue
		}
		if e == 0 {
			q.wn += int(r)
		}
		q.werr = e
		return e != syscall.EAGAIN
	}
}

func (q *quietFile) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return q.f.Read(p)
	}
	q.rbuf, q.rn, q.rerr = p, 0, 0
	err := q.rc.Read(q.readFn)
	n, errno := q.rn, q.rerr
	q.rbuf = nil
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

func (q *quietFile) Write(p []byte) (int, error) {
	q.wbuf, q.wn = p, 0
	defer func() { q.wbuf = nil }()
	for q.wn < len(p) {
		q.werr = 0
		if err := q.rc.Write(q.writeFn); err != nil {
			n, err := q.f.Write(p[q.wn:])
			return q.wn + n, err
		}
		if q.werr != 0 {
			return q.wn, &os.PathError{Op: "write", Path: q.f.Name(), Err: q.werr}
		}
	}
	return q.wn, nil
}
