package proc

import (
	"io"
	"os"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pierhq/pier/internal/testneed"
)

// pollExitFile polls f, without blocking: whether it is readable, and
// whether it could be polled at all (a closed file cannot).
func pollExitFile(t *testing.T, f *os.File) (readable, polled bool) {
	t.Helper()
	rc, err := f.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	_ = rc.Control(func(fd uintptr) {
		polled = true
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		if n, err := unix.Poll(fds, 0); err != nil {
			t.Errorf("poll of the exit file: %v", err)
		} else {
			readable = n > 0 && fds[0].Revents&unix.POLLIN != 0
		}
	})
	return readable, polled
}

// TestExitFile: the exit file polls readable once the process has exited,
// not before, and Wait closes it; where the kernel has no pidfd there is
// none, and HasExited answers alone. Not parallel: it replaces pidfdOpen.
func TestExitFile(t *testing.T) {
	cases := map[string]struct {
		open   func(pid, flags int) (int, error)
		exitFd bool
	}{
		"pidfd":    {open: unix.PidfdOpen, exitFd: true},
		"no pidfd": {open: func(int, int) (int, error) { return -1, unix.ENOSYS }},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			saved := pidfdOpen
			pidfdOpen = tc.open
			t.Cleanup(func() { pidfdOpen = saved })
			// The shell exits when its stdin closes.
			p, err := Start(Spec{Path: "/bin/sh", Args: []string{"-c", "read line; exit 0"}})
			if err != nil {
				t.Fatal(err)
			}
			f := p.ExitFile()
			if (f != nil) != tc.exitFd {
				if _, err := unix.PidfdOpen(os.Getpid(), 0); tc.exitFd && err != nil {
					testneed.Missing(t, "pidfd_open: "+err.Error(), "the pidfd path needs Linux 5.3 or later")
				}
				t.Fatalf("ExitFile() = %v, want one: %v", f, tc.exitFd)
			}
			if f != nil {
				if readable, _ := pollExitFile(t, f); readable {
					t.Error("exit file readable while the process runs")
				}
			}
			if p.HasExited() {
				t.Error("HasExited() = true for a running process")
			}
			p.CloseStdin()
			<-p.Exited()
			if f != nil {
				if readable, polled := pollExitFile(t, f); !readable || !polled {
					t.Errorf("exit file after the exit: readable %v, polled %v; want both", readable, polled)
				}
			}
			if !p.HasExited() {
				t.Error("HasExited() = false after the exit")
			}
			io.Copy(io.Discard, p.Stdout())
			io.Copy(io.Discard, p.Stderr())
			if err := p.Wait(5 * time.Second); err != nil {
				t.Fatalf("Wait() = %v", err)
			}
			if f != nil {
				if _, polled := pollExitFile(t, f); polled {
					t.Error("exit file still open after Wait")
				}
			}
		})
	}
}
