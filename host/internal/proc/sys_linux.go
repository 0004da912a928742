package proc

import (
	"os/exec"
	"syscall"
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

// startLocked starts cmd. It exists so the fork point is in one place
// should a platform need to pin the forking thread.
func startLocked(cmd *exec.Cmd) error { return cmd.Start() }
