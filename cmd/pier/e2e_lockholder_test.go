package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestLockLoserIsToldTheCommand checks what the loser of a lock race is
// told: the pier command the user started (its pid, its command line
// without values, user and host), not the pid of the `pier adapter local`
// child that holds the flock; and the exit code is the documented
// "state locked" one. (apply, destroy and state forget wait for the lock
// instead of refusing.)
func TestLockLoserIsToldTheCommand(t *testing.T) {
	t.Parallel()
	const secret = "hunter2-lock"
	// fast is recorded (which takes the lock), then slow holds the apply.
	d := newDeployment(t, map[string]string{"main.pier.hcl": header + `
resource "fast" {
  provider = provider.journal
  type     = "echo"
  state    = resource.state
  inputs   = { value = "fast" }
}
resource "slow" {
  provider = provider.journal
  type     = "echo"
  state    = resource.state
  inputs   = { value = "${resource.fast.outputs.value}-slow", sleep = 60 }
}
variable "token" {
  type      = string
  sensitive = true
  default   = ""
}
`})
	holder := d.command("apply", "--parallelism", "1", "--var", "token="+secret)
	errb := &syncBuffer{}
	holder.Stderr = errb
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		holder.Process.Signal(syscall.SIGINT)
		holder.Process.Signal(syscall.SIGKILL)
		holder.Wait()
	})
	// The lock record is written once the first create is being recorded.
	lock := filepath.Join(d.dir, "state.json.lock")
	deadline := time.Now().Add(60 * time.Second)
	for {
		if data, _ := os.ReadFile(lock); len(data) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the first apply never took the lock:\n%s", errb)
		}
		time.Sleep(20 * time.Millisecond)
	}
	want := "is locked by process " + strconv.Itoa(holder.Process.Pid) + " since "
	host, _ := os.Hostname()
	for _, args := range [][]string{{"statefile", "compact", "state.json"}} {
		out, errs, code := d.run(args...)
		all := out + errs
		if code != exitStateLocked {
			t.Errorf("pier %v: exit %d, want %d (state locked)\n%s", args, code, exitStateLocked, all)
		}
		for _, w := range []string{want, "(pier apply --parallelism … --var …, run by ", " on " + host + ")"} {
			if !strings.Contains(all, w) {
				t.Errorf("pier %v does not say %q:\n%s", args, w, all)
			}
		}
		if strings.Contains(all, secret) {
			t.Errorf("pier %v printed the holder's --var value:\n%s", args, all)
		}
	}
}
