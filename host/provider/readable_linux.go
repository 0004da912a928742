package provider

import (
	"os"

	"golang.org/x/sys/unix"
)

// readable reports whether f has data to read right now, without reading
// or blocking. End of file (the writer closed) is not data.
func readable(f *os.File) bool {
	ready, _ := readableBoth(f, nil)
	return ready
}

// readableBoth is [readable] of a and of b (nil: not asked) in one poll:
// one system call where there would be two. A file that is closed, or
// whose descriptor cannot be had, is not readable.
func readableBoth(a, b *os.File) (aReady, bReady bool) {
	var fds [2]unix.PollFd
	ia, ib, n := -1, -1, 0
	poll := func() {
		if n == 0 {
			return
		}
		if k, err := unix.Poll(fds[:n], 0); err != nil || k <= 0 {
			return
		}
		aReady = ia >= 0 && fds[ia].Revents&unix.POLLIN != 0
		bReady = ib >= 0 && fds[ib].Revents&unix.POLLIN != 0
	}
	// withFd runs then with f's descriptor in fds, held open (Control
	// keeps it from being closed) until then returns.
	withFd := func(f *os.File, idx *int, then func()) {
		if f != nil {
			if rc, err := f.SyscallConn(); err == nil {
				ran := false
				_ = rc.Control(func(fd uintptr) {
					ran = true
					*idx = n
					fds[n] = unix.PollFd{Fd: int32(fd), Events: unix.POLLIN}
					n++
					then()
				})
				if ran {
					return
				}
			}
		}
		then()
	}
	withFd(a, &ia, func() { withFd(b, &ib, poll) })
	return aReady, bReady
}
