//go:build !linux

package tfclient

import "syscall"

// sysProcAttr: only Linux has Pdeathsig; elsewhere the bridge's Close is
// what stops the provider.
func sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{} }
