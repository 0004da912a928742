package local

import "syscall"

// execSysProcAttr makes the kernel kill an exec resource's program when
// the adapter dies: pier's Pdeathsig or group kill takes the adapter, and
// nothing would be left to record the program's result. The program stays
// in the adapter's process group, so pier's sweep of the group after the
// adapter exits reaches it and its children too.
//
// Pdeathsig fires when the forking thread exits; Go keeps its threads for
// the life of the process unless a goroutine exits while locked to one,
// and the adapter locks none.
func execSysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
