package tfclient

import "syscall"

// sysProcAttr makes the kernel kill the provider when the bridge dies, even
// by SIGKILL, so no provider outlives it.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
