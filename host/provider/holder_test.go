package provider

import (
	"context"
	"errors"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pierhq/pier/host/internal/proc/proctest"
	"github.com/pierhq/pier/internal/testneed"
	"github.com/pierhq/pier/schema"
)

// lostBound is how long a test waits for a holder pool to notice that its
// process died: generous, for a loaded machine; the watcher notices at
// once.
const lostBound = 60 * time.Second

// TestHolderPoolNotReplaced: a holder pool's process that is killed after
// serving is never replaced. Lost is closed without any request, and
// every later request fails with a LostError naming the provider, the
// pid and how it ended.
func TestHolderPoolNotReplaced(t *testing.T) {
	t.Parallel()
	exe := testProvider(t, "python/provider.py", "python3")
	greet := &schema.CreateResourceRequest{Type: "greeting", InputProperties: schema.Properties{"name": "x"}}
	tests := map[string]struct {
		// kill kills the process, idle or while it serves a request.
		kill func(t *testing.T, pool *Pool, pid int)
	}{
		"idle": {kill: func(t *testing.T, _ *Pool, pid int) {
			if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
		}},
		"mid-request": {kill: func(t *testing.T, pool *Pool, pid int) {
			done := make(chan error, 1)
			go func() {
				_, err := pool.Create(t.Context(), "slow", &schema.CreateResourceRequest{Type: "greeting", InputProperties: schema.Properties{"name": "x", "delay": 600}})
				done <- err
			}()
			// The request is in flight once the pool's only slot is taken.
			for {
				rv, ok := pool.TryReserve("probe")
				if !ok {
					break
				}
				rv.Release()
				time.Sleep(5 * time.Millisecond)
			}
			if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			// Killed as it was sent (KindExited), or just before (lost).
			var pe *Error
			var lost *LostError
			if err := <-done; !(errors.As(err, &pe) && pe.Kind == KindExited) && !errors.As(err, &lost) {
				t.Errorf("request in flight when the process died: %v, want KindExited or a LostError", err)
			}
		}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			pool := NewHolderPool(Config{Name: "py", Executable: exe})
			defer pool.Close()
			first, err := pool.Create(t.Context(), "a", greet)
			if err != nil {
				t.Fatal(err)
			}
			pid := outputPID(t, first.OutputProperties)
			tc.kill(t, pool, pid)
			select {
			case <-pool.Lost():
			case <-time.After(lostBound):
				t.Fatalf("Lost not closed %s after the process died", lostBound)
			}
			_, err = pool.Create(t.Context(), "b", greet)
			var lost *LostError
			if !errors.As(err, &lost) || lost.Pid != pid {
				t.Fatalf("request after the process died: %v, want a LostError for pid %d", err, pid)
			}
			for _, want := range []string{`provider "py"`, "signal: killed", "lock is lost"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q lacks %q", err, want)
				}
			}
			if got := pool.Started(); got != 1 {
				t.Errorf("Started() = %d, want 1: the process was replaced", got)
			}
			proctest.AssertGroupGone(t, pid)
		})
	}
}

// TestHolderPoolLostAtNextRequest: a request to a holder pool whose
// process was killed while idle, sent as soon as the process is dead,
// before the watcher may have noticed, fails with a LostError, and no
// other process is started. The request's own poll (a pidfd, or waitid)
// finds the exit when the watcher has not.
func TestHolderPoolLostAtNextRequest(t *testing.T) {
	t.Parallel()
	exe := testProvider(t, "python/provider.py", "python3")
	greet := &schema.CreateResourceRequest{Type: "greeting", InputProperties: schema.Properties{"name": "x"}}
	for check, noExitFile := range exitChecks {
		t.Run(check, func(t *testing.T) {
			t.Parallel()
			pool := NewHolderPool(Config{Name: "py", Executable: exe, noExitFile: noExitFile})
			defer pool.Close()
			first, err := pool.Create(t.Context(), "a", greet)
			if err != nil {
				t.Fatal(err)
			}
			pool.mu.Lock()
			needExitFile(t, noExitFile, pool.held)
			pool.mu.Unlock()
			pid := outputPID(t, first.OutputProperties)
			if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			for len(proctest.LiveInGroup(pid)) > 0 {
				time.Sleep(5 * time.Millisecond)
			}
			_, err = pool.Create(t.Context(), "b", greet)
			var lost *LostError
			if !errors.As(err, &lost) || lost.Pid != pid {
				t.Fatalf("request after the process died: %v, want a LostError for pid %d", err, pid)
			}
			if got := pool.Started(); got != 1 {
				t.Errorf("Started() = %d, want 1: the process was replaced", got)
			}
			select {
			case <-pool.Lost():
			default:
				t.Error("Lost not closed after a request found the process gone")
			}
			proctest.AssertGroupGone(t, pid)
		})
	}
}

// TestHolderPoolReplacesUnusedProcess: a process that dies before it was
// sent anything held nothing; the first request gets a fresh one.
func TestHolderPoolReplacesUnusedProcess(t *testing.T) {
	t.Parallel()
	exe := testProvider(t, "python/provider.py", "python3")
	for check, noExitFile := range exitChecks {
		t.Run(check, func(t *testing.T) {
			t.Parallel()
			pool := NewHolderPool(Config{Name: "py", Executable: exe, noExitFile: noExitFile})
			defer pool.Close()
			pool.Prestart(t.Context())
			var pid int
			for pid == 0 {
				pool.mu.Lock()
				if len(pool.idle) == 1 {
					pid = pool.idle[0].Pid()
					needExitFile(t, noExitFile, pool.idle[0])
				}
				pool.mu.Unlock()
				time.Sleep(5 * time.Millisecond)
			}
			if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			for len(proctest.LiveInGroup(pid)) > 0 {
				time.Sleep(5 * time.Millisecond)
			}
			out, err := pool.Create(t.Context(), "a", &schema.CreateResourceRequest{Type: "greeting", InputProperties: schema.Properties{"name": "x"}})
			if err != nil {
				t.Fatalf("first request after the unused process died: %v", err)
			}
			if got := outputPID(t, out.OutputProperties); got == pid || pool.Started() != 2 {
				t.Errorf("served by pid %d (the dead one %d), Started() = %d; want a new process", got, pid, pool.Started())
			}
			select {
			case <-pool.Lost():
				t.Error("the pool is lost, though its dead process was never sent a request")
			default:
			}
		})
	}
}

// TestHolderPoolCloseIsNotLoss: closing the pool ends its process without
// marking it lost.
func TestHolderPoolCloseIsNotLoss(t *testing.T) {
	t.Parallel()
	exe := testProvider(t, "python/provider.py", "python3")
	pool := NewHolderPool(Config{Name: "py", Executable: exe})
	if _, err := pool.Create(t.Context(), "a", &schema.CreateResourceRequest{Type: "greeting", InputProperties: schema.Properties{"name": "x"}}); err != nil {
		t.Fatal(err)
	}
	if err := pool.Close(); err != nil {
		t.Fatal(err)
	}
	if err := pool.LostErr(); err != nil {
		t.Errorf("LostErr() after Close = %v, want nil", err)
	}
}

// exitChecks are the two ways a process learns whether it has exited:
// a pidfd polled with its pipes, and waitid where the kernel has no
// pidfd; each names Config.noExitFile.
var exitChecks = map[string]bool{"pidfd": false, "waitid": true}

// needExitFile skips a test of the pidfd path where the kernel has none.
func needExitFile(t *testing.T, noExitFile bool, p *Process) {
	t.Helper()
	if !noExitFile && p.exitFile == nil {
		testneed.Missing(t, "pidfd_open", "the pidfd path needs Linux 5.3 or later")
	}
}

// TestPoolExitChecksPerRequest: a request asks the kernel once whether
// the process it is given has exited (see Process.preflight), also in a
// holder pool, whose check against a lost process asks only what pier
// knows. With a pidfd the question rides on the poll of stdout that a
// request makes anyway, so it costs no system call and the first request
// asks too; with waitid it is a system call of its own, and the first
// request, which started the process, asks nothing.
func TestPoolExitChecksPerRequest(t *testing.T) {
	t.Parallel()
	exe := testProvider(t, "python/provider.py", "python3")
	pools := map[string]func(Config) *Pool{
		"pool":   func(cfg Config) *Pool { return NewPool(cfg, 1) },
		"holder": NewHolderPool,
	}
	for name, newPool := range pools {
		for check, noExitFile := range exitChecks {
			t.Run(name+"/"+check, func(t *testing.T) {
				t.Parallel()
				pool := newPool(Config{Name: "py", Executable: exe, noExitFile: noExitFile})
				defer pool.Close()
				greet := &schema.CreateResourceRequest{Type: "greeting", InputProperties: schema.Properties{"name": "x"}}
				const requests = 3
				var first int
				for i := range requests {
					out, err := pool.Create(t.Context(), "a", greet)
					if err != nil {
						t.Fatal(err)
					}
					if pid := outputPID(t, out.OutputProperties); i == 0 {
						first = pid
					} else if pid != first {
						t.Fatalf("request %d served by pid %d, the first by %d: want one process", i, pid, first)
					}
				}
				pool.mu.Lock()
				p := pool.idle[0]
				pool.mu.Unlock()
				needExitFile(t, noExitFile, p)
				want := int64(requests)
				if noExitFile {
					want = requests - 1
				}
				if got := p.exitChecks.Load(); got != want {
					t.Errorf("%d exit checks for %d requests to a running process, want %d", got, requests, want)
				}
			})
		}
	}
}

// TestHolderLostErrDuringRequest: LostErr answers while the held process
// serves a request, without waiting for it: the apply's scheduler asks it
// before every grant of a first request.
func TestHolderLostErrDuringRequest(t *testing.T) {
	t.Parallel()
	exe := testProvider(t, "python/provider.py", "python3")
	pool := NewHolderPool(Config{Name: "py", Executable: exe})
	defer pool.Close()
	greet := &schema.CreateResourceRequest{Type: "greeting", InputProperties: schema.Properties{"name": "x"}}
	if _, err := pool.Create(t.Context(), "a", greet); err != nil {
		t.Fatal(err)
	}
	// The slow request sleeps until cancelled: it ends only when this test
	// has checked.
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := pool.Create(ctx, "slow", &schema.CreateResourceRequest{Type: "greeting", InputProperties: schema.Properties{"name": "x", "delay": 3600}})
		done <- err
	}()
	pool.mu.Lock()
	held := pool.held
	pool.mu.Unlock()
	for held.mu.TryLock() { // until the slow request holds the process
		held.mu.Unlock()
		time.Sleep(5 * time.Millisecond)
	}
	lostErr := make(chan *LostError, 1)
	go func() { lostErr <- pool.LostErr() }()
	select {
	case err := <-lostErr:
		if err != nil {
			t.Errorf("LostErr() during a request = %v, want nil", err)
		}
	case <-time.After(lostBound):
		cancel()
		t.Fatalf("LostErr() did not answer within %s while a request was in flight", lostBound)
	}
	select {
	case err := <-done:
		t.Fatalf("the slow request ended before the test cancelled it: %v", err)
	default:
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled request: %v, want one wrapping context.Canceled", err)
	}
}
