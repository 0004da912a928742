package main

// Not a scenario: the test kills the state handler's process while an apply holds a create in flight.

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// Tests of a state handler's process dying under an apply (issue 24):
// its lock goes with it, and another apply can take it at once. The
// first apply must start nothing more, record what it did only where the
// state still holds its own intent, name the rest, and fail.

// handlerLostDeployment has four objects that one provider process
// creates one after another, so that while r[0]'s create is held in
// flight the others wait for it.
const handlerLostDeployment = `
provider "local" { builtin = "local" }
provider "obj" {
  executable  = "OBJECTS_PROVIDER"
  operations  = ["destroy", "import"]
  parallelism = 1
}
resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "state.json" }
}
resource "r" {
  count    = 4
  provider = provider.obj
  type     = "obj"
  state    = resource.state
  inputs   = { name = "r${count.index}" }
}
`

// TestStateHandlerKilledMidApply: the state handler of an apply is
// killed while r[0]'s create is in flight, and a second apply takes the
// lock and creates what the first had not started. Nothing is created
// twice and no record is overwritten: the first apply starts nothing more
// and exits 1, naming the handler. It records r[0] once it holds the lock
// again, or, when the second apply still holds it, says that r[0] is not
// recorded, whose pending create the next apply names.
func TestStateHandlerKilledMidApply(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		// secondHolds keeps the second apply running, and holding the
		// lock, while the first one finishes.
		secondHolds bool
	}{
		"lock free again":      {},
		"lock held by another": {secondHolds: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			d := newObjectsDeployment(t, handlerLostDeployment)
			hold := func(name string) (release func()) {
				path := filepath.Join(d.objectsDir(), "hold-"+name)
				if err := os.WriteFile(path, nil, 0o644); err != nil {
					t.Fatal(err)
				}
				return func() {
					if err := os.Remove(path); err != nil {
						t.Fatal(err)
					}
				}
			}
			created := func(name string) func() bool {
				return func() bool { _, err := os.Stat(filepath.Join(d.objectsDir(), "created-"+name)); return err == nil }
			}
			releaseFirst := hold("r0")
			first := d.command("apply", "--yes")
			var firstOut, firstErr syncBuffer
			first.Stdout, first.Stderr = &firstOut, &firstErr
			if err := first.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { _ = first.Process.Kill(); _ = first.Wait() }()
			waitFor(t, "the first apply's create of r[0] to be in flight", created("r0"))
			handler := childProcess(t, first.Process.Pid, "adapter", "local")
			if err := syscall.Kill(handler, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			waitFor(t, "the state handler to die", func() bool { return processGone(handler) })

			// The second apply takes the lock the dead handler held.
			var releaseSecond func()
			second := d.command("apply", "--yes")
			var secondOut, secondErr syncBuffer
			second.Stdout, second.Stderr = &secondOut, &secondErr
			if tc.secondHolds {
				releaseSecond = hold("r1")
			}
			if err := second.Start(); err != nil {
				t.Fatal(err)
			}
			if tc.secondHolds {
				waitFor(t, "the second apply to hold the lock and create r[1]", created("r1"))
			} else {
				_ = second.Wait()
			}

			releaseFirst()
			_ = first.Wait()
			errs := firstErr.String()
			if code := first.ProcessState.ExitCode(); code != 1 {
				t.Errorf("first apply exited %d, want 1\nstdout:\n%s\nstderr:\n%s", code, firstOut.String(), errs)
			}
			for _, want := range []string{
				"state handler state (provider local) was lost during apply",
				fmt.Sprintf("its process %d exited (signal: killed)", handler),
				"r[1]: skipped: not started: the process of state handler state exited",
			} {
				if !strings.Contains(errs, want) {
					t.Errorf("first apply's stderr lacks %q:\n%s", want, errs)
				}
			}
			if tc.secondHolds {
				if want := "NOT RECORDED, although done:\n  r[0] (create): the lock could not be taken again"; !strings.Contains(errs, want) {
					t.Errorf("first apply's stderr does not name r[0] as unrecorded (%q):\n%s", want, errs)
				}
				releaseSecond()
				_ = second.Wait()
			} else if want := "recorded once the lock was held again: r[0] (create)"; !strings.Contains(errs, want) {
				t.Errorf("first apply's stderr lacks %q:\n%s", want, errs)
			}
			if code := second.ProcessState.ExitCode(); code != 1 || !strings.Contains(secondErr.String(), `was creating r[0]`) {
				t.Errorf("second apply exited %d, want 1 refusing the first's pending create of r[0]\nstdout:\n%s\nstderr:\n%s", code, secondOut.String(), secondErr.String())
			}

			// Nothing twice, and every record names the one object.
			objects := d.objects()
			st := d.state("state.json")
			entries, _ := st["resources"].(map[string]any)
			for i := range 4 {
				name, addr := "r"+strconv.Itoa(i), fmt.Sprintf("r[%d]", i)
				if got := objects[name]; len(got) != 1 {
					t.Errorf("objects of %s: %v, want exactly one", name, got)
					continue
				}
				if tc.secondHolds && i == 0 {
					continue
				}
				e, _ := entries[addr].(map[string]any)
				out, _ := e["output_properties"].(map[string]any)
				if out["id"] != objects[name][0] {
					t.Errorf("%s records %v, want id %s: the object that exists", addr, e, objects[name][0])
				}
			}
			pending := d.pendingOps()
			if tc.secondHolds {
				if p := pending["r[0]"]; len(pending) != 1 || p["operation"] != "create" {
					t.Errorf("pending after the first apply could not record r[0]: %v, want its create", pending)
				}
				d.refusesPending("--yes")
				return
			}
			if len(pending) != 0 {
				t.Errorf("pending operations left: %v", pending)
			}
			if out := d.mustRun("plan"); !strings.Contains(out, "No changes.") {
				t.Errorf("plan after both applies:\n%s", out)
			}
		})
	}
}

// childProcess returns the pid of the child of parent whose command line
// ends with args, failing the test when there is none.
func childProcess(t *testing.T, parent int, args ...string) int {
	t.Helper()
	dirs, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	want := []byte(strings.Join(args, "\x00") + "\x00")
	for _, e := range dirs {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid …; comm may hold spaces and parentheses.
		fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(fields) < 2 || fields[1] != strconv.Itoa(parent) {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && bytes.HasSuffix(cmdline, want) {
			return pid
		}
	}
	t.Fatalf("no child of %d runs %s", parent, strings.Join(args, " "))
	return 0
}

// processGone reports whether pid has exited: it is gone, or a zombie
// whose files, and so its locks, the kernel has released.
func processGone(pid int) bool {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return true
	}
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	return len(fields) > 0 && (fields[0] == "Z" || fields[0] == "X")
}

// aheadDeployment has six objects that two provider processes create,
// so that apply at --parallelism 2 records the intents of two more while
// two creates are in flight (host/apply's call slots).
const aheadDeployment = `
provider "local" { builtin = "local" }
provider "obj" {
  executable  = "OBJECTS_PROVIDER"
  operations  = ["destroy", "import"]
  parallelism = 2
}
resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "state.json" }
}
resource "r" {
  count    = 6
  provider = provider.obj
  type     = "obj"
  state    = resource.state
  inputs   = { name = "r${count.index}" }
}
`

// TestStateHandlerKilledWithIntentsAhead: the state handler is killed
// while two creates are in flight and the intents of two more are
// recorded ahead of their requests. The two in flight finish and are
// recorded once the lock is held again; the two ahead are never sent, and
// their intents are cleared then too, so that the next apply creates them
// instead of refusing them as creates that may have happened.
func TestStateHandlerKilledWithIntentsAhead(t *testing.T) {
	t.Parallel()
	d := newObjectsDeployment(t, aheadDeployment)
	var holds []string
	for _, name := range []string{"r0", "r1"} {
		path := filepath.Join(d.objectsDir(), "hold-"+name)
		if err := os.WriteFile(path, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		holds = append(holds, path)
	}
	first := d.command("apply", "--yes", "--parallelism", "2")
	var firstOut, firstErr syncBuffer
	first.Stdout, first.Stderr = &firstOut, &firstErr
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = first.Process.Kill(); _ = first.Wait() }()
	waitFor(t, "r[0] and r[1] in flight and two intents recorded ahead", func() bool {
		for _, name := range []string{"r0", "r1"} {
			if _, err := os.Stat(filepath.Join(d.objectsDir(), "created-"+name)); err != nil {
				return false
			}
		}
		return len(d.peekPendingOps()) == 4
	})
	handler := childProcess(t, first.Process.Pid, "adapter", "local")
	if err := syscall.Kill(handler, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// Released once pier knows the lock is gone: from then on it sends
	// no first request, where the intent is recorded already or not.
	waitFor(t, "pier to see the state handler lost", func() bool {
		return processGone(handler) && strings.Contains(firstErr.String(), "state-holding provider process exited")
	})
	for _, path := range holds {
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
	}
	_ = first.Wait()
	errs := firstErr.String()
	if code := first.ProcessState.ExitCode(); code != 1 {
		t.Errorf("first apply exited %d, want 1\nstdout:\n%s\nstderr:\n%s", code, firstOut.String(), errs)
	}
	for _, want := range []string{
		"state handler state (provider local) was lost during apply",
		"r[0] (create)", "r[1] (create)",
		"pending operations cleared once the lock was held again, as nothing was sent for them:",
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("first apply's stderr lacks %q:\n%s", want, errs)
		}
	}
	if strings.Contains(errs, "NOT RECORDED") || strings.Contains(errs, "left pending") {
		t.Errorf("first apply left something unrecorded or pending:\n%s", errs)
	}
	objects := d.objects()
	if len(objects["r0"]) != 1 || len(objects["r1"]) != 1 || len(objects) != 2 {
		t.Errorf("objects after the first apply: %v, want r0 and r1 alone: only their creates were sent", objects)
	}
	if pending := d.pendingOps(); len(pending) != 0 {
		t.Errorf("pending after the first apply: %v, want none: the intents ahead were never sent", pending)
	}
	if out := d.mustRun("apply", "--yes"); !strings.Contains(out, "Apply complete!") {
		t.Errorf("second apply:\n%s", out)
	}
	objects = d.objects()
	entries, _ := d.state("state.json")["resources"].(map[string]any)
	for i := range 6 {
		name, addr := "r"+strconv.Itoa(i), fmt.Sprintf("r[%d]", i)
		if got := objects[name]; len(got) != 1 {
			t.Errorf("objects of %s: %v, want exactly one", name, got)
			continue
		}
		e, _ := entries[addr].(map[string]any)
		out, _ := e["output_properties"].(map[string]any)
		if out["id"] != objects[name][0] {
			t.Errorf("%s records %v, want id %s: the object that exists", addr, e, objects[name][0])
		}
	}
}
