package provider

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pierhq/pier/internal/testbin"
	"github.com/pierhq/pier/internal/testneed"

	"github.com/pierhq/pier/schema"
)

// TestExitLeavingDaemon runs a provider that starts a daemon outside its
// process group (setsid), which keeps the provider's stdout and stderr
// open, and then exits without answering. pier must report the exit and
// its status soon after it happens, not wait out the request timeout for
// an end of file the daemon withholds.
func TestExitLeavingDaemon(t *testing.T) {
	t.Parallel()
	testneed.Tool(t, "setsid")
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "daemon.pid")
	script := "#!/bin/sh\n" +
		"setsid sh -c 'echo $$ > " + pidFile + ".tmp; mv " + pidFile + ".tmp " + pidFile + "; exec sleep 300' &\n" +
		"while [ ! -s " + pidFile + " ]; do sleep 0.01; done\n" +
		"echo 'faulty: crashing, leaving a daemon behind' >&2\n" +
		"exit 4\n"
	exe := filepath.Join(dir, "daemonising.sh")
	testbin.WriteExecutable(t, exe, []byte(script), 0o755)
	t.Cleanup(func() {
		if data, err := os.ReadFile(pidFile); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	// The timeout is far longer than the test may take: reaching it means
	// the exit went unnoticed.
	p, err := Start(t.Context(), Config{Name: "faulty", Executable: exe, Timeout: 10 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	_, err = p.Create(t.Context(), "web.db", &schema.CreateResourceRequest{Type: "thing", InputProperties: schema.Properties{}})
	var pe *Error
	if !errors.As(err, &pe) {
		t.Fatalf("Create() = %v, want *Error", err)
	}
	if pe.Kind != KindExited || pe.ExitStatus != "exit status 4" {
		t.Errorf("Kind %v, ExitStatus %q; want Exited, exit status 4; error:\n%v", pe.Kind, pe.ExitStatus, err)
	}
	for _, want := range []string{"exited before responding", "faulty: crashing, leaving a daemon behind"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}
