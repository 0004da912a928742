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
// started learns that the provider exited, from the pidfd watch rather
// than go-plugin's once-a-second poll, and its watch ends with Close.
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
	if c.plugin.Exited() {
		t.Fatal("the provider is running, yet the attached client says it exited")
	}
	owner.Close() // stops the provider
	deadline := time.Now().Add(exitBound)
	for !c.plugin.Exited() {
		if time.Now().After(deadline) {
			t.Fatalf("the attached client did not notice within %s that the provider exited", exitBound)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestExitWatchClose: Wait returns when the watch is closed, while its
// process still runs, so that no goroutine outlives the client.
func TestExitWatchClose(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("sleep", "600")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	w := watchExit(cmd.Process.Pid)
	if w == nil {
		t.Fatal("no pidfd watch")
	}
	done := make(chan error, 1)
	go func() { done <- w.Wait(t.Context()) }()
	w.Close()
	select {
	case <-done:
	case <-time.After(exitBound):
		t.Fatal("Wait did not return once the watch was closed")
	}
}
