//go:build !linux

package nixsource

import "os/exec"

// ownGroup leaves cmd as it is: process groups and Pdeathsig are set up
// only on Linux, where pier runs nix.
func ownGroup(*exec.Cmd) {}
