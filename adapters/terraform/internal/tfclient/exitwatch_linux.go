package tfclient

import (
	"context"
	"os"
	"strconv"

	"github.com/hashicorp/go-plugin/runner"
	"golang.org/x/sys/unix"
)

// exitWatch tells when a provider another process started (see [Attach])
// exits, from a pidfd in the runtime's poller: the bridge sleeps until
// the exit. go-plugin's own watch of a reattached process polls it every
// second, which woke every idle bridge of a command once a second.
type exitWatch struct {
	pid int
	fd  *os.File
}

// watchExit opens the watch of pid, or returns nil where pidfds are not
// available (Linux before 5.3), and go-plugin watches as it does.
func watchExit(pid int) *exitWatch {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return nil
	}
	// Non-blocking, so that os.NewFile puts it in the poller.
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return nil
	}
	return &exitWatch{pid: pid, fd: os.NewFile(uintptr(fd), "pidfd")}
}

// reattach is the go-plugin hook that uses the watch.
func (w *exitWatch) reattach() runner.ReattachFunc {
	if w == nil {
		return nil
	}
	return func() (runner.AttachedRunner, error) { return w, nil }
}

// Close ends the watch; Wait then returns.
func (w *exitWatch) Close() error {
	if w == nil {
		return nil
	}
	return w.fd.Close()
}

// Wait blocks until the process exits or the watch is closed. A pidfd is
// readable once its process has exited.
func (w *exitWatch) Wait(context.Context) error {
	rc, err := w.fd.SyscallConn()
	if err != nil {
		return err
	}
	return rc.Read(func(fd uintptr) bool {
		n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, 0)
		return err == nil && n > 0
	})
}

// Kill is never called: the attachment is go-plugin's test mode, in which
// the process is not the client's to kill.
func (w *exitWatch) Kill(context.Context) error { return nil }

// ID names the process as go-plugin's own runner does.
func (w *exitWatch) ID() string { return strconv.Itoa(w.pid) }

// PluginToHost and HostToPlugin translate nothing: the provider runs on
// this machine.
func (w *exitWatch) PluginToHost(network, address string) (string, string, error) {
	return network, address, nil
}

func (w *exitWatch) HostToPlugin(network, address string) (string, string, error) {
	return network, address, nil
}

var _ runner.AttachedRunner = (*exitWatch)(nil)
