package main

// Not a scenario: the tests interrupt or kill pier mid-apply, at moments found by polling.

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/pierhq/pier/internal/testneed"
)

// header declares the providers and the state handler the scenarios share.
const header = `
provider "local" { builtin = "local" }
provider "journal" {
  executable = "JOURNAL_PROVIDER"
  operations = ["destroy"]
  parallelism = 4
}
resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "state.json" }
}
`

// slowDeployment has five independent slow resources and one that depends
// on all of them, so an interrupt lands while some are running.
const slowDeployment = header + `
resource "slow" {
  count = 5
  provider = provider.journal
  type = "echo"
  state = resource.state
  inputs = { value = "slow${count.index}", sleep = 1 }
}
resource "last" {
  provider = provider.journal
  type = "echo"
  state = resource.state
  inputs = { value = join(",", [for s in resource.slow : s.outputs.value]) }
}
`

// gatedDeployment is slowDeployment where slow[1] to slow[4] wait until
// the file gate exists: a test can interrupt or kill pier with slow[0]
// recorded and a create in flight (see waitForInFlight), and let the
// rest run only after, however loaded the machine.
func gatedDeployment(gate string) string {
	return header + `
resource "slow" {
  count = 5
  provider = provider.journal
  type = "echo"
  state = resource.state
  inputs = { value = "slow${count.index}", gate = count.index == 0 ? "" : "` + gate + `" }
}
resource "last" {
  provider = provider.journal
  type = "echo"
  state = resource.state
  inputs = { value = join(",", [for s in resource.slow : s.outputs.value]) }
}
`
}

// waitForInFlight waits until state.json records each of addrs and a
// pending operation: an operation the provider has been asked to do.
func waitForInFlight(t *testing.T, d *deployment, addrs ...string) {
	t.Helper()
	waitFor(t, fmt.Sprintf("%v to be recorded and an operation to be in flight", addrs), func() bool {
		st := d.peekState("state.json")
		pending, _ := st["pierPendingOperations"].(map[string]any)
		rs := resources(st)
		for _, a := range addrs {
			if !slices.Contains(rs, a) {
				return false
			}
		}
		return len(pending) > 0
	})
}

// openGate lets the gated creates of gatedDeployment run.
func openGate(t *testing.T, gate string) {
	t.Helper()
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestInterruptThenReapply(t *testing.T) {
	t.Parallel()
	gate := filepath.Join(t.TempDir(), "gate")
	d := newDeployment(t, map[string]string{"main.pier.hcl": gatedDeployment(gate)})
	cmd := d.command("apply", "--parallelism", "2")
	var out strings.Builder
	errb := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = &out, errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Interrupt with slow[0] done and a create held at the gate; open the
	// gate once pier has taken the interrupt, so that what runs finishes
	// and nothing else starts.
	waitForInFlight(t, d, "slow[0]")
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "pier to acknowledge the interrupt", func() bool {
		return strings.Contains(errb.String(), "interrupt again to stop them now")
	})
	openGate(t, gate)
	err := cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != exitInterrupted {
		t.Fatalf("interrupted apply exited %d (%v)\n%s\n%s", code, err, out.String(), errb.String())
	}
	if !strings.Contains(out.String(), "Apply interrupted.") {
		t.Errorf("output:\n%s", out.String())
	}
	// What ran finished and was recorded; nothing else started.
	recorded := resources(d.state("state.json"))
	created := 0
	for _, e := range d.journal() {
		if e.Op == "create" {
			created++
		}
	}
	if len(recorded) != created || created == 0 || created >= 6 {
		t.Fatalf("after interrupt: %d created, recorded %v", created, recorded)
	}
	d.mustRun("apply")
	for i := range 5 {
		v := "slow" + string(rune('0'+i))
		if n := d.count("create", v); n != 1 {
			t.Errorf("%s created %d times, want 1", v, n)
		}
	}
	if d.count("create", "slow0,slow1,slow2,slow3,slow4") != 1 {
		t.Error("last was not created once")
	}
}

// TestKilledApplyConverges kills pier with one resource recorded and one
// create in flight, held there by a gate the test opens only after the
// kill, so the kill always lands mid-apply however loaded the machine is.
func TestKilledApplyConverges(t *testing.T) {
	t.Parallel()
	gate := filepath.Join(t.TempDir(), "gate")
	d := newDeployment(t, map[string]string{"main.pier.hcl": gatedDeployment(gate)})
	cmd := d.command("apply", "--parallelism", "2")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Kill pier with slow[0] recorded and a gated create in flight: it
	// cannot finish before the kill.
	waitForInFlight(t, d, "slow[0]")
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	before := resources(d.state("state.json"))
	if !slices.Equal(before, []string{"slow[0]"}) {
		t.Fatalf("kill landed at %v: want slow[0] alone recorded", before)
	}
	// The providers die with pier; the state provider's flock goes with
	// it. Wait for that rather than be refused as locked.
	d.waitStateUnlocked()
	// The killed pier's providers got SIGKILL (Pdeathsig) as it died, so
	// none of them can finish a gated create now.
	openGate(t, gate)
	// The creates in flight were recorded as pending: the next apply
	// refuses them rather than risk second copies. The journal shows the
	// provider never finished them, so they are resolved as absent.
	d.refusesPending()
	d.resolveAbsent(d.absentPending()...)
	out := d.mustRun("apply")
	if !strings.Contains(out, "Apply complete!") {
		t.Fatalf("re-apply:\n%s", out)
	}
	for _, addr := range before {
		v := strings.TrimSuffix(strings.TrimPrefix(strings.ReplaceAll(addr, "[", ""), "slow"), "]")
		if n := d.count("create", "slow"+v); n != 1 {
			t.Errorf("%s was recorded before the kill but created %d times", addr, n)
		}
	}
	if got := resources(d.state("state.json")); len(got) != 6 {
		t.Errorf("after re-apply recorded %v, want 6 resources", got)
	}
}

// TestSecondInterruptStopsProviders checks the second Ctrl-C: running
// operations are cancelled, pier exits promptly, and the state log stays
// valid and converges on re-apply.
func TestSecondInterruptStopsProviders(t *testing.T) {
	t.Parallel()
	started := filepath.Join(t.TempDir(), "started")
	d := newDeployment(t, map[string]string{"main.pier.hcl": strings.ReplaceAll(slowDeployment, "sleep = 1", `sleep = 30, started = "`+started+`"`)})
	cmd := d.command("apply", "--parallelism", "2")
	var out strings.Builder
	errb := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = &out, errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Interrupt once the provider has a 30 s create in hand (a create pier
	// has recorded as pending but not yet sent is rightly dropped, and
	// there would be nothing to stop).
	waitFor(t, "a create to reach the provider", func() bool {
		_, err := os.Stat(started)
		return err == nil
	})
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	// The second interrupt is sent only once pier has taken the first:
	// two SIGINTs sent before pier runs again merge into one pending
	// signal, and pier would then let the 30 s operations finish.
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(errb.String(), "interrupt again to stop them now") {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("pier did not acknowledge the first interrupt:\n%s", errb)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != exitInterrupted {
		t.Fatalf("exit %d, want %d\n%s\n%s", code, exitInterrupted, out.String(), errb.String())
	}
	if n := len(d.journal()); n != 0 {
		t.Errorf("cancelled operations completed anyway: %v", d.journal())
	}
	// Nothing completed, so nothing may have been recorded; what was
	// written must be a valid log.
	if _, err := os.Stat(filepath.Join(d.dir, "state.json")); err == nil {
		verify, _, code := d.run("statefile", "verify", "state.json")
		if code != 0 {
			t.Fatalf("state log invalid after the second interrupt: %s", verify)
		}
	}
	d.write(map[string]string{"main.pier.hcl": slowDeployment})
	// The cancelled creates stay pending: the provider was killed in the
	// middle of them. The journal shows they made nothing.
	d.refusesPending()
	d.resolveAbsent(d.absentPending()...)
	d.mustRun("apply")
	if got := len(resources(d.state("state.json"))); got != 6 {
		t.Errorf("after re-apply %d resources recorded, want 6", got)
	}
}

// TestDestroyPromptInterrupt checks that Ctrl-C at pier destroy's
// confirmation prompt cancels at once, on a real terminal (a pty from
// script(1)), destroying nothing.
func TestDestroyPromptInterrupt(t *testing.T) {
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
	d.mustRun("apply")
	// exec: script runs $SHELL -c, and a shell that does not exec its
	// last command (dash) dies of the SIGINT itself, hiding pier's code.
	cmd := exec.Command(scriptBin, "-qfec", "exec "+d.pier+" destroy", "/dev/null")
	cmd.Dir = d.dir
	cmd.Env = d.command().Env
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(out.String(), "Only 'yes' will be accepted") {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("no prompt:\n%s", out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	// ^C on the terminal: its line discipline interrupts pier.
	if _, err := stdin.Write([]byte{3}); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		// script -e exits with pier's code: a declined confirmation is 1.
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != exitError {
			t.Errorf("pier destroy cancelled at the prompt: %v, want exit %d", err, exitError)
		}
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("pier destroy kept waiting at the prompt after Ctrl-C:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "pier: destroy cancelled") {
		t.Errorf("output lacks the cancellation:\n%s", out.String())
	}
	if n := d.count("destroy", "v"); n != 0 {
		t.Errorf("%d destroys after Ctrl-C at the prompt", n)
	}
}

// syncBuffer is a bytes.Buffer safe for one writer and one reader.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
