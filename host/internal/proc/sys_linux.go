package proc

import (
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// sysProcAttr puts the child in its own process group and asks the kernel
// to SIGKILL it when its parent dies.
//
// Pdeathsig fires when the OS thread that forked the child exits, not when
// the pier process exits. Go keeps its threads for the life of the process
// unless a goroutine exits while locked to its thread (runtime.LockOSThread
// without Unlock); never start a provider from such a goroutine, or the
// provider dies with it.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// pidfdOpen is unix.PidfdOpen; tests replace it to run without pidfds,
// as on a kernel that has none.
var pidfdOpen = unix.PidfdOpen

// openPidfd opens a pidfd of the child pid (close-on-exec, as pidfd_open
// always makes it), or returns nil where the kernel has no pidfd_open
// (before Linux 5.3) or refuses it: callers then ask waitid.
func openPidfd(pid int) *os.File {
	fd, err := pidfdOpen(pid, 0)
	if err != nil {
		return nil
	}
	return os.NewFile(uintptr(fd), "pidfd")
}

// startLocked starts cmd. It exists so the fork point is in one place
// should a platform need to pin the forking thread.
func startLocked(cmd *exec.Cmd) error {
	inheritedOnce.Do(closeInheritedOnExec)
	return cmd.Start()
}

// inheritedOnce runs closeInheritedOnExec before pier's first child starts.
var inheritedOnce sync.Once

// closeInheritedOnExec marks every descriptor above 2 close-on-exec. Go
// opens its own files close-on-exec, so the only ones without the flag
// are those pier's parent leaked to it (a CI runner's pipes, a shell's
// redirections). Without this they would pass to every provider, like
// parent environment variables the allow-list keeps out, and a daemon a
// provider left behind could hold a parent's pipe open for ever. Once is
// enough: pier itself creates no descriptor without the flag. It is best
// effort: without /proc nothing is marked.
func closeInheritedOnExec() {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return
	}
	for _, e := range entries {
		fd, err := strconv.Atoi(e.Name())
		if err != nil || fd <= 2 {
			continue
		}
		flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
		if err != nil || flags&unix.FD_CLOEXEC != 0 {
			continue // closed meanwhile (ReadDir's own), or already marked
		}
		_, _ = unix.FcntlInt(uintptr(fd), unix.F_SETFD, flags|unix.FD_CLOEXEC)
	}
}
