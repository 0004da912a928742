package provider

import (
	"io"
	"os"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// quietFile reads and writes a provider's pipe by raw system calls, so
// that a request does not wake the Go runtime's monitor thread.
//
// While a request waits for its provider the command often has nothing
// else to do: every processor goes idle and the runtime's monitor
// (sysmon) sleeps. The first system call made through package syscall
// after that (the read of the response) wakes it (entersyscall): a futex
// wake of another thread, then the monitor's 20 µs polling until the
// process is idle again, at every response. The monitor watches system
// calls so that one that blocks does not hold its processor; a read or
// write of a non-blocking pipe never blocks (it returns EAGAIN, and Go's
// poller waits), so it needs no watching, as the runtime's own
// non-blocking calls get none. Waiting, deadlines and closing stay the
// poller's, through [syscall.RawConn]. providersdk does the same on the
// provider's side of the pipes.
//
// Errors are the file's own: a raw call's errno is wrapped as os.File
// wraps it, and when the poller refuses (a deadline passed, the file is
// closed) the file's own Read or Write runs instead and reports it.
//
// Each direction serves one caller at a time (a process's stdout is read
// under its mutex, its stdin written under it, its stderr by one
// goroutine): the calls' arguments and results pass through the struct,
// so that the functions given to the RawConn are made once, not at every
// call, which cost five allocations a request.
type quietFile struct {
	f  *os.File
	rc syscall.RawConn

	rbuf    []byte
	rn      int
	rerrno  syscall.Errno
	readFn  func(fd uintptr) bool
	wbuf    []byte
	wdone   int
	werrno  syscall.Errno
	writeFn func(fd uintptr) bool
}

// quiet returns f read and written by raw system calls, or f itself when
// it is not a non-blocking file (os.Pipe's are, where the poller works).
func quiet(f *os.File) io.ReadWriter {
	rc, err := f.SyscallConn()
	if err != nil {
		return f
	}
	nonblock := false
	if err := rc.Control(func(fd uintptr) {
		fl, err := unix.FcntlInt(fd, unix.F_GETFL, 0)
		nonblock = err == nil && fl&unix.O_NONBLOCK != 0
	}); err != nil || !nonblock {
		return f
	}
	q := &quietFile{f: f, rc: rc}
	q.readFn, q.writeFn = q.read, q.write
	return q
}

// read is one raw read into rbuf; false asks the poller to wait.
func (q *quietFile) read(fd uintptr) bool {
	for {
		r, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&q.rbuf[0])), uintptr(len(q.rbuf)))
		if e == syscall.EINTR {
			continue
		}
		q.rn, q.rerrno = int(r), e
		return e != syscall.EAGAIN
	}
}

func (q *quietFile) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return q.f.Read(p)
	}
	q.rbuf = p
	err := q.rc.Read(q.readFn)
	n, errno := q.rn, q.rerrno
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

// write is raw writes of what is left of wbuf; false asks the poller to
// wait.
func (q *quietFile) write(fd uintptr) bool {
	for {
		b := q.wbuf[q.wdone:]
		r, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
		if e == syscall.EINTR {
			continue
		}
		if e == 0 {
			q.wdone += int(r)
		}
		q.werrno = e
		return e != syscall.EAGAIN
	}
}

func (q *quietFile) Write(p []byte) (int, error) {
	q.wbuf, q.wdone = p, 0
	defer func() { q.wbuf = nil }()
	for q.wdone < len(p) {
		q.werrno = 0
		if err := q.rc.Write(q.writeFn); err != nil {
			n, err := q.f.Write(p[q.wdone:])
			return q.wdone + n, err
		}
		if q.werrno != 0 {
			return q.wdone, &os.PathError{Op: "write", Path: q.f.Name(), Err: q.werrno}
		}
	}
	return q.wdone, nil
}

// pollNow is poll(2) of fds with a zero timeout, as a raw system call:
// it never blocks, so, like quietFile's calls, it need not wake the
// runtime's monitor. It returns how many are ready, or -1 for an error.
func pollNow(fds []unix.PollFd) int {
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
