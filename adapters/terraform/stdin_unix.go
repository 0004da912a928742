//go:build unix

package terraform

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// DetachStdin moves the bridge's standard input, the host's request
// stream, to a new close-on-exec file descriptor and puts /dev/null on
// descriptor 0. Call it before [New] and serve requests from the returned
// file.
//
// go-plugin starts the Terraform provider with the bridge's own stdin
// (os.Stdin). Without this, the provider and every program it runs would
// hold the request stream, whose frames carry resource inputs, and one
// that reads its stdin (a tool prompting for a password) would take
// requests meant for the bridge.
func DetachStdin() (*os.File, error) {
	fd, err := unix.FcntlInt(0, unix.F_DUPFD_CLOEXEC, 3)
	if err != nil {
		return nil, fmt.Errorf("detach stdin: duplicate descriptor 0: %w", err)
	}
	null, err := os.Open(os.DevNull)
	if err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("detach stdin: %w", err)
	}
	defer null.Close()
	if err := unix.Dup2(int(null.Fd()), 0); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("detach stdin: put %s on descriptor 0: %w", os.DevNull, err)
	}
	return os.NewFile(uintptr(fd), "stdin"), nil
}
