package proc

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"

	"github.com/pierhq/pier/host/internal/proc/proctest"
)

// helperEnv makes the test binary act as a small parent process for the
// parent-death test instead of running tests.
const helperEnv = "PIER_PROC_TEST_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "orphan-maker" {
		// Start a long sleep and exit without waiting: its Pdeathsig must
		// kill it.
		p, err := Start(Spec{Path: "sleep", Args: []string{"300"}})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println(p.Pid())
		os.Exit(0)
	}
	leakedPipe = leakPipe()
	os.Exit(m.Run())
}

// leakedPipe is the inode of a pipe whose write end the test binary holds
// without close-on-exec, as a descriptor pier's own parent leaked to it
// would be. It is made before any child starts.
var leakedPipe uint64

func leakPipe() uint64 {
	r, w, err := os.Pipe()
	if err != nil {
		panic(err)
	}
	r.Close()
	if _, err := unix.FcntlInt(w.Fd(), unix.F_SETFD, 0); err != nil {
		panic(err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(int(w.Fd()), &st); err != nil {
		panic(err)
	}
	return st.Ino // w stays open for the life of the test binary
}

func TestBuildEnv(t *testing.T) {
	t.Parallel()
	parent := []string{
		"PATH=/bin", "HOME=/root", "AWS_SECRET_ACCESS_KEY=hunter2", "LC_ALL=C",
		"NIX_PATH=nixpkgs=x", "PIER_LOG=debug", "PIER_BIN=/x", "TERM=xterm", "TZ=UTC", "NOEQUALS",
	}
	cases := map[string]struct {
		extra map[string]string
		want  []string
	}{
		"nil extras": {
			want: []string{"HOME=/root", "LC_ALL=C", "NIX_PATH=nixpkgs=x", "PATH=/bin", "PIER_LOG=debug", "TZ=UTC"},
		},
		"extras add and override": {
			extra: map[string]string{"PATH": "/opt/bin", "TOKEN_FILE": "/run/t"},
			want:  []string{"HOME=/root", "LC_ALL=C", "NIX_PATH=nixpkgs=x", "PATH=/opt/bin", "PIER_LOG=debug", "TOKEN_FILE=/run/t", "TZ=UTC"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, buildEnv(parent, tc.extra)); diff != "" {
				t.Errorf("buildEnv (-want +got):\n%s", diff)
			}
		})
	}
}

// run starts a /bin/sh script (the script text is an argument, not a shell
// command line built by pier) and returns its stdout after it exits.
func run(t *testing.T, spec Spec) (string, *Process) {
	t.Helper()
	p, err := Start(spec)
	if err != nil {
		t.Fatal(err)
	}
	p.CloseStdin()
	out, err := io.ReadAll(p.Stdout())
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, p.Stderr())
	if err := p.Wait(5 * time.Second); err != nil {
		t.Fatalf("Wait: %v", err)
	}
	return string(out), p
}

func TestStartEnvDirAndGroup(t *testing.T) {
	t.Setenv("PIER_PROC_TEST_SECRET", "must-not-leak")
	dir := t.TempDir()
	out, p := run(t, Spec{
		Path: "/bin/sh",
		Args: []string{"-c", `pwd; echo "pgid=$(cut -d" " -f5 /proc/$$/stat) pid=$$"; env | sort`, "ignored-argv0"},
		Env:  map[string]string{"EXTRA": "1"},
		Dir:  dir,
	})
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if lines[0] != dir {
		t.Errorf("working directory = %q, want %q", lines[0], dir)
	}
	if want := fmt.Sprintf("pgid=%d pid=%d", p.Pid(), p.Pid()); lines[1] != want {
		t.Errorf("process group line = %q, want %q (own process group)", lines[1], want)
	}
	env := strings.Join(lines[2:], "\n")
	if strings.Contains(env, "must-not-leak") {
		t.Errorf("child environment leaks a variable outside the allow-list:\n%s", env)
	}
	if !strings.Contains(env, "EXTRA=1") || !strings.Contains(env, "PATH=") {
		t.Errorf("child environment lacks EXTRA or PATH:\n%s", env)
	}
	if strings.Contains(env, ConfigFDEnv) {
		t.Errorf("%s set without ConfigData", ConfigFDEnv)
	}
	if got := p.ExitStatus(); got != "exit status 0" {
		t.Errorf("ExitStatus() = %q, want exit status 0", got)
	}
}

func TestConfigOnFD3(t *testing.T) {
	t.Parallel()
	cases := map[string]struct{ data []byte }{
		"small":            {data: []byte(`{"token":"abc"}`)},
		"empty":            {data: []byte{}},
		"larger than pipe": {data: []byte(strings.Repeat("z", 1<<20))},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			out, _ := run(t, Spec{
				Path:       "/bin/sh",
				Args:       []string{"-c", `echo "fd=$PIER_PROVIDER_CONFIG_FD"; wc -c <&3 | tr -d ' '`},
				ConfigData: tc.data,
			})
			want := fmt.Sprintf("fd=3\n%d\n", len(tc.data))
			if diff := cmp.Diff(want, out); diff != "" {
				t.Errorf("child output (-want +got):\n%s", diff)
			}
		})
	}
}

// TestConfigIgnored checks that a child which never reads fd 3 does not
// leave the config writer blocked: Wait must return.
func TestConfigIgnored(t *testing.T) {
	t.Parallel()
	run(t, Spec{Path: "/bin/true", ConfigData: []byte(strings.Repeat("z", 1<<20))})
}

func TestExitStatus(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		script string
		want   string
	}{
		"zero":     {script: "exit 0", want: "exit status 0"},
		"non-zero": {script: "exit 7", want: "exit status 7"},
		"signal":   {script: "kill -TERM $$", want: "signal: terminated"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p, err := Start(Spec{Path: "/bin/sh", Args: []string{"-c", tc.script}})
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, p.Stdout())
			io.Copy(io.Discard, p.Stderr())
			p.Wait(5 * time.Second)
			if got := p.ExitStatus(); got != tc.want {
				t.Errorf("ExitStatus() = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestWaitKillsGroupAfterGrace starts a shell that ignores stdin closing
// and has a grandchild; Wait must kill both after the grace period.
func TestWaitKillsGroupAfterGrace(t *testing.T) {
	t.Parallel()
	p, err := Start(Spec{Path: "/bin/sh", Args: []string{"-c", "trap '' INT TERM; sleep 300 & wait"}})
	if err != nil {
		t.Fatal(err)
	}
	p.CloseStdin()
	err = p.Wait(50 * time.Millisecond)
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("Wait() = %v, want an *exec.ExitError from the kill", err)
	}
	if got := p.ExitStatus(); got != "signal: killed" {
		t.Errorf("ExitStatus() = %q, want signal: killed", got)
	}
	proctest.AssertGroupGone(t, p.Pid())
	if err := p.Kill(); err != nil {
		t.Errorf("Kill after Wait = %v, want nil (idempotent)", err)
	}
}

// TestWaitSweepsDescendants: the leader exits by itself but leaves a
// background child in its group; Wait must not leave it running.
func TestWaitSweepsDescendants(t *testing.T) {
	t.Parallel()
	p, err := Start(Spec{Path: "/bin/sh", Args: []string{"-c", "sleep 300 >/dev/null 2>&1 & exit 0"}})
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, p.Stdout())
	io.Copy(io.Discard, p.Stderr())
	if err := p.Wait(5 * time.Second); err != nil {
		t.Fatalf("Wait() = %v, want nil", err)
	}
	proctest.AssertGroupGone(t, p.Pid())
}

func TestKillIdempotent(t *testing.T) {
	t.Parallel()
	p, err := Start(Spec{Path: "sleep", Args: []string{"300"}})
	if err != nil {
		t.Fatal(err)
	}
	if p.HasExited() {
		t.Error("HasExited() = true for a running process")
	}
	for i := range 3 {
		if err := p.Kill(); err != nil {
			t.Fatalf("Kill #%d = %v", i, err)
		}
	}
	<-p.Exited()
	if !p.HasExited() {
		t.Error("HasExited() = false after Exited was closed")
	}
	io.Copy(io.Discard, p.Stdout())
	p.Wait(0)
	if !p.HasExited() {
		t.Error("HasExited() = false after Wait")
	}
	proctest.AssertGroupGone(t, p.Pid())
}

func TestStartMissingExecutable(t *testing.T) {
	t.Parallel()
	_, err := Start(Spec{Path: "/nonexistent/provider"})
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Start(missing) = %v, want an error wrapping os.ErrNotExist", err)
	}
	if err != nil && !strings.Contains(err.Error(), "/nonexistent/provider") {
		t.Errorf("error %q does not name the executable", err)
	}
}

// TestParentDeathKillsChild runs this test binary as a parent that starts
// a sleep and exits; Pdeathsig must take the sleep down with it.
func TestParentDeathKillsChild(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), helperEnv+"=orphan-maker")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("helper: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatalf("helper output %q: %v", out, err)
	}
	proctest.AssertGroupGone(t, pid)
	_ = syscall.Kill(-pid, syscall.SIGKILL) // in case the assertion failed
}

// TestConfigLater checks that a child started before its configuration is
// known reads it on fd 3 once it is set, and that one Later feeds several
// children.
func TestConfigLater(t *testing.T) {
	t.Parallel()
	cases := map[string]struct{ data []byte }{
		"small":            {data: []byte(`{"token":"abc"}`)},
		"empty":            {data: []byte{}},
		"larger than pipe": {data: []byte(strings.Repeat("z", 1<<20))},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			later := NewLater()
			var ps []*Process
			for range 2 {
				p, err := Start(Spec{
					Path:        "/bin/sh",
					Args:        []string{"-c", `echo "fd=$PIER_PROVIDER_CONFIG_FD"; wc -c <&3 | tr -d ' '`},
					ConfigLater: later,
				})
				if err != nil {
					t.Fatal(err)
				}
				ps = append(ps, p)
			}
			later.Set(tc.data)
			later.Set([]byte("ignored: the first Set wins"))
			want := fmt.Sprintf("fd=3\n%d\n", len(tc.data))
			for _, p := range ps {
				p.CloseStdin()
				out, err := io.ReadAll(p.Stdout())
				if err != nil {
					t.Fatal(err)
				}
				io.Copy(io.Discard, p.Stderr())
				if err := p.Wait(5 * time.Second); err != nil {
					t.Fatalf("Wait: %v", err)
				}
				if diff := cmp.Diff(want, string(out)); diff != "" {
					t.Errorf("child output (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// TestConfigLaterNeverSet checks that a child whose configuration never
// comes can be killed and reaped: the writer waiting for it must not hold
// up Wait.
func TestConfigLaterNeverSet(t *testing.T) {
	t.Parallel()
	p, err := Start(Spec{Path: "/bin/sh", Args: []string{"-c", `cat <&3`}, ConfigLater: NewLater()})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Kill(); err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, p.Stdout())
	io.Copy(io.Discard, p.Stderr())
	p.Wait(5 * time.Second)
	if got := p.ExitStatus(); got != "signal: killed" {
		t.Errorf("ExitStatus() = %q, want signal: killed", got)
	}
}
