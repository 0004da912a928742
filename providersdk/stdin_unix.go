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
// [Serve] calls it.
//
// The returned file is non-blocking, so Go's poller waits for the next
// request. A blocking read would park a thread in the kernel between
// requests, and the Go runtime's monitor, seeing a thread in a system
// call, keeps waking every 20µs to take its processor back: a third of a
// busy pier adapter's context switches.
func TakeStdin() (requests *os.File, err error) {
	fd, err := unix.FcntlInt(0, unix.F_DUPFD_CLOEXEC, 3)
	if err != nil {
		return nil, fmt.Errorf("reserve stdin for requests: duplicate descriptor 0: %w", err)
	}
	null, err := os.Open(os.DevNull)
	if err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("reserve stdin for requests: %w", err)
	}
	defer null.Close()
	if err := unix.Dup2(int(null.Fd()), 0); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("reserve stdin for requests: put %s on descriptor 0: %w", os.DevNull, err)
	}
	// Only now is fd the stream's one descriptor: O_NONBLOCK belongs to
	// the open file, which descriptor 0 shared until the Dup2.
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("reserve stdin for requests: %w", err)
	}
	return os.NewFile(uintptr(fd), "stdin (protocol requests)"), nil
}
