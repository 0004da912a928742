package terraform_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pierhq/pier/schema"
)

// TestProviderInheritsNoHostPipe checks what the Terraform provider the
// bridge starts holds open: its stdin must be /dev/null, and neither the
// host's request stream (the bridge's stdin) nor the configuration pipe
// (fd 3, credentials) may reach it. A provider, or a tool it runs, that
// read its stdin would otherwise take requests meant for the bridge.
func TestProviderInheritsNoHostPipe(t *testing.T) {
	t.Parallel()
	b := startBridge(t, providerBin(t, "terraform-provider-time"), bridgeOpts{config: map[string]any{}})
	ok(t, b.create("time_static", schema.Properties{}))
	pid := b.providerPID()
	fds := openFiles(t, pid)
	if got := fds[0]; got != os.DevNull {
		t.Errorf("provider stdin is %q, want %s", got, os.DevNull)
	}
	for fd, target := range fds {
		for _, ino := range b.hostPipes {
			if target == fmt.Sprintf("pipe:[%d]", ino) {
				t.Errorf("provider fd %d is the host's pipe %s", fd, target)
			}
		}
	}
	if code := b.exitCode(); code != 0 {
		t.Errorf("exit code %d", code)
	}
}

// openFiles maps a process's open file descriptors to what they point at.
func openFiles(t *testing.T, pid int) map[int]string {
	t.Helper()
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[int]string{}
	for _, e := range entries {
		fd, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		target, err := os.Readlink(filepath.Join(dir, e.Name()))
		if err != nil {
			continue // closed meanwhile
		}
		out[fd] = target
	}
	if len(out) == 0 {
		t.Fatalf("no open files listed in %s", dir)
	}
	keys := slices.Sorted(func(yield func(int) bool) {
		for k := range out {
			if !yield(k) {
				return
			}
		}
	})
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, " %d=%s", k, out[k])
	}
	t.Logf("provider %d open files:%s", pid, b.String())
	return out
}
