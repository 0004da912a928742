package postgres

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pierhq/pier/adapters/postgres/pgtest"
	"github.com/pierhq/pier/schema"
	"github.com/pierhq/pier/statefile"
)

func testConfig(t testing.TB, key string) Config {
	t.Helper()
	return Config{Conninfo: pgtest.Current(t).Conninfo(), Key: key, Holder: Holder{PID: 42, Command: "pier apply", User: "tester", Host: "box"}}
}

func open(t testing.TB, cfg Config) *Store {
	t.Helper()
	s, err := Open(t.Context(), cfg)
	if err != nil {
		t.Fatalf("open %q: %v", cfg.Key, err)
	}
	t.Cleanup(func() { s.Close(context.Background()) })
	return s
}

func addResource(name string, n int) schema.Patch {
	v := fmt.Sprintf(`{"type":"memo","inputProperties":{"n":%d}}`, n)
	return schema.Patch{{Op: "add", Path: "/resources/" + name, Value: json.RawMessage(v)}}
}

func TestAppendReadAcrossSnapshots(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t, t.Name())
	cfg.SnapshotEvery = 3
	s := open(t, cfg)
	for i := range 10 {
		if _, err := s.Append(t.Context(), statefile.Meta{Event: "create"}, addResource(fmt.Sprintf("r%d", i), i)); err != nil {
			t.Fatal(err)
		}
	}
	want := s.State()
	if err := s.Close(t.Context()); err != nil { // takes a snapshot: 10 events since the one at Open
		t.Fatal(err)
	}
	// Reopen: the snapshot plus what follows it gives the same state, and
	// numbering continues.
	s2 := open(t, cfg)
	if diff := cmp.Diff(want, s2.State()); diff != "" {
		t.Errorf("state after reopen (-want +got):\n%s", diff)
	}
	if got := s2.LastIndex(); got != 10 {
		t.Errorf("last index %d, want 10", got)
	}
	if _, err := s2.Append(t.Context(), statefile.Meta{Event: "destroy"}, schema.Patch{{Op: "remove", Path: "/resources/r0"}}); err != nil {
		t.Fatal(err)
	}
	n, err := pgtest.Current(t).Psql(fmt.Sprintf("SELECT count(*) FROM pier.snapshots WHERE state_key = '%s'", cfg.Key))
	if err != nil || n != "1" {
		t.Errorf("snapshots: %q, %v; want 1", n, err)
	}
	// A reader sees the same, from snapshot + tail.
	ro := cfg
	ro.ReadOnly = true
	r := open(t, ro)
	delete(want["resources"].(map[string]any), "r0")
	if diff := cmp.Diff(want, r.State()); diff != "" {
		t.Errorf("reader's state (-want +got):\n%s", diff)
	}
}

func TestAppendRefusesBadPatch(t *testing.T) {
	t.Parallel()
	s := open(t, testConfig(t, t.Name()))
	_, err := s.Append(t.Context(), statefile.Meta{Event: "destroy"}, schema.Patch{{Op: "remove", Path: "/resources/missing"}})
	var oe *statefile.OpError
	if !errors.As(err, &oe) {
		t.Fatalf("append of a patch that does not apply: %v, want an OpError", err)
	}
	if _, err := s.Append(t.Context(), statefile.Meta{Event: "create"}, addResource("a", 1)); err != nil {
		t.Fatalf("append after a refused patch: %v", err)
	}
	if got := s.LastIndex(); got != 1 {
		t.Errorf("last index %d, want 1: the refused patch must not be numbered", got)
	}
}

func TestSecondWriterIsToldWhoHoldsTheLock(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t, t.Name())
	first := open(t, cfg)
	_, err := Open(t.Context(), cfg)
	var le *LockedError
	if !errors.As(err, &le) {
		t.Fatalf("second open: %v, want a LockedError", err)
	}
	if le.PID != 42 || le.Command != "pier apply" || le.User != "tester" || le.Host != "box" || le.Since.IsZero() || le.BackendPID == 0 {
		t.Errorf("holder = %+v", le)
	}
	if !strings.Contains(err.Error(), "pid 42 (pier apply) of tester on box since ") {
		t.Errorf("message %q does not name the holder", err)
	}
	// A reader does not wait.
	ro := cfg
	ro.ReadOnly = true
	r := open(t, ro)
	if _, err := r.Append(t.Context(), statefile.Meta{}, nil); !errors.Is(err, ErrReadOnly) {
		t.Errorf("append on a reader: %v, want ErrReadOnly", err)
	}
	if err := first.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	open(t, cfg) // released at Close
}

// holdLock is the helper process: it opens key for writing, says so, and
// waits to be killed.
func holdLock(key string) {
	if _, err := Open(context.Background(), Config{Conninfo: os.Getenv("PGTEST_CONNINFO"), Key: key, Holder: Holder{PID: os.Getpid(), Command: "helper", User: "u", Host: "h"}}); err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	fmt.Println("locked")
	select {}
}

func TestLockOfADeadSessionIsReleased(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t, t.Name())
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "PGTEST_HOLD="+cfg.Key, "PGTEST_CONNINFO="+cfg.Conninfo)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} // should this test binary die
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// However the test ends, the helper does not outlive it.
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	line, _ := bufio.NewReader(out).ReadString('\n')
	if line != "locked\n" {
		t.Fatalf("helper said %q", line)
	}
	_, err = Open(t.Context(), cfg)
	var le *LockedError
	if !errors.As(err, &le) || le.PID != cmd.Process.Pid {
		t.Fatalf("open while the helper holds the lock: %v, want it named as holder (pid %d)", err, cmd.Process.Pid)
	}
	cmd.Process.Kill() // SIGKILL: no Close, no goodbye to the server
	cmd.Wait()         // the cleanup's Kill and Wait are then no-ops
	// PostgreSQL ends the session when its socket closes, and the lock
	// with it. That happens asynchronously, so wait for it, boundedly.
	var s *Store
	for range 600 {
		s, err = Open(t.Context(), cfg)
		if !errors.As(err, &le) {
			break
		}
		sleepBriefly()
	}
	if err != nil {
		t.Fatalf("open after the holder was killed: %v", err)
	}
	s.Close(t.Context())
}

func TestNewerSchemaVersionIsRefused(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t, t.Name())
	cfg.Schema = "pier_future"
	open(t, cfg).Close(t.Context())
	if _, err := pgtest.Current(t).Psql("INSERT INTO pier_future.schema_version (version) VALUES (99)"); err != nil {
		t.Fatal(err)
	}
	for _, ro := range []bool{false, true} {
		c := cfg
		c.ReadOnly = ro
		_, err := Open(t.Context(), c)
		var ve *VersionError
		if !errors.As(err, &ve) || ve.Database != 99 || ve.Known != SchemaVersion {
			t.Errorf("read-only=%v: open of a version-99 schema: %v, want a VersionError", ro, err)
		}
	}
}

func TestReaderOfAnEmptyDatabase(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t, t.Name())
	cfg.Schema = "pier_never_used"
	cfg.ReadOnly = true
	s := open(t, cfg)
	if diff := cmp.Diff(statefile.NewDocument().State(), s.State()); diff != "" {
		t.Errorf("state of a schema pier never set up (-want +got):\n%s", diff)
	}
	if out, _ := pgtest.Current(t).Psql("SELECT count(*) FROM pg_namespace WHERE nspname = 'pier_never_used'"); out != "0" {
		t.Errorf("a reader created the schema")
	}
}
