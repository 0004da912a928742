package rpcapi_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pierhq/pier/internal/testbin"
	"github.com/pierhq/pier/internal/testneed"
)

// grpcPython finds a python3 that has Debian's grpcio and grpc_tools:
// /usr/bin/python3 first, since a python3 earlier on PATH (pyenv, a
// virtualenv) may not see Debian's packages.
func grpcPython(t *testing.T) string {
	t.Helper()
	for _, p := range []string{"/usr/bin/python3", "python3"} {
		path, err := exec.LookPath(p)
		if err != nil {
			continue
		}
		if exec.Command(path, "-c", "import grpc, grpc_tools.protoc").Run() == nil {
			return path
		}
	}
	testneed.Missing(t, "no python3 with grpc and grpc_tools", "apt-get install python3-grpcio python3-grpc-tools (.ci/setup.d/70-rpcapi.sh installs them)")
	return ""
}

// copyTree copies a directory (files only, modes kept).
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, info.Mode().Perm())
	})
	if err != nil {
		t.Fatal(err)
	}
}

// helloCopy is examples/hello with the provider it uses beside it, as in
// the repository, in a fresh directory.
func helloCopy(t *testing.T) string {
	t.Helper()
	root := testbin.ModuleRoot()
	tmp := t.TempDir()
	copyTree(t, filepath.Join(root, "examples", "hello"), filepath.Join(tmp, "hello"))
	copyTree(t, filepath.Join(root, "examples", "providers", "python-kv"), filepath.Join(tmp, "providers", "python-kv"))
	return filepath.Join(tmp, "hello")
}

type step map[string]any

// runScenario starts testdata/scenario.py and returns its steps as they
// come, and the command.
func runScenario(t *testing.T, dir string, extra ...string) (*exec.Cmd, <-chan step) {
	t.Helper()
	python := grpcPython(t)
	pier := testbin.Pier(t)
	script, err := filepath.Abs("testdata/scenario.py")
	if err != nil {
		t.Fatal(err)
	}
	proto, err := filepath.Abs("pier1")
	if err != nil {
		t.Fatal(err)
	}
	args := append([]string{script, pier, proto, dir, t.TempDir()}, extra...)
	cmd := exec.Command(python, args...)
	cmd.Dir = dir
	cmd.Stderr = &testWriter{t: t}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	steps := make(chan step)
	go func() {
		defer close(steps)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			var s step
			if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
				s = step{"step": "unparsed", "line": sc.Text()}
			}
			steps <- s
		}
		_, _ = io.Copy(io.Discard, out)
	}()
	return cmd, steps
}

type testWriter struct{ t *testing.T }

func (w *testWriter) Write(p []byte) (int, error) {
	w.t.Logf("scenario stderr: %s", strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// TestPythonClientScenario is the scenario, driven by a gRPC
// client written against pier1.proto alone, in Python.
func TestPythonClientScenario(t *testing.T) {
	t.Parallel()
	dir := helloCopy(t)
	cmd, steps := runScenario(t, dir)
	got := map[string]step{}
	var order []string
	for s := range steps {
		name, _ := s["step"].(string)
		got[name] = s
		order = append(order, name)
		if name == "failed" {
			t.Errorf("scenario failed: %v", s["what"])
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("scenario: %v (steps %v)", err, order)
	}
	want := []string{"started", "handshake_line", "refused_before_handshake", "handshake", "bad_deployment", "opened",
		"components", "validated", "planned", "close_refused", "applied", "inspected", "destroyed", "closed", "exited"}
	if strings.Join(order, " ") != strings.Join(want, " ") {
		t.Fatalf("steps\n got %v\nwant %v", order, want)
	}
	checks := []struct {
		step, key string
		want      any
	}{
		{"handshake_line", "socket_dir_mode", "0o700"},
		{"refused_before_handshake", "code", "FAILED_PRECONDITION"},
		{"bad_deployment", "handle", float64(0)},
		{"planned", "create", float64(4)},
		{"planned", "with_after", float64(4)},
		{"applied", "created", float64(4)},
		{"inspected", "value", "kv/greeting"},
		{"inspected", "type", "string"},
		{"destroyed", "destroyed", float64(4)},
		{"exited", "code", float64(0)},
	}
	for _, c := range checks {
		if got[c.step][c.key] != c.want {
			t.Errorf("%s.%s = %v, want %v", c.step, c.key, got[c.step][c.key], c.want)
		}
	}
	if d, _ := got["close_refused"]["detail"].(string); !strings.Contains(d, "deployment handle 1 is still used by plan handle 2") {
		t.Errorf("close_refused detail = %q", d)
	}
}

// TestKillingTheClientLeavesNoProcess kills the Python client in the
// middle of an apply and waits until nothing it started (pier rpcapi, its
// adapters, the provider busy applying) is left: all run in the
// deployment's directory, so /proc/*/cwd finds them.
func TestKillingTheClientLeavesNoProcess(t *testing.T) {
	t.Parallel()
	dir := helloCopy(t)
	// A resource that takes its time, so the kill lands mid-apply.
	slow := `
resource "slow" {
  provider = provider.local
  type     = "exec"
  inputs   = { executable = "/bin/sleep", args = ["600"] }
}
`
	if err := os.WriteFile(filepath.Join(dir, "slow.pier.hcl"), []byte(slow), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd, steps := runScenario(t, dir, "kill")
	var serverPid int
	var serverStart string
	for s := range steps {
		if s["step"] == "failed" {
			t.Fatalf("scenario failed: %v", s["what"])
		}
		if s["step"] == "applying" {
			serverPid = int(s["server_pid"].(float64))
			serverStart = procStart(serverPid)
			break
		}
	}
	if serverPid == 0 {
		t.Fatal("the scenario never reached the apply")
	}
	if n := len(processesIn(t, dir)); n < 2 {
		t.Fatalf("expected pier rpcapi and providers running in %s, found %d processes", dir, n)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	go func() {
		for range steps {
		}
	}()
	// pier rpcapi was the Python client's child: reaping it is not
	// possible, so poll /proc until it and everything else is gone. The
	// server is watched by pid as well as by directory: a process in the
	// middle of exiting has already dropped its working directory but is
	// not yet a zombie, and a loaded machine can hold it there a while.
	deadline := time.Now().Add(90 * time.Second)
	for {
		left := processesIn(t, dir)
		if len(left) == 0 && !stillRuns(serverPid, serverStart) {
			break
		}
		if time.Now().After(deadline) {
			if stillRuns(serverPid, serverStart) {
				left = append(left, fmt.Sprintf("%d pier rpcapi (state %s)", serverPid, procState(serverPid)))
			}
			t.Fatalf("processes left after the client was killed: %v", left)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// stillRuns reports whether the process pid, started at start, is alive
// and not a zombie. The same pid with another start time is a new process
// that reused it: a loaded machine starts many.
func stillRuns(pid int, start string) bool {
	if err := syscall.Kill(pid, 0); err != nil || procStart(pid) != start {
		return false
	}
	state := procState(pid)
	return state != "Z" && state != ""
}

// processesIn lists live processes whose working directory is dir, as
// "pid command".
func processesIn(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		testneed.Missing(t, "/proc is not readable", "the process check needs Linux /proc")
	}
	var out []string
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cwd, err := os.Readlink(filepath.Join("/proc", e.Name(), "cwd"))
		if err != nil || cwd != dir {
			continue
		}
		if procState(pid) == "Z" {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		out = append(out, e.Name()+" "+strings.ReplaceAll(string(cmdline), "\x00", " "))
	}
	return out
}

// procState is the state letter in /proc/PID/stat ("Z" for a zombie).
func procState(pid int) string { return procStat(pid, 0) }

// procStart is a process's start time, in clock ticks after boot: with
// the pid, it names one process.
func procStart(pid int) string { return procStat(pid, 19) }

// procStat returns field n of /proc/PID/stat counted from the state (the
// first field after the command name, which may hold spaces), or "".
func procStat(pid, n int) string {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return ""
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return ""
	}
	fields := strings.Fields(s[i+1:])
	if n >= len(fields) {
		return ""
	}
	return fields[n]
}
