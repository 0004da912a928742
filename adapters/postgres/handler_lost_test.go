package postgres

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pierhq/pier/adapters/postgres/pgtest"
	"github.com/pierhq/pier/internal/testbin"
)

// handlerLostHCL is four independent exec resources, run one at a time,
// recorded in pg_state key; r0 waits for gate after it has journalled.
func handlerLostHCL(key, journal, gate string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `provider "local" {
  builtin     = "local"
  parallelism = 1
}
provider "pg" { builtin = "postgres" }
resource "state" {
  provider = provider.pg
  type     = "pg_state"
  inputs   = { key = %q }
}
`, key)
	for i := range 4 {
		wait := ""
		if i == 0 {
			wait = fmt.Sprintf("; i=0; while [ ! -e %s ] && [ $i -lt 6000 ]; do sleep 0.02; i=$((i+1)); done", gate)
		}
		fmt.Fprintf(&b, `resource "r%d" {
  provider = provider.local
  type     = "exec"
  state    = resource.state
  inputs = {
    executable = "/bin/sh"
    args       = ["-c", "echo r%d >> %s%s; echo made-r%d"]
    once       = true
  }
}
`, i, i, journal, wait, i)
	}
	return b.String()
}

// TestPostgresHandlerKilledMidApply (issue 24, item 2): the `pier
// adapter postgres` process of an apply is killed while r0's create runs,
// and a second apply, waiting for the lock, takes it and creates r1..r3.
// The first apply starts nothing more, records r0 once it holds the lock
// again, and exits 1 naming the handler; nothing is created twice.
func TestPostgresHandlerKilledMidApply(t *testing.T) {
	t.Parallel()
	srv := pgtest.Current(t)
	tmp := t.TempDir()
	key, journal, gate := t.Name(), filepath.Join(tmp, "journal"), filepath.Join(tmp, "gate")
	checkout := func() *checkout {
		c := &checkout{t: t, dir: t.TempDir(), pier: testbin.Pier(t), journal: journal, env: append(baseEnv(), srv.Env(pgtest.Superuser)...)}
		if err := os.WriteFile(filepath.Join(c.dir, "main.pier.hcl"), []byte(handlerLostHCL(key, journal, gate)), 0o644); err != nil {
			t.Fatal(err)
		}
		return c
	}
	first := checkout()
	cmd := first.command(t.Context(), "apply")
	var out, errb bytes.Buffer
	done := start(t, cmd, &out, &errb)
	for !strings.Contains(readFile(journal), "r0") {
		select {
		case err := <-done:
			t.Fatalf("apply exited early: %v\n%s", err, errb.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	handler := childProcess(t, cmd.Process.Pid, "adapter", "postgres")
	if err := syscall.Kill(handler, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}

	// The second apply waits for the lock the dead handler's session
	// held, which the server frees once it sees the session end.
	second := checkout()
	var errs string
	code := 4
	for deadline := time.Now().Add(2 * time.Minute); code == 4; {
		if time.Now().After(deadline) {
			t.Fatalf("the second apply never got the lock:\n%s", errs)
		}
		_, errs, code = second.run("apply")
	}
	if code != 1 || !strings.Contains(errs, "was creating r0") {
		t.Errorf("second apply: exit %d, want 1 refusing the first's pending create of r0:\n%s", code, errs)
	}

	touch(t, gate)
	if err := <-done; exitCode(err) != 1 {
		t.Errorf("first apply: %v, want exit 1\n%s", err, errb.String())
	}
	for _, want := range []string{
		"state handler state (provider pg) was lost during apply",
		fmt.Sprintf("its process %d exited (signal: killed)", handler),
		"recorded once the lock was held again: r0 (create)",
		"r1: skipped: not started: the process of state handler state exited",
	} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("first apply's stderr lacks %q:\n%s", want, errb.String())
		}
	}
	counts := journalCounts(t, journal)
	rec := recorded(t, srv, key, "")
	for i := range 4 {
		r := "r" + strconv.Itoa(i)
		if counts[r] != 1 {
			t.Errorf("%s was created %d times, want once (journal %v)", r, counts[r], counts)
		}
		if _, ok := rec[r]; !ok {
			t.Errorf("%s is not recorded: %v", r, rec)
		}
	}
	if p := pendingOps(t, srv, key); len(p) != 0 {
		t.Errorf("pending operations left: %v", p)
	}
	if plan := first.mustRun("plan"); !strings.Contains(plan, "No changes") {
		t.Errorf("plan after both applies:\n%s", plan)
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
