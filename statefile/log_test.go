package statefile

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"

	"github.com/pierhq/pier/schema"
)

// TestMain lets the tests run this binary as a second process that opens
// the same log (see helperMain).
func TestMain(m *testing.M) {
	if os.Getenv("STATEFILE_TEST_HELPER") != "" {
		os.Exit(helperMain())
	}
	os.Exit(m.Run())
}

// helperMain opens STATEFILE_TEST_PATH and appends STATEFILE_TEST_COUNT
// create events for resources named STATEFILE_TEST_NAME-i. With
// STATEFILE_TEST_HOLD it first prints "locked" and waits for stdin to
// close. Exit status 3 means the log was locked.
func helperMain() int {
	path := os.Getenv("STATEFILE_TEST_PATH")
	n, _ := strconv.Atoi(os.Getenv("STATEFILE_TEST_COUNT"))
	name := os.Getenv("STATEFILE_TEST_NAME")
	l, err := Open(path, Options{Wait: os.Getenv("STATEFILE_TEST_WAIT") != ""})
	var le *LockedError
	if errors.As(err, &le) {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer l.Close()
	if os.Getenv("STATEFILE_TEST_HOLD") != "" {
		fmt.Println("locked")
		io.Copy(io.Discard, os.Stdin)
	}
	for i := range n {
		if _, err := l.Append(Meta{Event: "create"}, createPatch(fmt.Sprintf("%s-%d", name, i))); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	return 0
}

func createPatch(name string) schema.Patch {
	v, _ := json.Marshal(map[string]any{"type": "file", "inputProperties": map[string]any{"name": name}, "outputProperties": map[string]any{"id": name}})
	return schema.Patch{{Op: "add", Path: schema.Pointer("resources", name), Value: v}}
}

func helper(t *testing.T, path, name string, count int, env ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "STATEFILE_TEST_HELPER=1", "STATEFILE_TEST_PATH="+path, "STATEFILE_TEST_NAME="+name, "STATEFILE_TEST_COUNT="+strconv.Itoa(count))
	cmd.Env = append(cmd.Env, env...)
	return cmd
}

func fileMode(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

func TestAppendReplayRoundTrip(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "state.json")
	l, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Names with "/" and "~" must land as the literal member names.
	names := []string{"web", "a/b", "c~d", "~1", "/", "~0~1/"}
	for _, n := range names {
		if _, err := l.Append(Meta{Event: "create", NixopsVersion: "pier-test"}, createPatch(n)); err != nil {
			t.Fatal(err)
		}
	}
	ev, err := l.Append(Meta{Time: "2026-01-02T03:04:05Z", Event: "update", Extra: map[string]any{"by": "test", "n": json.Number("1.50")}}, schema.Patch{
		{Op: "replace", Path: schema.Pointer("resources", "a/b", "outputProperties", "id"), Value: json.RawMessage(`"new"`)},
		{Op: "remove", Path: schema.Pointer("resources", "web")},
	})
	if err != nil {
		t.Fatal(err)
	}
	if ev.Index != int64(len(names)+1) || ev.Meta.Time != "2026-01-02T03:04:05Z" {
		t.Errorf("Append returned index %d time %q, want %d and the given time", ev.Index, ev.Meta.Time, len(names)+1)
	}
	inMemory := l.State()
	if got, ok := l.Get("resources", "c~d", "inputProperties", "name"); !ok || got != "c~d" {
		t.Errorf(`Get("resources", "c~d", …) = %v, %v`, got, ok)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}

	for _, p := range []string{path, lockPath(path)} {
		if m := fileMode(t, p); m != 0o600 {
			t.Errorf("%s has mode %v, want 0600", p, m)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != len(names)+2 {
		t.Fatalf("file has %d lines, want one per event (%d):\n%s", len(lines), len(names)+2, data)
	}
	rep, err := Replay(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(inMemory, rep.State); diff != "" {
		t.Errorf("replayed state differs from the writer's (-writer +replayed):\n%s", diff)
	}
	res := rep.State["resources"].(map[string]any)
	var got []string
	for k := range res {
		got = append(got, k)
	}
	want := []string{"/", "a/b", "c~d", "~0~1/", "~1"}
	if diff := cmp.Diff(want, got, cmpSorted); diff != "" {
		t.Errorf("resource names (-want +got):\n%s", diff)
	}
	for i, r := range rep.Events {
		if r.Index != int64(i) || r.Line != i+1 {
			t.Errorf("event %d has index %d line %d", i, r.Index, r.Line)
		}
	}
	last := rep.Events[len(rep.Events)-1]
	if diff := cmp.Diff(Meta{Time: "2026-01-02T03:04:05Z", Event: "update", Extra: map[string]any{"by": "test", "n": json.Number("1.50")}}, last.Meta); diff != "" {
		t.Errorf("meta round trip (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"/resources/a~1b/outputProperties/id", "/resources/web"}, last.Paths); diff != "" {
		t.Errorf("touched paths (-want +got):\n%s", diff)
	}
	if len(rep.Warnings) != 0 {
		t.Errorf("pier's own file has warnings: %v", rep.Warnings)
	}

	// Reopening resumes the numbering.
	l, err = Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ev, err = l.Append(Meta{Event: "create"}, createPatch("again"))
	if err != nil {
		t.Fatal(err)
	}
	if ev.Index != int64(len(names)+2) {
		t.Errorf("index after reopening = %d, want %d", ev.Index, len(names)+2)
	}
}

var cmpSorted = cmp.Transformer("sort", func(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
})

// TestAppendToNixOps4File loads a NixOps4-written file (pretty-printed,
// every index 0), appends, and checks that the old bytes are untouched and
// only the old part draws warnings.
func TestAppendToNixOps4File(t *testing.T) {
	t.Parallel()
	orig := readTestdata(t, "nixops4-style.json")
	path := filepath.Join(t.TempDir(), "state.json")
	if err := os.WriteFile(path, bytes.TrimRight(orig, "\n"), 0o600); err != nil { // no final newline
		t.Fatal(err)
	}
	l, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ev, err := l.Append(Meta{Event: "destroy"}, schema.Patch{{Op: "remove", Path: "/resources/hello"}})
	if err != nil {
		t.Fatal(err)
	}
	if ev.Index != 1 {
		t.Errorf("index = %d, want 1 (highest 0, plus one)", ev.Index)
	}
	if _, err := l.Append(Meta{Event: "create"}, createPatch("x")); err != nil {
		t.Fatal(err)
	}
	l.Close()
	data, _ := os.ReadFile(path)
	if !bytes.HasPrefix(data, bytes.TrimRight(orig, "\n")) {
		t.Errorf("the NixOps4 part of the file changed")
	}
	r, err := Verify(path)
	if err != nil {
		t.Fatal(err)
	}
	// Resources: x at the top and web's a/b (hello was destroyed).
	if r.Events != 6 || r.LastIndex != 2 || r.Resources != 2 {
		t.Errorf("report events=%d lastIndex=%d resources=%d, want 6, 2, 2", r.Events, r.LastIndex, r.Resources)
	}
	// One warning for NixOps4's three index-0 events; pier's own events
	// (indexes 1 and 2) increase.
	var ords, counts []int
	for _, w := range r.Warnings {
		ords, counts = append(ords, w.Ordinal), append(counts, w.Count)
	}
	if diff := cmp.Diff([]int{1}, ords); diff != "" {
		t.Errorf("warned events (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int{3}, counts); diff != "" {
		t.Errorf("events the warning covers (-want +got):\n%s", diff)
	}
}

func TestAppendRejectedWritesNothing(t *testing.T) {
	t.Parallel()
	tests := map[string]schema.Patch{
		"does not apply":     {{Op: "add", Path: "/resources/ok", Value: json.RawMessage(`1`)}, {Op: "remove", Path: "/resources/missing"}},
		"changes _type":      {{Op: "replace", Path: "/_type", Value: json.RawMessage(`"other"`)}},
		"replaces the root":  {{Op: "replace", Path: "", Value: json.RawMessage(`[]`)}},
		"invalid pointer":    {{Op: "add", Path: "resources/x", Value: json.RawMessage(`1`)}},
		"unknown operation":  {{Op: "upsert", Path: "/resources/x", Value: json.RawMessage(`1`)}},
		"array out of range": {{Op: "add", Path: "/resources/x", Value: json.RawMessage(`[]`)}, {Op: "add", Path: "/resources/x/1", Value: json.RawMessage(`1`)}},
	}
	for name, patch := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "state.json")
			l, err := Open(path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			if _, err := l.Append(Meta{Event: "create"}, createPatch("keep")); err != nil {
				t.Fatal(err)
			}
			before, _ := os.ReadFile(path)
			state := l.State()
			_, err = l.Append(Meta{Event: "update"}, patch)
			if err == nil {
				t.Fatal("Append accepted a bad patch")
			}
			if !strings.Contains(err.Error(), "append event 2 to state file "+path) {
				t.Errorf("error %q does not name the event and file", err)
			}
			after, _ := os.ReadFile(path)
			if !bytes.Equal(before, after) {
				t.Errorf("rejected event changed the file:\n%s", after)
			}
			if diff := cmp.Diff(state, l.State()); diff != "" {
				t.Errorf("rejected event changed the state (-before +after):\n%s", diff)
			}
			ev, err := l.Append(Meta{Event: "create"}, createPatch("next"))
			if err != nil || ev.Index != 2 {
				t.Errorf("next append: index %d, error %v; want index 2", ev.Index, err)
			}
		})
	}
}

// TestTornTail cuts the last event short at several points and checks that
// readers report it, Verify fails, and Open keeps a copy, cuts only the
// torn bytes and can append again.
func TestTornTail(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := filepath.Join(dir, "src.json")
	l, err := Open(src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"a", "b", "c"} {
		if _, err := l.Append(Meta{Event: "create"}, createPatch(n)); err != nil {
			t.Fatal(err)
		}
	}
	wantState := l.State()
	if _, err := l.Append(Meta{Event: "create"}, createPatch("torn")); err != nil {
		t.Fatal(err)
	}
	l.Close()
	full, _ := os.ReadFile(src)
	lastStart := bytes.LastIndexByte(full[:len(full)-1], '\n') + 1
	lastLen := len(full) - lastStart

	tests := map[string]struct {
		keep  int // bytes of the last line that reached the disk
		zeros int // NUL bytes after them (blocks allocated, data lost)
	}{
		"one byte":                {keep: 1},
		"inside a key":            {keep: 5},
		"inside the patch":        {keep: lastLen / 2},
		"all but the }":           {keep: lastLen - 2},
		"zero-filled":             {keep: 0, zeros: lastLen},
		"half written, then NULs": {keep: lastLen / 2, zeros: 100},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "state.json")
			data := append(bytes.Clone(full[:lastStart+tc.keep]), make([]byte, tc.zeros)...)
			keep := tc.keep + tc.zeros
			if err := os.WriteFile(path, data, 0o600); err != nil {
				t.Fatal(err)
			}
			rep, err := Replay(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			wantTorn := &Torn{Position: Position{Ordinal: 4, Offset: int64(lastStart), Line: 5}, Size: int64(keep)}
			if diff := cmp.Diff(wantTorn, rep.Torn); diff != "" {
				t.Errorf("torn (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(wantState, rep.State); diff != "" {
				t.Errorf("state with a torn tail (-want +got):\n%s", diff)
			}
			var te *TornError
			if _, err := Verify(path); !errors.As(err, &te) {
				t.Errorf("Verify error = %v, want a *TornError", err)
			}

			l, err := Open(path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			ev, err := l.Append(Meta{Event: "create"}, createPatch("after"))
			if err != nil {
				t.Fatal(err)
			}
			if ev.Index != 4 {
				t.Errorf("index after repair = %d, want 4", ev.Index)
			}
			l.Close()
			repaired, _ := os.ReadFile(path)
			if !bytes.HasPrefix(repaired, full[:lastStart]) {
				t.Errorf("repair lost whole events:\n%s", repaired)
			}
			copies, _ := filepath.Glob(path + ".torn-*")
			if len(copies) != 1 {
				t.Fatalf("torn copies: %v, want one", copies)
			}
			kept, _ := os.ReadFile(copies[0])
			if !bytes.Equal(kept, data[lastStart:]) {
				t.Errorf("torn copy holds %q, want the torn bytes %q", kept, data[lastStart:])
			}
			if m := fileMode(t, copies[0]); m != 0o600 {
				t.Errorf("torn copy has mode %v, want 0600", m)
			}
			if r, err := Verify(path); err != nil || len(r.Warnings) != 0 || r.Events != 5 {
				t.Errorf("after repair: report %+v, error %v", r, err)
			}
		})
	}
}

// TestOpenTornInitialisingEvent covers a crash while the file was being
// created: nothing whole to keep, so Open starts over (keeping the bytes).
func TestOpenTornInitialisingEvent(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "state.json")
	if err := os.WriteFile(path, []byte(`{"index":0,"meta":{"ti`), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if diff := cmp.Diff(mustDecode(t, initialDocument), any(l.State())); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if copies, _ := filepath.Glob(path + ".torn-*"); len(copies) != 1 {
		t.Errorf("torn copies: %v, want one", copies)
	}
}

func TestOpenRejectsBadFiles(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"not a state log": `{"hello":"world"}`,
		"other _type":     `{"index":0,"meta":{},"patch":[{"op":"add","path":"","value":{"_type":"nixopsState"}}]} {"index":1,"meta":{},"patch":[{"op":"replace","path":"/_type","value":"x"}]}`,
	}
	for name, content := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "state.json")
			if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := Open(path, Options{})
			if err == nil || !strings.HasPrefix(err.Error(), "open state file "+path+": ") {
				t.Fatalf("Open error = %v, want one naming the file", err)
			}
			after, _ := os.ReadFile(path)
			if string(after) != content {
				t.Errorf("Open changed a file it rejected")
			}
			// The lock was released.
			lk, err := acquireLock(path, false, nil, nil)
			if err != nil {
				t.Fatalf("lock still held after a failed Open: %v", err)
			}
			releaseLock(lk)
		})
	}
}

func TestCompact(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "state.json")
	l, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		if _, err := l.Append(Meta{Event: "create"}, createPatch(fmt.Sprint("r", i))); err != nil {
			t.Fatal(err)
		}
		if i%2 == 0 {
			if _, err := l.Append(Meta{Event: "destroy"}, schema.Patch{{Op: "remove", Path: schema.Pointer("resources", fmt.Sprint("r", i))}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	state := l.State()
	l.Close()
	before, _ := os.ReadFile(path)

	if err := Compact(path, Options{}); err != nil {
		t.Fatal(err)
	}
	backups, _ := filepath.Glob(path + ".*.bak")
	if len(backups) != 1 {
		t.Fatalf("backups: %v, want one", backups)
	}
	if kept, _ := os.ReadFile(backups[0]); !bytes.Equal(kept, before) {
		t.Errorf("backup differs from the file before compaction")
	}
	after, _ := os.ReadFile(path)
	if n := bytes.Count(after, []byte{'\n'}); n != 2 {
		t.Errorf("compacted file has %d lines, want 2:\n%s", n, after)
	}
	if m := fileMode(t, path); m != 0o600 {
		t.Errorf("compacted file has mode %v", m)
	}
	r, err := Verify(path)
	if err != nil || len(r.Warnings) != 0 || r.LastIndex != 30 {
		t.Errorf("verify after compaction: %+v, %v (want last index 30, no warnings)", r, err)
	}
	l, err = Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if diff := cmp.Diff(state, l.State()); diff != "" {
		t.Errorf("state after compaction (-want +got):\n%s", diff)
	}
	if ev, err := l.Append(Meta{Event: "create"}, createPatch("next")); err != nil || ev.Index != 31 {
		t.Errorf("append after compaction: index %d, error %v; want 31", ev.Index, err)
	}
	// Compacting the open log in place keeps it usable.
	backup, err := l.Compact()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(backup); err != nil {
		t.Errorf("backup of the in-place compaction: %v", err)
	}
	if ev, err := l.Append(Meta{Event: "create"}, createPatch("after")); err != nil || ev.Index != 32 {
		t.Errorf("append after in-place compaction: index %d, error %v; want 32", ev.Index, err)
	}
	if _, err := Verify(path); err != nil {
		t.Error(err)
	}
}

// TestSecondWriterProcess runs real separate processes against one log: a
// second writer is refused with the holder's pid, a waiting writer gets in
// after the holder exits, and the file stays whole and ordered.
func TestSecondWriterProcess(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "state.json")
	holder := helper(t, path, "holder", 1, "STATEFILE_TEST_HOLD=1")
	stdin, err := holder.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := holder.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	holder.Stderr = os.Stderr
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { holder.Process.Kill(); holder.Wait() })
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "locked\n" {
		t.Fatalf("holder said %q, %v", line, err)
	}

	_, err = Open(path, Options{})
	var le *LockedError
	if !errors.As(err, &le) {
		t.Fatalf("Open while locked: %v, want a *LockedError", err)
	}
	if le.PID != holder.Process.Pid || time.Since(le.Since) > time.Minute || le.Path != path {
		t.Errorf("LockedError = %+v, want pid %d and a recent time", le, holder.Process.Pid)
	}
	wantMsg := fmt.Sprintf("state file %s is locked by process %d since ", path, holder.Process.Pid)
	if !strings.HasPrefix(err.Error(), wantMsg) {
		t.Errorf("error %q does not start with %q", err, wantMsg)
	}

	refused := helper(t, path, "refused", 1)
	var refusedErr bytes.Buffer
	refused.Stderr = &refusedErr
	err = refused.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 || !strings.Contains(refusedErr.String(), wantMsg) {
		t.Errorf("second writer process: %v, stderr %q; want exit 3 naming pid %d", err, refusedErr.String(), holder.Process.Pid)
	}

	waiter := helper(t, path, "waiter", 20, "STATEFILE_TEST_WAIT=1")
	waiter.Stderr = os.Stderr
	if err := waiter.Start(); err != nil {
		t.Fatal(err)
	}
	stdin.Close() // the holder appends, closes, exits
	if err := holder.Wait(); err != nil {
		t.Fatalf("holder: %v", err)
	}
	if err := waiter.Wait(); err != nil {
		t.Fatalf("waiting writer: %v", err)
	}
	r, err := Verify(path)
	if err != nil {
		t.Fatal(err)
	}
	if r.Events != 22 || r.Resources != 21 || len(r.Warnings) != 0 {
		t.Errorf("report %+v, want 22 events, 21 resources, no warnings", r)
	}
}

// TestConcurrentWriterProcesses starts several waiting writers at once;
// every event must land whole, in strictly increasing order.
func TestConcurrentWriterProcesses(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "state.json")
	const procs, each = 4, 25
	var cmds []*exec.Cmd
	for i := range procs {
		c := helper(t, path, fmt.Sprint("p", i), each, "STATEFILE_TEST_WAIT=1")
		c.Stderr = os.Stderr
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, c)
	}
	for _, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Errorf("writer: %v", err)
		}
	}
	r, err := Verify(path)
	if err != nil {
		t.Fatal(err)
	}
	if r.Events != 1+procs*each || r.Resources != procs*each || len(r.Warnings) != 0 || r.LastIndex != procs*each {
		t.Errorf("report %+v, want %d events, %d resources, no warnings", r, 1+procs*each, procs*each)
	}
}

// TestNixOps4WriterLock holds the flock NixOps4's writer takes on the state
// file itself while it appends: Open waits for it, or reports the file as
// locked if it is held too long.
func TestNixOps4WriterLock(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "state.json")
	if err := os.WriteFile(path, readTestdata(t, "nixops4-style.json"), 0o600); err != nil {
		t.Fatal(err)
	}
	other, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := flock(int(other.Fd()), unix.LOCK_EX); err != nil {
		t.Fatal(err)
	}

	_, err = Open(path, Options{})
	var le *LockedError
	if !errors.As(err, &le) || le.PID != 0 {
		t.Fatalf("Open while the file is flocked: %v, want a *LockedError without a pid", err)
	}

	unlocked := make(chan error)
	go func() {
		time.Sleep(100 * time.Millisecond)
		unlocked <- flock(int(other.Fd()), unix.LOCK_UN)
	}()
	l, err := Open(path, Options{Wait: true})
	if uerr := <-unlocked; uerr != nil {
		t.Fatal(uerr)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := flock(int(other.Fd()), unix.LOCK_EX|unix.LOCK_NB); !errors.Is(err, unix.EWOULDBLOCK) {
		t.Errorf("the open log does not hold the state file's own flock (flock: %v)", err)
	}
}

// TestAppendConcurrentGoroutines appends from many goroutines of one
// process (the engine's workers): every event lands whole and in order.
func TestAppendConcurrentGoroutines(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "state.json")
	l, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	const workers, each = 8, 10
	errs := make(chan error, workers)
	for w := range workers {
		go func() {
			for i := range each {
				if _, err := l.Append(Meta{Event: "create"}, createPatch(fmt.Sprintf("w%d-%d", w, i))); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range workers {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if got := l.LastIndex(); got != workers*each {
		t.Errorf("LastIndex = %d, want %d", got, workers*each)
	}
	l.Close()
	r, err := Verify(path)
	if err != nil || r.Events != 1+workers*each || r.Resources != workers*each || len(r.Warnings) != 0 {
		t.Errorf("report %+v, error %v", r, err)
	}
}
