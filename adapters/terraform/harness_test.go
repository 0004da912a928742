package terraform_test

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
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/pierhq/pier/internal/testbin"
	"github.com/pierhq/pier/internal/testneed"
	"github.com/pierhq/pier/schema"
)

// responseBound is how long a test waits for one response before it kills
// the bridge: far above any real operation here, so only a hang trips it.
const responseBound = 90 * time.Second

// providerBin returns a Terraform provider from bin/tfproviders or skips.
func providerBin(t testing.TB, name string) string {
	t.Helper()
	p := filepath.Join(testbin.ModuleRoot(), "bin", "tfproviders", name)
	testneed.File(t, p, "run make tfproviders (.ci/setup.d/30-tfproviders.sh)")
	return p
}

// lockedBuffer is a bytes.Buffer safe for a writer goroutine and readers.
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

// bridge is a running `pier adapter terraform` subprocess.
type bridge struct {
	t      *testing.T
	cmd    *exec.Cmd
	plugin string // the provider binary the bridge runs
	stdin  io.WriteCloser
	out    *bufio.Reader
	stderr *lockedBuffer
	// hostPipes are the inodes of the pipes the test gives the bridge:
	// its stdin and, with a configuration, fd 3.
	hostPipes []uint64
	waited    bool
	err       error
}

// bridgeOpts configure startBridge.
type bridgeOpts struct {
	// config is written to fd 3 as JSON when non-nil; rawConfig is
	// written as is when non-nil.
	config    any
	rawConfig []byte
	args      []string
	env       []string
}

func startBridge(t *testing.T, plugin string, o bridgeOpts) *bridge {
	t.Helper()
	args := append([]string{"adapter", "terraform", "--plugin", plugin}, o.args...)
	cmd := exec.Command(testbin.Pier(t), args...)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "PIER_LOG=debug")
	cmd.Env = append(cmd.Env, o.env...)
	var hostPipes []uint64
	if o.config != nil || o.rawConfig != nil {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		data := o.rawConfig
		if data == nil {
			if data, err = json.Marshal(o.config); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := w.Write(data); err != nil {
			t.Fatal(err)
		}
		w.Close()
		defer r.Close()
		hostPipes = append(hostPipes, pipeInode(t, r))
		cmd.ExtraFiles = []*os.File{r}
		cmd.Env = append(cmd.Env, "PIER_PROVIDER_CONFIG_FD=3")
	}
	b := &bridge{t: t, cmd: cmd, plugin: plugin, stderr: &lockedBuffer{}, hostPipes: hostPipes}
	cmd.Stderr = b.stderr
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer inR.Close()
	cmd.Stdin, b.stdin = inR, inW
	b.hostPipes = append(b.hostPipes, pipeInode(t, inR))
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	b.out = bufio.NewReaderSize(stdout, 1<<20)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		b.stdin.Close()
		b.wait()
		if t.Failed() {
			t.Logf("bridge stderr:\n%s", b.stderr)
		}
	})
	return b
}

// pipeInode returns the inode of a pipe, as /proc/PID/fd shows it.
func pipeInode(t testing.TB, f *os.File) uint64 {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &st); err != nil {
		t.Fatal(err)
	}
	return st.Ino
}

// wait reaps the bridge once, killing it if it does not exit in time.
func (b *bridge) wait() error {
	if b.waited {
		return b.err
	}
	b.waited = true
	timer := time.AfterFunc(responseBound, func() { b.cmd.Process.Kill() })
	defer timer.Stop()
	b.err = b.cmd.Wait()
	return b.err
}

// exitCode closes stdin, waits, and returns the exit status.
func (b *bridge) exitCode() int {
	b.stdin.Close()
	err := b.wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		b.t.Fatalf("wait: %v", err)
	}
	return 0
}

// send writes one request and reads its response.
func (b *bridge) send(req schema.Request) schema.Response {
	b.t.Helper()
	data, err := json.Marshal(req)
	if err != nil {
		b.t.Fatal(err)
	}
	if _, err := b.stdin.Write(append(data, '\n')); err != nil {
		b.t.Fatalf("write request: %v\nstderr:\n%s", err, b.stderr)
	}
	return b.receive()
}

func (b *bridge) receive() schema.Response {
	b.t.Helper()
	timer := time.AfterFunc(responseBound, func() { b.cmd.Process.Kill() })
	defer timer.Stop()
	line, err := b.out.ReadBytes('\n')
	if err != nil {
		b.t.Fatalf("read response: %v\nstderr:\n%s", err, b.stderr)
	}
	if err := schema.ValidateResponse(line, []schema.Operation{schema.OperationDestroy, schema.OperationRead, schema.OperationImport, schema.OperationPreview}); err != nil {
		b.t.Fatalf("invalid response %s: %v", line, err)
	}
	var resp schema.Response
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	if err := dec.Decode(&resp); err != nil {
		b.t.Fatalf("decode response %s: %v", line, err)
	}
	return resp
}

// ok fails the test on an errorResponse.
func ok(t *testing.T, resp schema.Response) schema.Response {
	t.Helper()
	if resp.ErrorResponse != nil {
		t.Fatalf("errorResponse: %s", resp.ErrorResponse.Message)
	}
	return resp
}

// failure returns the errorResponse message or fails the test.
func failure(t *testing.T, resp schema.Response) string {
	t.Helper()
	if resp.ErrorResponse == nil {
		data, _ := json.Marshal(resp)
		t.Fatalf("want an errorResponse, got %s", data)
	}
	return resp.ErrorResponse.Message
}

func (b *bridge) create(typ string, in schema.Properties) schema.Response {
	b.t.Helper()
	return b.send(schema.Request{CreateResourceRequest: &schema.CreateResourceRequest{Type: typ, InputProperties: in, IsStateful: true}})
}

func (b *bridge) update(typ string, oldIn, out, in schema.Properties) schema.Response {
	b.t.Helper()
	return b.send(schema.Request{UpdateResourceRequest: &schema.UpdateResourceRequest{
		Resource:        schema.ExtantResource{Type: typ, InputProperties: oldIn, OutputProperties: out},
		InputProperties: in,
	}})
}

func (b *bridge) destroy(typ string, in, out schema.Properties) schema.Response {
	b.t.Helper()
	return b.send(schema.Request{DestroyResourceRequest: &schema.DestroyResourceRequest{
		Resource: schema.ExtantResource{Type: typ, InputProperties: in, OutputProperties: out},
	}})
}

func (b *bridge) read(typ string, in, out schema.Properties) schema.Response {
	b.t.Helper()
	return b.send(schema.Request{ReadResourceRequest: &schema.ReadResourceRequest{
		Resource: schema.ExtantResource{Type: typ, InputProperties: in, OutputProperties: out},
	}})
}

func (b *bridge) preview(typ string, oldIn, out, in schema.Properties) schema.Response {
	b.t.Helper()
	return b.send(schema.Request{PreviewResourceRequest: &schema.PreviewResourceRequest{
		Type:            typ,
		Resource:        &schema.ExtantResource{Type: typ, InputProperties: oldIn, OutputProperties: out},
		InputProperties: in,
	}})
}

func (b *bridge) previewCreate(typ string, in schema.Properties) schema.Response {
	b.t.Helper()
	return b.send(schema.Request{PreviewResourceRequest: &schema.PreviewResourceRequest{Type: typ, InputProperties: in, IsStateful: true}})
}

func (b *bridge) importResource(typ, id string) schema.Response {
	b.t.Helper()
	return b.send(schema.Request{ImportResourceRequest: &schema.ImportResourceRequest{Type: typ, ID: id}})
}

// providerPID returns the pid of the bridge's one child running the
// provider binary. Other children are not the provider: Go's os/exec forks
// a short-lived child of its own on a process's first exec (the pidfd
// probe), and under load a scan of /proc can catch it.
func (b *bridge) providerPID() int {
	b.t.Helper()
	pid := b.cmd.Process.Pid
	plugin, err := filepath.EvalSymlinks(b.plugin)
	if err != nil {
		b.t.Fatal(err)
	}
	deadline := time.Now().Add(responseBound)
	for {
		var providers []int
		for _, kid := range children(pid) {
			if exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", kid)); err == nil && exe == plugin {
				providers = append(providers, kid)
			}
		}
		if len(providers) == 1 {
			return providers[0]
		}
		if len(providers) > 1 || time.Now().After(deadline) {
			b.t.Fatalf("bridge %d runs providers %v, want exactly one", pid, providers)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// children lists the live processes whose parent is pid.
func children(pid int) []int {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var kids []int
	for _, f := range stats {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		s := string(data)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		fields := strings.Fields(s[i+1:]) // state, ppid, ...
		if len(fields) < 2 || fields[0] == "Z" || fields[1] != strconv.Itoa(pid) {
			continue
		}
		if n, err := strconv.Atoi(filepath.Base(filepath.Dir(f))); err == nil {
			kids = append(kids, n)
		}
	}
	return kids
}

// alive reports whether a process exists (and is not a zombie).
func alive(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the parenthesised command name.
	s := string(data)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z'
	}
	return true
}

// gone waits for a process to disappear.
func gone(pid int) bool {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if !alive(pid) {
			return true
		}
		time.Sleep(50 * time.Millisecond)
	}
	return false
}

func signal(t *testing.T, pid int, sig syscall.Signal) {
	t.Helper()
	if err := syscall.Kill(pid, sig); err != nil {
		t.Fatalf("kill %d: %v", pid, err)
	}
}

// str reads a string output.
func str(t *testing.T, out schema.Properties, key string) string {
	t.Helper()
	s, isStr := out[key].(string)
	if !isStr {
		t.Fatalf("output %s = %#v, want a string", key, out[key])
	}
	return s
}

// tfMeta returns the reserved __tf output object.
func tfMeta(t *testing.T, out schema.Properties) map[string]any {
	t.Helper()
	m, isObj := out["__tf"].(map[string]any)
	if !isObj {
		t.Fatalf("outputs lack the __tf object: %#v", out)
	}
	return m
}

// logged waits, within a bound, for the bridge's stderr to contain every
// one of subs: stderr is copied asynchronously, so a line written before a
// response may land in the buffer just after it.
func (b *bridge) logged(subs ...string) bool {
	deadline := time.Now().Add(10 * time.Second)
	for {
		logs := b.stderr.String()
		all := true
		for _, s := range subs {
			all = all && strings.Contains(logs, s)
		}
		if all {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}
