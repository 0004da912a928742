package local_test

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/pierhq/pier/adapters/local"
	"github.com/pierhq/pier/internal/testbin"
)

// replyBound is how long the end-to-end tests wait for one response or for
// the process to exit; every request here completes in milliseconds, so
// hitting it means the adapter hung.
const replyBound = 30 * time.Second

// adapter is a running `pier adapter local` process.
type adapter struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan []byte // stdout, line by line
	stderr *lockedBuffer
	exited chan struct{}
	err    error // Wait's result, set before exited is closed
}

type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func startAdapter(t *testing.T, dir string, env ...string) *adapter {
	t.Helper()
	cmd := exec.Command(testbin.Pier(t), "adapter", "local")
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "PIER_LOG=debug"), env...)
	a := &adapter{cmd: cmd, lines: make(chan []byte), stderr: &lockedBuffer{}, exited: make(chan struct{})}
	cmd.Stderr = a.stderr
	var err error
	if a.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		r := bufio.NewReader(stdout)
		for {
			line, err := r.ReadBytes('\n')
			if len(line) > 0 {
				a.lines <- bytes.TrimSuffix(line, []byte("\n"))
			}
			if err != nil {
				close(a.lines)
				a.err = cmd.Wait()
				close(a.exited)
				return
			}
		}
	}()
	t.Cleanup(func() {
		a.stdin.Close()
		select {
		case <-a.exited:
		case <-time.After(replyBound):
			cmd.Process.Kill()
			<-a.exited
			t.Errorf("adapter did not exit after its stdin closed; stderr:\n%s", a.stderr)
		}
	})
	return a
}

// call sends one request line and returns the one response line.
func (a *adapter) call(t *testing.T, req string) []byte {
	t.Helper()
	if _, err := io.WriteString(a.stdin, req+"\n"); err != nil {
		t.Fatalf("write request: %v; stderr:\n%s", err, a.stderr)
	}
	select {
	case line, ok := <-a.lines:
		if !ok {
			t.Fatalf("adapter exited without answering (%v); stderr:\n%s", a.err, a.stderr)
		}
		return line
	case <-time.After(replyBound):
		t.Fatalf("no response within %v; stderr:\n%s", replyBound, a.stderr)
	}
	return nil
}

// wait closes stdin (unless signal is set, which is sent instead) and
// returns the exit code.
func (a *adapter) wait(t *testing.T, sig os.Signal) int {
	t.Helper()
	if sig != nil {
		if err := a.cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
	} else {
		a.stdin.Close()
	}
	select {
	case <-a.exited:
	case <-time.After(replyBound):
		t.Fatalf("adapter did not exit; stderr:\n%s", a.stderr)
	}
	var ee *exec.ExitError
	if errors.As(a.err, &ee) {
		return ee.ExitCode()
	}
	if a.err != nil {
		t.Fatal(a.err)
	}
	return 0
}

func TestAdapterEndToEnd(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := startAdapter(t, dir)
	steps := []step{
		{req: create("file", `{"name":"hello.txt","contents":"hello\n"}`, false), want: created},
		{req: create("exec", `{"executable":"tr","args":["a-z","A-Z"],"stdin":"shout"}`, false), want: `{"createResourceResponse":{"outputProperties":{"stdout":"SHOUT"}}}`},
		{req: create("exec", `{"executable":"date","args":["+%N"],"once":true}`, false), wantErr: []string{"once=true needs a state handler"}},
		{req: create("exec", `{"executable":"echo","args":["first"],"once":true}`, true), want: `{"createResourceResponse":{"outputProperties":{"stdout":"first\n"}}}`},
		{req: update("exec", `{"executable":"echo","args":["first"],"once":true}`, `{"stdout":"first\n"}`, `{"executable":"echo","args":["second"],"once":true}`), want: `{"updateResourceResponse":{"outputProperties":{"stdout":"first\n"}}}`},
		{req: update("exec", `{"executable":"echo","args":["first"]}`, `{"stdout":"first\n"}`, `{"executable":"echo","args":["second"]}`), want: `{"updateResourceResponse":{"outputProperties":{"stdout":"second\n"}}}`},
		{req: create("memo", `{"initialize_with":"v1"}`, true), want: `{"createResourceResponse":{"outputProperties":{"value":"v1"}}}`},
		{req: update("memo", `{"initialize_with":"v1"}`, `{"value":"v1"}`, `{"initialize_with":"v2"}`), want: `{"updateResourceResponse":{"outputProperties":{"value":"v1"}}}`},
		{req: create("memo", `{"initialize_with":"v1"}`, false), wantErr: []string{"memo only makes sense with a state handler"}},
		{req: create("file", `{"name":"x","contents":"","owner":"root"}`, false), wantErr: []string{`create file: input field "owner": unknown field`}},
		{req: create("symlink", `{}`, false), wantErr: []string{`unknown resource type "symlink" (supported: exec, file, memo, state_file)`}},
		{req: `{"createResourceRequest":{"type":"file"}}`, wantErr: []string{"invalid request createResourceRequest"}},
		{req: `]]]`, wantErr: []string{"invalid request"}},
		{req: stateRead("state_file", `{"name":"state.json"}`), want: emptyDoc},
		{req: stateEvent(`{"name":"state.json"}`, "create", `[{"op":"add","path":"/resources/m","value":{"type":"memo","inputProperties":{"initialize_with":"v1"},"outputProperties":{"value":"v1"}}}]`), want: `{"stateResourceEventResponse":{}}`},
		{req: stateRead("state_file", `{"name":"state.json"}`), want: `{"stateResourceReadResponse":{"state":{"_type":"nixopsState","deployments":{},"resources":{"m":{"inputProperties":{"initialize_with":"v1"},"outputProperties":{"value":"v1"},"type":"memo"}}}}}`},
		{req: destroy("state_file", `{"name":"state.json"}`), wantErr: []string{"the state still records 1 resource(s) (m)"}},
		{req: destroy("file", `{"name":"hello.txt","contents":"hello\n"}`), want: destroyed},
		{req: destroy("memo", `{"initialize_with":"v1"}`), want: destroyed},
	}
	for i, s := range steps {
		checkResponse(t, i, s, a.call(t, s.req))
	}
	if code := a.wait(t, nil); code != 0 {
		t.Errorf("exit code after stdin closed = %d, want 0; stderr:\n%s", code, a.stderr)
	}

	if _, err := os.Stat(filepath.Join(dir, "hello.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("hello.txt after destroy: %v, want it gone", err)
	}
	fi, err := os.Stat(filepath.Join(dir, "state.json"))
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm != 0o600 {
		t.Errorf("state file mode = %o, want 600", perm)
	}
	// The event survives the process: a new one reads it back.
	b := startAdapter(t, dir)
	checkResponse(t, 0, step{
		req:  stateRead("state_file", `{"name":"state.json"}`),
		want: `{"stateResourceReadResponse":{"state":{"_type":"nixopsState","deployments":{},"resources":{"m":{"inputProperties":{"initialize_with":"v1"},"outputProperties":{"value":"v1"},"type":"memo"}}}}}`,
	}, b.call(t, stateRead("state_file", `{"name":"state.json"}`)))
}

// TestAdapterStateFileLock: a writer locks a state file before its first
// read, so that a second writer cannot plan against the same state and
// then create objects it can never record; a reader takes no lock and
// answers while the writer holds it.
func TestAdapterStateFileLock(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	reader := startAdapter(t, dir, local.ReadOnlyEnv+"=1")
	holder := startAdapter(t, dir)
	other := startAdapter(t, dir)
	read := stateRead("state_file", `{"name":"state.json"}`)
	event := stateEvent(`{"name":"state.json"}`, "create", `[{"op":"add","path":"/resources/m","value":{"type":"memo","inputProperties":{},"outputProperties":{}}}]`)
	recorded := `{"stateResourceReadResponse":{"state":{"_type":"nixopsState","deployments":{},"resources":{"m":{"inputProperties":{},"outputProperties":{},"type":"memo"}}}}}`

	// Reading writes nothing: planning reads state. The writer's read
	// takes the lock, but creates no state file and repairs nothing.
	checkResponse(t, 0, step{req: read, want: emptyDoc}, reader.call(t, read))
	checkResponse(t, 1, step{req: read, want: emptyDoc}, holder.call(t, read))
	if _, err := os.Stat(filepath.Join(dir, "state.json")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("state.json after reads: %v, want no file", err)
	}
	// A second writer is refused at its read, before it plans anything,
	// and told who holds the lock.
	checkResponse(t, 2, step{req: read, wantErr: []string{
		`lock state file "state.json": `,
		"is locked by process " + strconv.Itoa(holder.cmd.Process.Pid),
	}}, other.call(t, read))
	checkResponse(t, 3, step{req: read, want: emptyDoc}, reader.call(t, read))
	checkResponse(t, 4, step{req: event, want: `{"stateResourceEventResponse":{}}`}, holder.call(t, event))
	checkResponse(t, 5, step{req: read, want: recorded}, reader.call(t, read))

	if code := holder.wait(t, nil); code != 0 {
		t.Errorf("holder exit code = %d, want 0", code)
	}
	// Once the holder is gone the other writer reads what it recorded.
	checkResponse(t, 6, step{req: read, want: recorded}, other.call(t, read))
	checkResponse(t, 7, step{req: event, want: `{"stateResourceEventResponse":{}}`}, other.call(t, event))
}

func TestAdapterSignals(t *testing.T) {
	t.Parallel()
	a := startAdapter(t, t.TempDir())
	req := create("exec", `{"executable":"true","args":[]}`, false)
	want := `{"createResourceResponse":{"outputProperties":{"stdout":""}}}`
	checkResponse(t, 0, step{req: req, want: want}, a.call(t, req))
	// SIGINT is ignored: the host, not the terminal, stops providers.
	if err := a.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	checkResponse(t, 1, step{req: req, want: want}, a.call(t, req))
	if code := a.wait(t, syscall.SIGTERM); code != 130 {
		t.Errorf("exit code after SIGTERM = %d, want 130; stderr:\n%s", code, a.stderr)
	}
}
