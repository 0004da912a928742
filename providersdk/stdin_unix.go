//go:build unix

package providersdk

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// TakeStdin reserves the process's stdin, the host's request stream, for
// the provider. It moves descriptor 0 to a new close-on-exec descriptor,
// returned as requests, and puts /dev/null on descriptor 0, so that no
// program the provider starts (a Terraform provider under the bridge, a
// command of the local provider's exec) holds the stream: its frames
// carry resource inputs, and a program that reads its stdin (a tool
// prompting for a password) would take requests meant for the provider.
// Call release when done serving: it closes requests, and gives a stream
// made non-blocking its blocking mode back first. [Serve] calls it.
//
// The returned file is non-blocking, so Go's poller waits for the next
// request. A blocking read would park a thread in the kernel between
// requests, and the Go runtime's monitor, seeing a thread in a system
// call, keeps waking every 20µs to take its processor back: a third of a
// busy pier adapter's context switches.
func TakeStdin() (requests *os.File, release func() error, err error) {
	fd, err := unix.FcntlInt(0, unix.F_DUPFD_CLOEXEC, 3)
	if err != nil {
		return nil, nil, fmt.Errorf("reserve stdin for requests: duplicate descriptor 0: %w", err)
	}
	null, err := os.Open(os.DevNull)
	if err != nil {
		unix.Close(fd)
		return nil, nil, fmt.Errorf("reserve stdin for requests: %w", err)
	}
	defer null.Close()
	if err := unix.Dup2(int(null.Fd()), 0); err != nil {
		unix.Close(fd)
		return nil, nil, fmt.Errorf("reserve stdin for requests: put %s on descriptor 0: %w", os.DevNull, err)
	}
	restore, err := setNonblockIfStream(fd)
	if err != nil {
		unix.Close(fd)
		return nil, nil, fmt.Errorf("reserve stdin for requests: %w", err)
	}
	requests = os.NewFile(uintptr(fd), "stdin (protocol requests)")
	release = func() error {
		restore()
		return requests.Close()
	}
	return requests, release, nil
}

// setNonblockIfStream makes fd non-blocking when it is a pipe or a socket,
// which is what a host gives a provider, and leaves a terminal or a file
// alone. O_NONBLOCK belongs to the open file, not the descriptor: a
// terminal's is shared with the shell that started the provider, which
// would find its own input non-blocking after the provider exits. A pipe
// from a host is the provider's alone; restore gives it its blocking
// mode back, for whoever else may hold it once the provider is done (a
// shell running the provider and more in one pipeline). Call it once fd
// is the provider's only descriptor of the file.
func setNonblockIfStream(fd int) (restore func(), err error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, err
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFIFO, unix.S_IFSOCK:
		if err := unix.SetNonblock(fd, true); err != nil {
			return nil, err
		}
		return func() { _ = unix.SetNonblock(fd, false) }, nil
	}
	return func() {}, nil
}
