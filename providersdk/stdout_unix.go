//go:build unix

package providersdk

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// TakeStdout reserves the process's stdout for protocol frames. It moves
// file descriptor 1 to a new descriptor, returned as frames, and points
// descriptor 1 at stderr. From then on os.Stdout, fmt.Print and any child
// process that inherits descriptor 1 write to stderr, so a stray print in
// a handler or a library it calls lands in the log instead of corrupting
// the protocol. release points descriptor 1 back at the real stdout and
// closes frames. [Serve] calls it; call it yourself only when serving with
// [ServeIO] on the real stdout.
func TakeStdout() (frames *os.File, release func() error, err error) {
	fd, err := unix.Dup(1)
	if err != nil {
		return nil, nil, fmt.Errorf("reserve stdout for frames: %w", err)
	}
	unix.CloseOnExec(fd) // children must not get the protocol channel
	if err := unix.Dup2(2, 1); err != nil {
		_ = unix.Close(fd)
		return nil, nil, fmt.Errorf("point stdout at stderr: %w", err)
	}
	// Non-blocking, Go's poller handles a full pipe without holding a
	// thread in the kernel (see [TakeStdin]). Only now is fd the
	// stream's one descriptor.
	restore, err := setNonblockIfStream(fd)
	if err != nil {
		_ = unix.Dup2(fd, 1)
		_ = unix.Close(fd)
		return nil, nil, fmt.Errorf("reserve stdout for frames: %w", err)
	}
	frames = os.NewFile(uintptr(fd), "stdout (protocol frames)")
	release = func() error {
		restore()
		if err := unix.Dup2(fd, 1); err != nil {
			_ = frames.Close() // the Dup2 error is the one to report
			return fmt.Errorf("restore stdout: %w", err)
		}
		return frames.Close()
	}
	return frames, release, nil
}
