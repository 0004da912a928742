package nixsource

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pierhq/pier/internal/testbin"
)

// TestCancelKillsNixAndItsChildren cancels a round while nix (here a
// stand-in script) waits on a child of its own, as nix does on git or a
// builder. Everything nix started must die with it: a child left running
// would hold nix's output open and outlive pier.
func TestCancelKillsNixAndItsChildren(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child.pid")
	script := "#!/bin/sh\n" +
		"sh -c 'echo $$ > " + pidFile + ".tmp; mv " + pidFile + ".tmp " + pidFile + "; exec sleep 300' &\n" +
		"wait\n"
	nix := filepath.Join(dir, "nix")
	testbin.WriteExecutable(t, nix, []byte(script), 0o755)
	s, err := New("path:"+dir, Options{NixBin: nix, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	child := make(chan int, 1)
	go func() {
		defer cancel()
		pid, err := waitForPid(ctx, pidFile)
		if err != nil {
			return
		}
		child <- pid
	}()
	if _, err := s.Resolve(ctx, nil); err == nil || !strings.Contains(err.Error(), "context canceled") {
		t.Fatalf("Resolve() = %v, want a cancellation error", err)
	}
	var pid int
	select {
	case pid = <-child:
	default:
		t.Fatal("the stand-in nix never started its child")
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	deadline := time.Now().Add(5 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("nix's child %d survives the cancelled round", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func waitForPid(ctx context.Context, path string) (int, error) {
	for {
		if data, err := os.ReadFile(path); err == nil {
			return strconv.Atoi(strings.TrimSpace(string(data)))
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// alive reports whether pid runs (a zombie does not).
func alive(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}
