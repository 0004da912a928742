package provider

import (
	"os"

	"golang.org/x/sys/unix"

	"github.com/pierhq/pier/schema/rawio"
)

// readable reports whether f has data to read right now, without reading
// or blocking. End of file (the writer closed) is not data.
func readable(f *os.File) bool {
	ready, _ := pollIn([3]*os.File{f})
	return ready[0]
}

// readableBoth is [readable] of a and of b (nil: not asked) in one poll:
// one system call where there would be two.
func readableBoth(a, b *os.File) (aReady, bReady bool) {
	ready, _ := pollIn([3]*os.File{a, b})
	return ready[0], ready[1]
}

// pollIn asks, in one poll and without blocking, which of files (nil: not
// asked) have input: ready[i] says files[i] has (for a pidfd: that its
// process has exited). asked[i] says files[i] was asked: a file that is
// closed, or whose descriptor cannot be had, is not, and is not ready.
func pollIn(files [3]*os.File) (ready, asked [3]bool) {
	var fds [3]unix.PollFd
	var at [3]int // files[i]'s index in fds
	n := 0
	poll := func() {
		if n == 0 {
			return
		}
		if rawio.PollNow(fds[:n]) <= 0 {
			return
		}
		for i := range files {
			ready[i] = asked[i] && fds[at[i]].Revents&unix.POLLIN != 0
		}
	}
	// withFd runs then with files[i]'s descriptor in fds, held open
	// (Control keeps it from being closed) until then returns.
	withFd := func(i int, then func()) {
		if f := files[i]; f != nil {
			if rc, err := f.SyscallConn(); err == nil {
				ran := false
				_ = rc.Control(func(fd uintptr) {
					ran = true
					at[i], asked[i] = n, true
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
	withFd(0, func() { withFd(1, func() { withFd(2, poll) }) })
	return ready, asked
}
