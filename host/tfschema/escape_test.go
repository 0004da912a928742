package tfschema

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pierhq/pier/internal/testbin"
	"github.com/pierhq/pier/internal/testneed"
)

// TestFetcherEscapedDescendant runs a schema command that leaves behind a
// daemon (setsid, so outside the process group pier kills) holding its
// stdout and stderr. The fetch must still end, with the command's own
// error, instead of waiting for the daemon to close the pipes.
func TestFetcherEscapedDescendant(t *testing.T) {
	t.Parallel()
	testneed.Tool(t, "setsid")
	tests := map[string]struct {
		// after runs once the daemon is up.
		after   string
		timeout time.Duration
		want    string
	}{
		"command exits": {
			after: "echo 'pier: provider crashed' >&2\nexit 1\n",
			want:  "exit status 1: provider crashed",
		},
		"command hangs until the timeout": {
			after:   "echo 'pier: still starting' >&2\nexec sleep 300\n",
			timeout: time.Second,
			want:    "no answer within 1s",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			pidFile := filepath.Join(dir, "daemon.pid")
			script := "#!/bin/sh\n" +
				"setsid sh -c 'echo $$ > " + pidFile + ".tmp; mv " + pidFile + ".tmp " + pidFile + "; exec sleep 300' &\n" +
				"while [ ! -s " + pidFile + " ]; do sleep 0.01; done\n" +
				tc.after
			pier := filepath.Join(dir, "fake-pier")
			testbin.WriteExecutable(t, pier, []byte(script), 0o755)
			t.Cleanup(func() { killDaemon(t, pidFile) })
			f := &Fetcher{Pier: pier, Dir: dir, Timeout: tc.timeout}
			_, err := f.Schema(t.Context(), "plugin", nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func killDaemon(t testing.TB, pidFile string) {
	t.Helper()
	data, err := os.ReadFile(pidFile)
	if err != nil {
		return
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Errorf("daemon pid file: %v", err)
		return
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
}
