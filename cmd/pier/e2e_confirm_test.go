package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pierhq/pier/internal/testneed"
)

// TestApplyAsksWhenOnlyStdinIsATerminal checks that the confirmation
// follows standard input, as tofu's does: pier apply | tee apply.log on a
// terminal still asks (the question goes to the pipe, the answer comes
// from the terminal), where it used to apply without asking.
func TestApplyAsksWhenOnlyStdinIsATerminal(t *testing.T) {
	t.Parallel()
	scriptBin := testneed.Tool(t, "script")
	d := newDeployment(t, map[string]string{"main.pier.hcl": header + `
resource "r" {
  provider = provider.journal
  type = "echo"
  state = resource.state
  inputs = { value = "v" }
}
`})
	logPath := filepath.Join(d.dir, "apply.log")
	// script(1) gives pier a terminal on stdin; stdout goes to a file.
	cmd := exec.Command(scriptBin, "-qfec", "exec "+d.pier+" apply >apply.log", "/dev/null")
	cmd.Dir = d.dir
	cmd.Env = d.command().Env
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	var term syncBuffer
	cmd.Stdout, cmd.Stderr = &term, &term
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	read := func() string { b, _ := os.ReadFile(logPath); return string(b) }
	deadline := time.After(60 * time.Second)
	for !strings.Contains(read(), "Only 'yes' will be accepted") {
		select {
		case err := <-done:
			t.Fatalf("pier apply with stdout piped ended without asking (%v):\n%s\n%s", err, read(), term.String())
		case <-deadline:
			cmd.Process.Kill()
			t.Fatalf("no question in apply.log:\n%s\n%s", read(), term.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	if _, err := stdin.Write([]byte("no\r")); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != exitError {
			t.Errorf("pier apply declined: %v, want exit %d", err, exitError)
		}
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("pier apply kept waiting after the answer:\n%s\n%s", read(), term.String())
	}
	if n := d.count("create", "v"); n != 0 {
		t.Errorf("%d creates after the answer no", n)
	}
}
