package main

// Not a scenario: the test SIGKILLs pier while a Terraform create is in flight, found by polling.

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/pierhq/pier/internal/testbin"
)

// startGroup starts cmd in a process group of its own and makes sure that
// nothing of it outlives the test, however the test ends: the cleanup
// kills the group with SIGKILL (pier's providers die with pier, by
// Pdeathsig) and reaps pier. wait blocks until pier has exited and
// returns its exit code.
func startGroup(t testing.TB, cmd *exec.Cmd) (wait func() int) {
	t.Helper()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	t.Cleanup(func() {
		select {
		case <-done:
		default:
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
	})
	return func() int {
		<-done
		return cmd.ProcessState.ExitCode()
	}
}

// killableTimeProvider wraps terraform-provider-time in a script that
// notes its own pid and its parent's (the `pier tf hold` that started it)
// in dir/pids, and turns the provider SDK's trace logs on into dir/tflog,
// where a test sees which calls the provider is serving. It returns the
// wrapper's path; the name is the real one, so messages name "time".
func killableTimeProvider(t *testing.T, dir string) string {
	t.Helper()
	real := tfProviderForTest(t, "terraform-provider-time")
	wrapper := filepath.Join(dir, "terraform-provider-time")
	script := fmt.Sprintf(`#!/bin/sh
echo "$$ $PPID" > '%[1]s/pids.tmp' && mv '%[1]s/pids.tmp' '%[1]s/pids'
unset TF_LOG_SDK TF_LOG_SDK_PROTO TF_LOG_SDK_FRAMEWORK TF_LOG_PROVIDER
export TF_LOG=TRACE
exec '%[2]s' "$@" 2>>'%[1]s/tflog'
`, dir, real)
	testbin.WriteExecutable(t, wrapper, []byte(script), 0o755)
	return wrapper
}

// providerCreates counts the creates terraform-provider-time began, by
// its trace log.
func providerCreates(t *testing.T, dir string) int {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "tflog"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return bytes.Count(data, []byte(`"@message":"Calling provider defined Resource Create"`))
}

// TestTerraformKilledMidCreateKeepsIntent: the Terraform provider, or the
// `pier tf hold` process that holds it, dies while ApplyResourceChange
// creates an object. pier cannot know whether the object exists, so the
// pending create must stay: the apply says so and fails, the next plan
// names the pending create, and the next apply refuses to create the
// resource again rather than make a second object silently.
func TestTerraformKilledMidCreateKeepsIntent(t *testing.T) {
	t.Parallel()
	for name, victim := range map[string]int{"provider": 0, "holder": 1} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			logs := t.TempDir()
			plugin := killableTimeProvider(t, logs)
			d := newDeployment(t, map[string]string{"main.pier.hcl": fmt.Sprintf(`
provider "local" {
  builtin = "local"
}
provider "time" {
  terraform = %q
}
resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "state.json" }
}
resource "sleep" {
  provider = provider.time
  type     = "time_sleep"
  state    = resource.state
  inputs   = { create_duration = "10m" }
}
`, plugin)})
			cmd := d.command("apply", "--yes")
			var out, errb syncBuffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			wait := startGroup(t, cmd)
			waitFor(t, "terraform-provider-time to be creating sleep", func() bool { return providerCreates(t, logs) == 1 })
			data, err := os.ReadFile(filepath.Join(logs, "pids"))
			if err != nil {
				t.Fatal(err)
			}
			var pids [2]int
			if _, err := fmt.Sscan(string(data), &pids[0], &pids[1]); err != nil {
				t.Fatalf("pids %q: %v", data, err)
			}
			if err := syscall.Kill(pids[victim], syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			if code := wait(); code != 1 {
				t.Fatalf("apply exited %d, want 1\nstdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
			}
			if want := "pier keeps a pending create of sleep in state state"; !strings.Contains(errb.String(), want) {
				t.Errorf("apply's error does not say the intent stays (%q):\n%s", want, errb.String())
			}
			if p := d.pendingOps()["sleep"]; p["operation"] != "create" {
				t.Fatalf("pending after the %s died: %v\nstderr:\n%s", name, d.pendingOps(), errb.String())
			}
			plan, errs, code := d.run("plan")
			if want := `pier was interrupted while provider "time" was creating sleep (type time_sleep)`; code != 0 || !strings.Contains(plan+errs, want) {
				t.Errorf("plan exited %d without naming the pending create (%q):\n%s\n%s", code, want, plan, errs)
			}
			d.refusesPending("--yes")
			if n := providerCreates(t, logs); n != 1 {
				t.Errorf("terraform-provider-time began %d creates of sleep, want 1", n)
			}
		})
	}
}
