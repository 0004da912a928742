package tfclient

import (
	"errors"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// exitWatch tells whether a provider another process started (see
// [Attach]) has exited, from a pidfd opened at attach time: it names that
// process even once its pid is reused.
type exitWatch struct {
	fd *os.File
}

// watchExit opens the watch of pid, or returns nil where pidfds are not
// available (Linux before 5.3); exitedWithin then probes the pid.
func watchExit(pid int) *exitWatch {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return nil
	}
	return &exitWatch{fd: os.NewFile(uintptr(fd), "pidfd")}
}

// Close ends the watch.
func (w *exitWatch) Close() error {
	if w == nil {
		return nil
	}
	return w.fd.Close()
}

// exitedWithin reports whether process pid has exited, waiting up to d
// for it to. A pidfd is readable once its process has exited; without
// one, the pid is probed with signal 0.
func (w *exitWatch) exitedWithin(pid int, d time.Duration) bool {
	if w != nil {
		rc, err := w.fd.SyscallConn()
		if err != nil {
			return false
		}
		n := 0
		cerr := rc.Control(func(fd uintptr) {
			n, _ = unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, int(d.Milliseconds()))
		})
		return cerr == nil && n > 0
	}
	deadline := time.Now().Add(d)
	for {
		if err := unix.Kill(pid, 0); errors.Is(err, unix.ESRCH) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(25 * time.Millisecond)
	}
}
