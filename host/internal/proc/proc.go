package proc

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// DefaultWaitDelay bounds how long [exec.Cmd.Wait] waits for the pipes to be
// released after the process is killed. It only matters when a descendant
// that escaped the process group (setsid) still holds a pipe; pier must not
// hang on it.
const DefaultWaitDelay = 2 * time.Second

// Spec describes a process to start.
type Spec struct {
	// Path is the executable. A name without a slash is looked up in PATH.
	Path string
	// Args are the arguments after argv[0].
	Args []string
	// Env holds variables set in addition to the allowed parent variables
	// (see allowedEnv), overriding them.
	Env map[string]string
	// Dir is the working directory; empty means pier's own, resolved
	// explicitly at start.
	Dir string
	// ConfigData, when non-nil, is written to a pipe the child reads on
	// file descriptor 3, announced by PIER_PROVIDER_CONFIG_FD=3. It is
	// never logged and never appears in argv or the environment.
	ConfigData []byte
	// ConfigLater, when non-nil and ConfigData is nil, is configuration
	// data known only after the process starts: the child gets the pipe
	// on file descriptor 3 at once, and the data once [Later.Set] gives
	// it. A child started before its configuration is known has its own
	// start-up done by then (a Terraform bridge started while its
	// provider starts).
	ConfigLater *Later
}

// Later is configuration data given to processes that were started
// before it was known (see [Spec.ConfigLater]); one Later may serve
// several processes. It is safe for concurrent use.
type Later struct {
	once sync.Once
	done chan struct{}
	data []byte
}

// NewLater returns a Later whose data is not known yet.
func NewLater() *Later { return &Later{done: make(chan struct{})} }

// Set gives the data, once: later calls do nothing. Each process waiting
// for it then reads it on file descriptor 3, and end of file after it.
func (l *Later) Set(data []byte) {
	l.once.Do(func() {
		l.data = data
		close(l.done)
	})
}

// Process is a started child in its own process group. Its methods are
// safe for concurrent use.
type Process struct {
	cmd    *exec.Cmd
	stdin  *os.File
	stdout *os.File
	stderr *os.File
	pgid   int

	// cancel ends the lifetime context given to exec.CommandContext, which
	// makes exec call Cmd.Cancel (a group kill) and start its WaitDelay
	// clock. It is the supervisor lifetime context STYLE §5 allows.
	cancel context.CancelFunc

	exited     chan struct{} // closed when the leader has exited (not yet reaped)
	configDone chan struct{} // closed when the fd 3 writer has finished
	// exitFile is a pidfd of the process: it polls readable once the
	// process has exited. nil where the kernel offers none (see openPidfd).
	exitFile *os.File

	mu       sync.Mutex
	reaped   bool
	waitOnce sync.Once
	waitErr  error
}

// Start starts the process described by spec. The caller must eventually
// call [Process.Wait], after draining Stdout and Stderr, to reap it.
func Start(spec Spec) (*Process, error) {
	dir := spec.Dir
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("start %s: resolve working directory: %w", spec.Path, err)
		}
		dir = wd
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, spec.Path, spec.Args...)
	cmd.Dir = dir
	extra := spec.Env
	later := spec.ConfigLater
	if spec.ConfigData != nil {
		later = nil
	}
	if spec.ConfigData != nil || later != nil {
		extra = make(map[string]string, len(spec.Env)+1)
		for k, v := range spec.Env {
			extra[k] = v
		}
		extra[ConfigFDEnv] = "3"
	}
	cmd.Env = buildEnv(os.Environ(), extra)
	cmd.SysProcAttr = sysProcAttr()
	cmd.WaitDelay = DefaultWaitDelay

	p := &Process{cmd: cmd, cancel: cancel, exited: make(chan struct{}), configDone: make(chan struct{})}
	cmd.Cancel = p.killGroup

	var closeAfterStart, closeOnError []*os.File
	fail := func(err error) (*Process, error) {
		cancel()
		for _, f := range append(closeAfterStart, closeOnError...) {
			f.Close()
		}
		return nil, fmt.Errorf("start %s: %w", spec.Path, err)
	}
	// stdin is our own pipe rather than Cmd.StdinPipe so that writes can
	// carry a deadline (a provider that stops reading must not block pier).
	inR, inW, err := os.Pipe()
	if err != nil {
		return fail(err)
	}
	cmd.Stdin = inR
	closeAfterStart = append(closeAfterStart, inR)
	closeOnError = append(closeOnError, inW)
	p.stdin = inW
	// stdout and stderr come from Cmd so that Wait closes them once the
	// process has exited; callers drain them before Wait.
	out, err := cmd.StdoutPipe()
	if err != nil {
		return fail(err)
	}
	errPipe, err := cmd.StderrPipe()
	if err != nil {
		return fail(err)
	}
	var ok bool
	if p.stdout, ok = out.(*os.File); !ok {
		return fail(errors.New("stdout pipe is not a file: this is a bug in pier"))
	}
	if p.stderr, ok = errPipe.(*os.File); !ok {
		return fail(errors.New("stderr pipe is not a file: this is a bug in pier"))
	}
	var cfgW *os.File
	if spec.ConfigData != nil || later != nil {
		cfgR, w, err := os.Pipe()
		if err != nil {
			return fail(err)
		}
		cmd.ExtraFiles = []*os.File{cfgR} // becomes fd 3
		closeAfterStart = append(closeAfterStart, cfgR)
		closeOnError = append(closeOnError, w)
		cfgW = w
	}
	if err := startLocked(cmd); err != nil {
		// Cmd closes the pipes it created itself when Start fails.
		return fail(err)
	}
	for _, f := range closeAfterStart {
		f.Close()
	}
	p.pgid = cmd.Process.Pid
	// The child is not reaped before Wait, so the pid cannot name another
	// process yet.
	p.exitFile = openPidfd(p.pgid)
	go p.watchExit()
	if cfgW != nil {
		go p.writeConfig(cfgW, spec.ConfigData, later)
	} else {
		close(p.configDone)
	}
	return p, nil
}

// writeConfig feeds the configuration pipe: data, or later's once it is
// set. It may block until the child reads; Wait closes the pipe's write
// end to end it if the child never does, and a child that exits before
// later is set gets nothing.
func (p *Process) writeConfig(w *os.File, data []byte, later *Later) {
	defer close(p.configDone)
	defer w.Close()
	go func() {
		<-p.exited
		w.Close() // unblocks a pending write; double Close is harmless
	}()
	if later != nil {
		select {
		case <-later.done:
			data = later.data
		case <-p.exited:
			return
		}
	}
	_, _ = w.Write(data) // a child that ignores its configuration is not an error here
}

// watchExit closes p.exited when the leader exits, without reaping it: the
// zombie keeps the process group id reserved, so a later group kill cannot
// hit an unrelated group that reused the id.
func (p *Process) watchExit() {
	defer close(p.exited)
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, p.pgid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, unix.EINTR) {
			return
		}
	}
}

// Pid returns the process id, which is also its process group id.
func (p *Process) Pid() int { return p.pgid }

// Stdin is the write end of the child's standard input.
func (p *Process) Stdin() *os.File { return p.stdin }

// Stdout is the read end of the child's standard output. It supports read
// deadlines.
func (p *Process) Stdout() *os.File { return p.stdout }

// Stderr is the read end of the child's standard error.
func (p *Process) Stderr() *os.File { return p.stderr }

// Exited is closed once the process has exited (it may not be reaped yet).
func (p *Process) Exited() <-chan struct{} { return p.exited }

// ExitFile returns a file that polls readable (POLLIN) once the process
// has exited, a pidfd, so that a caller can ask whether it has exited in
// the same poll as it asks its pipes something; nil where the kernel
// offers none (Linux before 5.3, or a sandbox that refuses pidfd_open):
// then HasExited asks. The caller must not read or close it: Wait closes
// it once the process is reaped, and a poll of it fails from then on.
func (p *Process) ExitFile() *os.File { return p.exitFile }

// HasExited reports, without blocking, whether the process has exited. It
// asks the kernel directly, so it is accurate even before the goroutine
// behind Exited has noticed.
func (p *Process) HasExited() bool {
	select {
	case <-p.exited:
		return true
	default:
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.reaped {
		return true
	}
	// A raw system call: with WNOHANG waitid never blocks, so, like the
	// runtime's own non-blocking calls, it need not wake the runtime's
	// monitor thread, which a command idle between requests has let
	// sleep (entersyscall wakes it: a futex wake and 20 µs polls).
	var info unix.Siginfo
	errno := syscall.EINTR
	for errno == syscall.EINTR {
		_, _, errno = syscall.RawSyscall6(unix.SYS_WAITID, unix.P_PID, uintptr(p.pgid), uintptr(unsafe.Pointer(&info)), unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, 0, 0)
	}
	// Linux sets si_signo to SIGCHLD only when it found an exited child;
	// with WNOHANG and a running child it is 0.
	return errno != 0 || info.Signo != 0
}

// CloseStdin closes the child's standard input: the v0 protocol's only
// stop signal.
func (p *Process) CloseStdin() error {
	if err := p.stdin.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
		return fmt.Errorf("close stdin of process %d: %w", p.pgid, err)
	}
	return nil
}

// Kill sends SIGKILL to the whole process group. It is idempotent: a group
// that is already gone counts as success, and after Wait it does nothing.
func (p *Process) Kill() error {
	p.cancel() // lets exec's WaitDelay bound a later Wait
	return p.killGroup()
}

func (p *Process) killGroup() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.reaped {
		return nil
	}
	err := syscall.Kill(-p.pgid, syscall.SIGKILL)
	if err == nil || errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return fmt.Errorf("kill process group %d: %w", p.pgid, err)
}

// Wait waits up to grace for the process to exit, kills the group when it
// has not, kills any descendants left in the group, and reaps the process.
// The caller must have drained Stdout and Stderr first: reaping closes
// them. Wait is idempotent and returns the same result each time: nil for
// exit status 0, otherwise an error such as *exec.ExitError.
func (p *Process) Wait(grace time.Duration) error {
	p.waitOnce.Do(func() {
		t := time.NewTimer(grace)
		select {
		case <-p.exited:
			t.Stop()
		case <-t.C:
		}
		// The leader is dead or about to be killed; either way nothing in
		// its group may outlive it. The zombie still holds the group id.
		_ = p.killGroup()
		<-p.exited
		p.waitErr = p.cmd.Wait()
		p.mu.Lock()
		p.reaped = true
		p.mu.Unlock()
		if p.exitFile != nil {
			p.exitFile.Close()
		}
		p.stdin.Close()
		p.cancel()
		<-p.configDone
	})
	return p.waitErr
}

// ExitStatus describes how the process ended, e.g. "exit status 3" or
// "signal: killed"; "" before Wait.
func (p *Process) ExitStatus() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.reaped || p.cmd.ProcessState == nil {
		return ""
	}
	return p.cmd.ProcessState.String()
}

// ExitCode is the process's exit status; -1 before Wait, or when a signal
// ended it.
func (p *Process) ExitCode() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.reaped || p.cmd.ProcessState == nil {
		return -1
	}
	return p.cmd.ProcessState.ExitCode()
}
