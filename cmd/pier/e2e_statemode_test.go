package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestLooseStateFileIsTightenedByAWrite: a state file readable by others
// (NixOps4 writes 0644) keeps its mode through every command that only
// reads it, pier plan and pier plan -out included; the first command that
// writes it makes it 0600, and says so once.
func TestLooseStateFileIsTightenedByAWrite(t *testing.T) {
	t.Parallel()
	conf := func(v string) string {
		return header + `
resource "a" {
  provider = provider.journal
  type     = "echo"
  state    = resource.state
  inputs   = { value = "` + v + `" }
}
resource "b" {
  provider = provider.journal
  type     = "echo"
  state    = resource.state
  inputs   = { value = "` + v + `-b" }
}
`
	}
	d := newDeployment(t, map[string]string{"main.pier.hcl": conf("one")})
	d.mustRun("apply")
	path := filepath.Join(d.dir, "state.json")
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	d.write(map[string]string{"main.pier.hcl": conf("two")})
	for _, cmd := range [][]string{{"plan"}, {"plan", "-out", "plan.json"}, {"state", "list"}, {"output"}, {"statefile", "verify", "state.json"}} {
		_, errs, code := d.run(cmd...)
		if code != 0 {
			t.Fatalf("pier %v: exit %d\n%s", cmd, code, errs)
		}
		if got := mode(t, path).Perm(); got != 0o644 {
			t.Fatalf("pier %v, which only reads, changed the state file's mode to %v", cmd, got)
		}
		if strings.Contains(errs, "tightened") {
			t.Errorf("pier %v says it tightened the mode:\n%s", cmd, errs)
		}
	}
	_, errs, code := d.run("apply", "plan.json")
	if code != 0 {
		t.Fatalf("apply: exit %d\n%s", code, errs)
	}
	if n := strings.Count(errs, "tightened its mode"); n != 1 {
		t.Errorf("apply said %d times that it tightened the mode, want once:\n%s", n, errs)
	}
	if got := mode(t, path).Perm(); got != 0o600 {
		t.Errorf("state file mode %v after apply, want 0600", got)
	}
}

// TestStateFileThatIsNotARegularFile: a state_file whose name is a
// FIFO (standing in for a device such as /dev/null, which tests never
// touch) is refused by every command, promptly, before any read or write:
// its mode is not changed, and no lock file is made beside it.
func TestStateFileThatIsNotARegularFile(t *testing.T) {
	t.Parallel()
	d := newDeployment(t, map[string]string{"main.pier.hcl": strings.Replace(onePlanDeployment, `"state.json"`, `"state.fifo"`, 1)})
	fifo := filepath.Join(d.dir, "state.fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range [][]string{{"plan"}, {"plan", "-out", "plan.json"}, {"apply", "--yes"}, {"state", "list"}, {"statefile", "verify", "state.fifo"}, {"statefile", "show", "state.fifo"}, {"statefile", "compact", "state.fifo"}} {
		// Bounded: before the fix, a read of the FIFO waited for a writer
		// for ever.
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
		cmdline := d.command(cmd...)
		c := exec.CommandContext(ctx, cmdline.Path, cmdline.Args[1:]...)
		c.Dir, c.Env = cmdline.Dir, cmdline.Env
		out, err := c.CombinedOutput()
		hung := ctx.Err() != nil
		cancel()
		if hung {
			t.Fatalf("pier %v hung on a state file that is a FIFO", cmd)
		}
		if err == nil || !strings.Contains(string(out), "is a FIFO, not a regular file") {
			t.Errorf("pier %v: %v, want a refusal naming the FIFO\n%s", cmd, err, out)
		}
		if m := mode(t, fifo); m&os.ModeNamedPipe == 0 || m.Perm() != 0o644 {
			t.Fatalf("pier %v changed the FIFO to %v", cmd, m)
		}
	}
	if _, err := os.Lstat(fifo + ".lock"); err == nil {
		t.Errorf("a lock file was made beside the FIFO")
	}
	if j := d.journal(); len(j) != 0 {
		t.Errorf("resources were created without a state to record them: %+v", j)
	}
}

const onePlanDeployment = header + `
resource "a" {
  provider = provider.journal
  type     = "echo"
  state    = resource.state
  inputs   = { value = "one" }
}
`

func mode(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode()
}
