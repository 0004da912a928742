package nixsource

import (
	"errors"
	"os/exec"
	"syscall"
)

// ownGroup runs cmd in a process group of its own, killed whole when ctx
// ends, and asks the kernel to kill nix if pier dies. nix starts children
// (git to fetch a flake, builders, the flake's own programs); killing nix
// alone would leave them running and holding its output. A group of its
// own also keeps a terminal's Ctrl-C from reaching nix: pier decides, on
// the first interrupt, to let a round finish.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error {
		err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		if errors.Is(err, syscall.ESRCH) {
			return nil
		}
		return err
	}
}
