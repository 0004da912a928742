package providersdk_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"

	"github.com/pierhq/pier/providersdk"
	"github.com/pierhq/pier/schema"
)

// helperEnv makes the test binary act as a provider built on Serve instead
// of running tests, so Serve is tested on a real process's stdin and stdout.
const helperEnv = "PROVIDERSDK_TEST_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "reader" {
		if err := providersdk.Serve(context.Background(), stdinReader{}, providersdk.Options{}); err != nil {
			fmt.Fprintln(os.Stderr, "serve:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if os.Getenv(helperEnv) == "noisy" {
		if err := providersdk.Serve(context.Background(), noisy{}, providersdk.Options{}); err != nil {
			fmt.Fprintln(os.Stderr, "serve:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// noisy prints to stdout itself and through a child process, as careless
// handler code and the libraries it calls do.
type noisy struct{}

func (noisy) Create(ctx context.Context, _ *schema.CreateResourceRequest) (*schema.CreateResourceResponse, error) {
	fmt.Println("stray print")
	cmd := exec.CommandContext(ctx, "echo", "child print")
	cmd.Stdout = os.Stdout
	if err := cmd.Run(); err != nil {
		return nil, err
	}
	return &schema.CreateResourceResponse{OutputProperties: schema.Properties{"ok": true}}, nil
}

func (noisy) Update(context.Context, *schema.UpdateResourceRequest) (*schema.UpdateResourceResponse, error) {
	return nil, fmt.Errorf("not supported")
}

// stdinReader runs a program that reads its inherited stdin to the end,
// as a tool prompting for a password would.
type stdinReader struct{}

func (stdinReader) Create(ctx context.Context, _ *schema.CreateResourceRequest) (*schema.CreateResourceResponse, error) {
	cmd := exec.CommandContext(ctx, "sh", "-c", "cat; echo end")
	cmd.Stdin = os.Stdin
	out, err := cmd.Output()
	if err != nil {
		return nil, err
	}
	return &schema.CreateResourceResponse{OutputProperties: schema.Properties{"read": string(out)}}, nil
}

func (stdinReader) Update(context.Context, *schema.UpdateResourceRequest) (*schema.UpdateResourceResponse, error) {
	return nil, fmt.Errorf("not supported")
}

// TestServeKeepsStdinForRequests: a program a handler starts with the
// process's stdin reads /dev/null, not the requests that follow.
func TestServeKeepsStdinForRequests(t *testing.T) {
	t.Parallel()
	stdout, _ := serveTwoCreates(t, "reader")
	frame := `{"createResourceResponse":{"outputProperties":{"read":"end\n"}}}` + "\n"
	if diff := cmp.Diff(frame+frame, stdout); diff != "" {
		t.Errorf("stdout (-want +got):\n%s", diff)
	}
}

// serveTwoCreates runs the test binary as the helper provider mode with
// two create requests on its stdin, and returns its stdout and stderr.
func serveTwoCreates(t *testing.T, mode string) (stdout, stderr string) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), os.Args[0])
	cmd.Env = append(os.Environ(), helperEnv+"="+mode)
	req := `{"createResourceRequest":{"type":"t","inputProperties":{},"isStateful":false}}` + "\n"
	cmd.Stdin = strings.NewReader(req + req)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("provider: %v; stderr:\n%s", err, &errOut)
	}
	return out.String(), errOut.String()
}

// TestServeRestoresBlockingStreams: Serve makes a pipe it is given
// non-blocking while it serves, and gives the pipes their blocking mode
// back before it exits, for whoever else holds them (a shell running the
// provider in a pipeline).
func TestServeRestoresBlockingStreams(t *testing.T) {
	t.Parallel()
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer inR.Close()
	defer outW.Close()
	cmd := exec.CommandContext(t.Context(), os.Args[0])
	cmd.Env = append(os.Environ(), helperEnv+"=noisy")
	cmd.Stdin, cmd.Stdout = inR, outW // passed as they are: one open file each, shared
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	req := `{"createResourceRequest":{"type":"t","inputProperties":{},"isStateful":false}}` + "\n"
	if _, err := inW.WriteString(req); err != nil {
		t.Fatal(err)
	}
	inW.Close()
	out := make(chan []byte)
	go func() {
		data, _ := io.ReadAll(outR)
		out <- data
	}()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("provider: %v; stderr:\n%s", err, &stderr)
	}
	for name, f := range map[string]*os.File{"stdin": inR, "stdout": outW} {
		if nonblocking(t, f) {
			t.Errorf("%s is left non-blocking", name)
		}
	}
	outW.Close()
	if got := string(<-out); !strings.Contains(got, "createResourceResponse") {
		t.Fatalf("stdout %q, want a response", got)
	}
}

// nonblocking reports a file's O_NONBLOCK without changing it (Fd would).
func nonblocking(t *testing.T, f *os.File) bool {
	t.Helper()
	rc, err := f.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var flags int
	var ferr error
	if err := rc.Control(func(fd uintptr) { flags, ferr = unix.FcntlInt(fd, unix.F_GETFL, 0) }); err != nil {
		t.Fatal(err)
	}
	if ferr != nil {
		t.Fatal(ferr)
	}
	return flags&unix.O_NONBLOCK != 0
}

func TestServeKeepsStdoutForFrames(t *testing.T) {
	t.Parallel()
	stdout, stderr := serveTwoCreates(t, "noisy")
	frame := `{"createResourceResponse":{"outputProperties":{"ok":true}}}` + "\n"
	if diff := cmp.Diff(frame+frame, stdout); diff != "" {
		t.Errorf("stdout (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff("stray print\nchild print\nstray print\nchild print\n", stderr); diff != "" {
		t.Errorf("stderr (-want +got):\n%s", diff)
	}
}
