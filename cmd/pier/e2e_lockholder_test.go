package main

// Not a scenario: two piers race for the state lock while one holds it, two processes at once.

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
// child that holds the flock; and every writer exits with the documented
// "state locked" code.
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
	// The lock record is written when apply first reads the state, and
	// the state file once the first create is recorded.
	lock := filepath.Join(d.dir, "state.json.lock")
	deadline := time.Now().Add(60 * time.Second)
	for {
		_, statErr := os.Stat(filepath.Join(d.dir, "state.json"))
		if data, _ := os.ReadFile(lock); len(data) > 0 && statErr == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the first apply never took the lock:\n%s", errb)
		}
		time.Sleep(20 * time.Millisecond)
	}
	want := "is locked by process " + strconv.Itoa(holder.Process.Pid) + " since "
	host, _ := os.Hostname()
	// Every writer is refused with the same code, whether it opens the
	// file itself (compact) or through the state_file handler.
	for _, args := range [][]string{
		{"statefile", "compact", "state.json"},
		{"apply", "--yes"},
		{"plan", "-out", "p.plan"},
		{"destroy", "--yes"},
		{"state", "forget", "fast"},
	} {
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

// TestConcurrentApplyCreatesNothingTwice: a second apply started while the
// first is still creating must not plan against the state the first has
// not finished recording. It is refused at its first read of the state,
// naming the holder, before it creates anything; before, it created slow
// a second time and then failed to record it.
func TestConcurrentApplyCreatesNothingTwice(t *testing.T) {
	t.Parallel()
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
  inputs   = { value = "${resource.fast.outputs.value}-slow", sleep = 3 }
}
`})
	first := d.command("apply", "--parallelism", "1")
	firstErr := &syncBuffer{}
	first.Stderr = firstErr
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	// Start the second once the first has recorded fast and is creating
	// slow: the moment a plan without the lock would create slow again.
	deadline := time.Now().Add(60 * time.Second)
	for !recorded(d, "fast") {
		if time.Now().After(deadline) {
			first.Process.Kill()
			t.Fatalf("the first apply never started slow:\n%s", firstErr)
		}
		time.Sleep(20 * time.Millisecond)
	}
	_, errs, code := d.run("apply")
	if code != exitStateLocked || !strings.Contains(errs, "is locked by process "+strconv.Itoa(first.Process.Pid)) {
		t.Errorf("second apply during the first: exit %d, want a refusal naming pid %d:\n%s", code, first.Process.Pid, errs)
	}
	if err := first.Wait(); err != nil {
		t.Fatalf("first apply: %v\n%s", err, firstErr)
	}
	if out, errs, code := d.run("apply"); code != 0 || !strings.Contains(out, "No changes") {
		t.Errorf("apply after the first: exit %d, want no changes:\n%s%s", code, out, errs)
	}
	for _, v := range []string{"fast", "fast-slow"} {
		if n := d.count("create", v); n != 1 {
			t.Errorf("%s created %d times, want once; journal %+v", v, n, d.journal())
		}
	}
}

// recorded reports whether the deployment's state.json records addr. It
// is polled while an apply appends: a torn event being written counts as
// not recorded yet.
func recorded(d *deployment, addr string) bool {
	rs, _ := d.peekState("state.json")["resources"].(map[string]any)
	return rs[addr] != nil
}
