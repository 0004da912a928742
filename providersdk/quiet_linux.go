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
	return &quietFile{f: f, rc: rc}
}

// quietFile reads and writes a non-blocking file by raw system calls.
// Errors are the file's own: a raw call's errno is wrapped as os.File
// wraps it, and when the poller fails (the file is closed) the file's own
// Read or Write runs instead and reports it.
type quietFile struct {
	f  *os.File
	rc syscall.RawConn
}

func (q *quietFile) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return q.f.Read(p)
	}
	var n int
	var errno syscall.Errno
	if err := q.rc.Read(func(fd uintptr) bool {
		for {
			r, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
			if e == syscall.EINTR {
				continue
			}
			n, errno = int(r), e
			return e != syscall.EAGAIN
		}
	}); err != nil {
		return q.f.Read(p)
	}
	switch {
	case errno != 0:
		return 0, &os.PathError{Op: "read", Path: q.f.Name(), Err: errno}
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

func (q *quietFile) Write(p []byte) (int, error) {
	done := 0
	for done < len(p) {
		var errno syscall.Errno
		if err := q.rc.Write(func(fd uintptr) bool {
			for {
				b := p[done:]
				r, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
				if e == syscall.EINTR {
					continue
				}
				if e == 0 {
					done += int(r)
				}
				errno = e
				return e != syscall.EAGAIN
			}
		}); err != nil {
			n, err := q.f.Write(p[done:])
			return done + n, err
		}
		if errno != 0 {
			return done, &os.PathError{Op: "write", Path: q.f.Name(), Err: errno}
		}
	}
	return done, nil
}
