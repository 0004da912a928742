package local_test

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestExecDiesWithAdapter kills the adapter outright (as happens when pier
// itself is killed and Pdeathsig takes its providers) while an exec
// resource's program runs: the program must die too, not run on as an
// orphan whose result nobody will record.
func TestExecDiesWithAdapter(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := startAdapter(t, dir)
	pidFile := filepath.Join(dir, "program.pid")
	args, err := json.Marshal([]string{"-c", "echo $$ > " + pidFile + ".tmp && mv " + pidFile + ".tmp " + pidFile + " && exec sleep 300"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(a.stdin, create("exec", `{"executable":"sh","args":`+string(args)+`}`, false)+"\n"); err != nil {
		t.Fatal(err)
	}
	pid := waitPidFile(t, pidFile)
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	if err := a.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-a.exited
	deadline := time.Now().Add(replyBound)
	for running(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("exec program %d outlived the killed adapter", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func waitPidFile(t *testing.T, path string) int {
	t.Helper()
	deadline := time.Now().Add(replyBound)
	for {
		data, err := os.ReadFile(path)
		if err == nil {
			pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
			if err != nil {
				t.Fatalf("pid file %s: %v", path, err)
			}
			return pid
		}
		if time.Now().After(deadline) {
			t.Fatalf("program did not start: no %s", path)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// running reports whether pid is alive and not a zombie.
func running(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}
