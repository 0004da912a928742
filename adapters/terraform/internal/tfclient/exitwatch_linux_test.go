package tfclient

import (
	"os/exec"
	"testing"
	"time"
)

// exitBound is how long a test waits for an exit to be noticed: far above
// the moment it takes, so only a watch that never fires trips it.
const exitBound = 60 * time.Second

// TestAttachedSeesExit: a client attached to a provider another client
// started learns from its pidfd watch that the provider exited.
func TestAttachedSeesExit(t *testing.T) {
	t.Parallel()
	owner, _ := start(t, Options{Path: providerBin(t, "terraform-provider-time")})
	att, err := owner.Attachment(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	c, err := Attach(att, "terraform-provider-time", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.watch == nil {
		t.Fatal("no pidfd watch of the attached provider (Linux has had pidfds since 5.3)")
	}
	if c.exited() {
		t.Fatal("the provider is running, yet the attached client says it exited")
	}
	owner.Close() // stops the provider
	if !c.watch.exitedWithin(c.pid, exitBound) {
		t.Fatalf("the attached client did not notice within %s that the provider exited", exitBound)
	}
}

// TestExitWatch: the watch tells a running process from one that
// exited, with a pidfd and, where there is none, by its pid; a closed
// watch says nothing has exited.
func TestExitWatch(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("sleep", "600")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	pid := cmd.Process.Pid
	w := watchExit(pid)
	if w == nil {
		t.Fatal("no pidfd watch")
	}
	defer w.Close()
	var none *exitWatch
	if w.exitedWithin(pid, 0) || none.exitedWithin(pid, 0) {
		t.Fatal("a running process counts as exited")
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	if !w.exitedWithin(pid, exitBound) {
		t.Fatal("the pidfd watch did not see the kill")
	}
	_ = cmd.Wait() // reaped: the pid is gone too
	if !none.exitedWithin(pid, exitBound) {
		t.Fatal("the probe of the pid did not see the exit")
	}
	w.Close()
	if w.exitedWithin(pid, 0) {
		t.Fatal("a closed watch still answers")
	}
}
