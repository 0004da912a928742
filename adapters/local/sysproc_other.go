//go:build !linux

package local

import "syscall"

// execSysProcAttr: only Linux has Pdeathsig; elsewhere the program outlives
// an adapter that is killed outright.
func execSysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{} }
