package tfclient

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pierhq/pier/internal/testbin"
	"github.com/pierhq/pier/internal/testneed"
)

// providerBin returns a provider binary from bin/tfproviders or skips.
func providerBin(t testing.TB, name string) string {
	t.Helper()
	p := filepath.Join(testbin.ModuleRoot(), "bin", "tfproviders", name)
	testneed.File(t, p, "run make tfproviders (.ci/setup.d/30-tfproviders.sh)")
	return p
}

// syncBuffer collects log output from several goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func start(t *testing.T, opts Options) (*Client, *syncBuffer) {
	t.Helper()
	logs := &syncBuffer{}
	opts.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c, err := Start(opts)
	if err != nil {
		t.Fatalf("start: %v\nlogs:\n%s", err, logs)
	}
	t.Cleanup(func() { c.Close() })
	return c, logs
}

func TestStartTimeProvider(t *testing.T) {
	t.Parallel()
	bin := providerBin(t, "terraform-provider-time")
	c, _ := start(t, Options{Path: bin})
	if got := c.ProtocolVersion(); got != 5 {
		t.Errorf("protocol version = %d, want 5", got)
	}
	s, err := c.Schema(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, typ := range []string{"time_static", "time_offset", "time_sleep", "time_rotating"} {
		if s.ResourceTypes[typ] == nil {
			t.Errorf("schema lacks resource type %s", typ)
		}
	}
	sockDir := c.sockDir
	socks, err := filepath.Glob(filepath.Join(sockDir, "*"))
	if err != nil || len(socks) == 0 {
		t.Fatalf("the provider's socket is not in the bridge's directory %s: %v %v", sockDir, socks, err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(sockDir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket directory %s survives Close: %v", sockDir, err)
	}
}

// A long $TMPDIR (as nix-shell and some CI runners set) must not push the
// provider's socket past the platform's path limit.
func TestStartWithLongTempDir(t *testing.T) {
	bin := providerBin(t, "terraform-provider-time")
	long := filepath.Join(t.TempDir(), strings.Repeat("d", 100))
	if err := os.MkdirAll(long, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", long)
	c, _ := start(t, Options{Path: bin})
	if _, err := c.Schema(t.Context()); err != nil {
		t.Fatal(err)
	}
	if strings.HasPrefix(c.sockDir, long) {
		t.Errorf("socket directory %s is under the long TMPDIR", c.sockDir)
	}
}

func TestStartOnlyV6ToV5Provider(t *testing.T) {
	t.Parallel()
	bin := providerBin(t, "terraform-provider-time")
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		c, err := Start(Options{Path: bin, ProtocolVersions: []int{6}})
		if err == nil {
			c.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrProtocolVersion) {
			t.Fatalf("err = %v, want ErrProtocolVersion", err)
		}
		if !strings.Contains(err.Error(), "terraform-provider-time") || !strings.Contains(err.Error(), "(6)") {
			t.Errorf("error does not name the provider and offered versions: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("start hung instead of reporting the version mismatch")
	}
}

func TestProviderEnv(t *testing.T) {
	t.Parallel()
	host := []string{"HOME=/root", "PIER_PROVIDER_CONFIG_FD=3", "TF_LOG=TRACE", "PLUGIN_PROTOCOL_VERSIONS=4", "PATH=/bin"}
	cases := map[string]struct {
		logs bool
		want []string
	}{
		"off": {false, []string{"HOME=/root", "PATH=/bin", "TF_LOG_SDK=off", "TF_LOG_SDK_PROTO=off", "TF_LOG_SDK_FRAMEWORK=off", "TF_LOG_PROVIDER=off"}},
		"on":  {true, []string{"HOME=/root", "TF_LOG=TRACE", "PATH=/bin"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := providerEnv(host, tc.logs)
			if strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Errorf("providerEnv = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestOutlast: the context an ApplyResourceChange runs under outlives its
// caller's by the grace, so that a stopped provider's answer still
// arrives, and then ends, naming why; it has no deadline for gRPC to pass
// on. Cancelling it before the caller's ends leaves no timer behind.
func TestOutlast(t *testing.T) {
	t.Parallel()
	parent, cancelParent := context.WithTimeout(t.Context(), time.Hour)
	out, cancel := outlast(parent, 50*time.Millisecond)
	defer cancel()
	if _, ok := out.Deadline(); ok {
		t.Error("outlast's context has a deadline")
	}
	cancelParent()
	if out.Err() != nil {
		t.Fatalf("ended with its parent: %v", out.Err())
	}
	select {
	case <-out.Done():
	case <-time.After(time.Minute):
		t.Fatal("still running a minute after its parent ended")
	}
	if cause := context.Cause(out); !strings.Contains(cause.Error(), "no answer 50ms after the provider was told to stop") || !errors.Is(cause, context.Canceled) {
		t.Errorf("cause = %v", cause)
	}

	early, cancelEarly := outlast(t.Context(), time.Hour)
	cancelEarly()
	if !errors.Is(context.Cause(early), context.Canceled) {
		t.Errorf("cancelled early: cause %v", context.Cause(early))
	}
}
