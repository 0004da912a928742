package postgres

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pierhq/pier/adapters/postgres/pgtest"
	"github.com/pierhq/pier/schema"
	"github.com/pierhq/pier/statefile"
)

// Tests of a reader while a writer holds the lock (issue 19 item 5): the
// pending operations it reads are the holder's work in progress, and the
// read names the holder, as state_file's does.

// pendingCreate records a pending create of name, as the engine does
// before it sends one.
func pendingCreate(name string) schema.Patch {
	v := `{"operation":"create","provider":"local","type":"memo","started":"2026-01-02T03:04:05Z"}`
	return schema.Patch{
		{Op: "add", Path: "/" + schema.PendingOperationsKey, Value: []byte("{}")},
		{Op: "add", Path: "/" + schema.PendingOperationsKey + "/" + name, Value: []byte(v)},
	}
}

// TestReaderIsToldWhoHoldsTheLock: a read-only StateRead of a state with
// pending operations names the session's holder under LockHolderKey while
// the writer holds the lock; without pending operations, or once the
// writer is gone, the state is sent as stored.
func TestReaderIsToldWhoHoldsTheLock(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t, t.Name())
	ctx := t.Context()
	res := schema.ExtantResource{Type: StateType, InputProperties: schema.Properties{"key": cfg.Key, "conninfo": cfg.Conninfo}}
	read := func() map[string]any {
		t.Helper()
		p := New(Options{ReadOnly: true})
		defer p.Close()
		r, err := p.StateRead(ctx, &schema.StateResourceReadRequest{Resource: res})
		if err != nil {
			t.Fatal(err)
		}
		return r.State
	}

	w := open(t, cfg)
	if st := read(); st[schema.LockHolderKey] != nil {
		t.Errorf("a state without pending operations is sent with a holder: %v", st[schema.LockHolderKey])
	}
	before := time.Now().Add(-time.Second)
	if _, err := w.Append(ctx, statefile.Meta{Event: "pending"}, pendingCreate("m")); err != nil {
		t.Fatal(err)
	}
	st := read()
	rec, _ := st[schema.LockHolderKey].(map[string]any)
	since, err := time.Parse(time.RFC3339, func() string { s, _ := rec["since"].(string); return s }())
	if err != nil || since.Before(before.Add(-time.Minute)) || since.After(time.Now().Add(time.Minute)) {
		t.Errorf("holder's since = %v (%v), want about now", rec["since"], err)
	}
	delete(rec, "since")
	want := map[string]any{"pid": 42, "command": "pier apply", "user": "tester", "host": "box"}
	if diff := cmp.Diff(want, rec); diff != "" {
		t.Errorf("holder sent to a reader during the write (-want +got):\n%s", diff)
	}

	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if st := read(); st[schema.LockHolderKey] != nil || st[schema.PendingOperationsKey] == nil {
		t.Errorf("after the writer closed: holder %v, pending %v; want no holder, the pending create", st[schema.LockHolderKey], st[schema.PendingOperationsKey])
	}
}

// TestPlanDuringApplyNamesTheApply: while an apply's create of r0 runs, a
// plan from another checkout says the create is in progress and names
// that apply (pid, host, since when it holds the lock); once the apply and
// its state handler are killed, the session's lock goes with them and the
// same pending create reads as interrupted.
func TestPlanDuringApplyNamesTheApply(t *testing.T) {
	t.Parallel()
	srv := pgtest.Current(t)
	tmp := t.TempDir()
	key, journal, gate := t.Name(), filepath.Join(tmp, "journal"), filepath.Join(tmp, "gate")
	s := spec{key: key, n: 1, gate: gate}
	a, b := newCheckout(t, srv, s, journal), newCheckout(t, srv, s, journal)
	started := time.Now().Add(-time.Second)
	cmd := a.command(t.Context(), "apply")
	var out, errb bytes.Buffer
	done := start(t, cmd, &out, &errb)
	exited := false
	defer func() {
		if !exited {
			_ = cmd.Process.Kill()
			<-done
		}
	}()
	for !strings.Contains(readFile(journal), "r0") {
		select {
		case err := <-done:
			t.Fatalf("apply exited early: %v\n%s", err, errb.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	handler := childProcess(t, cmd.Process.Pid, "adapter", "postgres")

	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	plan, errs, code := b.run("plan")
	for _, want := range []string{
		`in progress: provider "local" is creating r0 (type exec), started `,
		"for pier apply, pid " + strconv.Itoa(cmd.Process.Pid) + " on host " + host,
		", holding the state lock since ",
	} {
		if code != 0 || !strings.Contains(plan, want) {
			t.Errorf("plan during the apply (exit %d) lacks %q:\n%s%s", code, want, plan, errs)
		}
	}
	if strings.Contains(plan, "interrupted") {
		t.Errorf("plan during the apply calls its create interrupted:\n%s", plan)
	}
	if m := regexp.MustCompile(`holding the state lock since (\S+?);`).FindStringSubmatch(plan); m != nil {
		since, err := time.Parse(time.RFC3339, m[1])
		if err != nil || since.Before(started.Add(-time.Minute)) || since.After(time.Now().Add(time.Minute)) {
			t.Errorf("the apply holds the lock since %q (%v), want about when it started", m[1], err)
		}
	} else {
		t.Errorf("plan names no start of the lock:\n%s", plan)
	}

	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-done
	exited = true
	if err := syscall.Kill(handler, syscall.SIGKILL); err != nil && err != syscall.ESRCH {
		t.Fatal(err)
	}
	waitUnlocked(t, srv, key)
	plan, errs, code = b.run("plan")
	if want := `pier was interrupted while provider "local" was creating r0 (type exec), started `; code != 0 || !strings.Contains(plan, want) || strings.Contains(plan, "in progress") {
		t.Errorf("plan after the apply was killed (exit %d) does not say its create was interrupted:\n%s%s", code, plan, errs)
	}
}
