package provider

import (
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/pierhq/pier/host/internal/proc/proctest"
	"github.com/pierhq/pier/schema"
)

func TestPoolLazy(t *testing.T) {
	t.Parallel()
	pool := NewPool(Config{Name: "never", Executable: "/nonexistent/provider"}, 4)
	if err := pool.Close(); err != nil {
		t.Errorf("Close() = %v", err)
	}
	if pool.Started() != 0 {
		t.Errorf("Started() = %d, want 0 for an unused pool", pool.Started())
	}
	_, err := pool.Create(t.Context(), "x", &schema.CreateResourceRequest{Type: "t", InputProperties: schema.Properties{}})
	if !errors.Is(err, ErrClosed) {
		t.Errorf("Create after Close = %v, want ErrClosed", err)
	}
}

// TestPoolParallel sends more slow requests than the pool has processes:
// exactly size processes start, and all requests are answered.
func TestPoolParallel(t *testing.T) {
	t.Parallel()
	exe := testProvider(t, "python/provider.py", "python3")
	const size, requests = 3, 9
	pool := NewPool(Config{Name: "py", Executable: exe}, size)
	var (
		mu   sync.Mutex
		pids = map[int]int{}
		wg   sync.WaitGroup
	)
	for range requests {
		wg.Go(func() {
			out, err := pool.Create(t.Context(), "web.greet", &schema.CreateResourceRequest{
				Type: "greeting", InputProperties: schema.Properties{"name": "x", "delay": 0.3},
			})
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			pids[outputPID(t, out.OutputProperties)]++
			mu.Unlock()
		})
	}
	wg.Wait()
	if got := pool.Started(); got != size {
		t.Errorf("Started() = %d, want %d", got, size)
	}
	if len(pids) != size {
		t.Errorf("requests were served by %d processes (%v), want %d", len(pids), pids, size)
	}
	if err := pool.Close(); err != nil {
		t.Errorf("Close() = %v", err)
	}
	for pid := range pids {
		proctest.AssertGroupGone(t, int(pid))
	}
}

// TestPoolReplacesFailedProcess: a process that crashes is dropped and the
// next request gets a fresh one.
func TestPoolReplacesFailedProcess(t *testing.T) {
	t.Parallel()
	exe := testProvider(t, "python/provider.py", "python3")
	pool := NewPool(Config{Name: "py", Executable: exe}, 1)
	defer pool.Close()
	greet := &schema.CreateResourceRequest{Type: "greeting", InputProperties: schema.Properties{"name": "x"}}
	first, err := pool.Create(t.Context(), "a", greet)
	if err != nil {
		t.Fatal(err)
	}
	_, err = pool.Create(t.Context(), "b", &schema.CreateResourceRequest{Type: "crash", InputProperties: schema.Properties{}})
	var pe *Error
	if !errors.As(err, &pe) || pe.Kind != KindExited || pe.ExitStatus != "exit status 4" || !containsLine(pe.Stderr, "python-provider: crashing on purpose") {
		t.Fatalf("crash: error = %v, want KindExited with exit status 4 and the stderr line", err)
	}
	proctest.AssertGroupGone(t, outputPID(t, first.OutputProperties))
	second, err := pool.Create(t.Context(), "c", greet)
	if err != nil {
		t.Fatalf("request after a crash: %v", err)
	}
	if first.OutputProperties["pid"] == second.OutputProperties["pid"] {
		t.Errorf("request after the crash went to the same pid %v", first.OutputProperties["pid"])
	}
	if got := pool.Started(); got != 2 {
		t.Errorf("Started() = %d, want 2", got)
	}
}

// TestPoolReplacesDeadIdleProcess: a process that died while idle is not
// given the next request, whether the request's poll learns it from a
// pidfd or from waitid.
func TestPoolReplacesDeadIdleProcess(t *testing.T) {
	t.Parallel()
	exe := testProvider(t, "python/provider.py", "python3")
	for check, noExitFile := range exitChecks {
		t.Run(check, func(t *testing.T) {
			t.Parallel()
			pool := NewPool(Config{Name: "py", Executable: exe, noExitFile: noExitFile}, 1)
			defer pool.Close()
			greet := &schema.CreateResourceRequest{Type: "greeting", InputProperties: schema.Properties{"name": "x"}}
			first, err := pool.Create(t.Context(), "a", greet)
			if err != nil {
				t.Fatal(err)
			}
			pool.mu.Lock()
			needExitFile(t, noExitFile, pool.idle[0])
			pool.mu.Unlock()
			pid := outputPID(t, first.OutputProperties)
			if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			for len(proctest.LiveInGroup(pid)) > 0 {
				time.Sleep(5 * time.Millisecond)
			}
			second, err := pool.Create(t.Context(), "b", greet)
			if err != nil {
				t.Fatalf("request after the idle process died: %v", err)
			}
			if second.OutputProperties["pid"] == first.OutputProperties["pid"] || pool.Started() != 2 {
				t.Errorf("second request served by pid %v (first %v), Started() = %d; want a new process", second.OutputProperties["pid"], pid, pool.Started())
			}
		})
	}
}

func TestPoolStartError(t *testing.T) {
	t.Parallel()
	pool := NewPool(Config{Name: "missing", Executable: "/nonexistent/provider"}, 1)
	defer pool.Close()
	_, err := pool.Create(t.Context(), "web.db", &schema.CreateResourceRequest{Type: "t", InputProperties: schema.Properties{}})
	if err == nil {
		t.Fatal("Create with a missing executable succeeded")
	}
	if got := pool.Started(); got != 0 {
		t.Errorf("Started() = %d after a failed start, want 0", got)
	}
	for _, want := range []string{`provider "missing"`, "/nonexistent/provider", "web.db"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

// outputPID reads the pid output of the test provider, a JSON number kept
// exact (json.Number).
func outputPID(t testing.TB, out schema.Properties) int {
	t.Helper()
	n, ok := out["pid"].(json.Number)
	if !ok {
		t.Fatalf("pid output %#v is not a json.Number", out["pid"])
	}
	pid, err := n.Int64()
	if err != nil {
		t.Fatal(err)
	}
	return int(pid)
}

// TestPoolReserve: TryReserve takes the pool's request slots without
// waiting, each reservation serves one request, and what a reservation
// did not use is given back.
func TestPoolReserve(t *testing.T) {
	t.Parallel()
	exe := testProvider(t, "python/provider.py", "python3")
	pool := NewPool(Config{Name: "py", Executable: exe}, 2)
	defer pool.Close()
	a, ok := pool.TryReserve("web.greet")
	if !ok {
		t.Fatal("first reservation refused")
	}
	b, ok := pool.TryReserve("web.greet")
	if !ok {
		t.Fatal("second reservation refused")
	}
	if _, ok := pool.TryReserve("web.greet"); ok {
		t.Fatal("a third reservation of a pool of 2 was granted")
	}
	req := &schema.Request{CreateResourceRequest: &schema.CreateResourceRequest{Type: "greeting", InputProperties: schema.Properties{"name": "x"}}}
	if _, err := a.Call(t.Context(), "web.greet", req); err != nil {
		t.Fatal(err)
	}
	a.Release() // used: nothing to give back
	c, ok := pool.TryReserve("web.greet")
	if !ok {
		t.Fatal("the slot of a reservation that served its request was not given back")
	}
	b.Release()
	c.Release()
	for range 2 {
		if _, ok := pool.TryReserve("web.greet"); !ok {
			t.Fatal("released slots were not given back")
		}
	}
}

// TestPoolWarm: a resource's next request goes to the process that last
// served it whenever that one is idle, whether it comes through Call or a
// reservation, so that what a process learned about it (a bridge's plan)
// is there to use.
func TestPoolWarm(t *testing.T) {
	t.Parallel()
	exe := testProvider(t, "python/provider.py", "python3")
	pool := NewPool(Config{Name: "py", Executable: exe}, 2)
	defer pool.Close()
	greet := func(rv *Reservation, addr string) int {
		t.Helper()
		req := &schema.Request{CreateResourceRequest: &schema.CreateResourceRequest{
			Type: "greeting", InputProperties: schema.Properties{"name": addr},
		}}
		call := pool.Call
		if rv != nil {
			call = rv.Call
		}
		resp, err := call(t.Context(), addr, req)
		if err != nil {
			t.Fatal(err)
		}
		return outputPID(t, resp.CreateResourceResponse.OutputProperties)
	}
	// Start both processes, one having served a and the other b.
	pids := map[string]int{}
	var procs []*Process
	for _, addr := range []string{"a", "b"} {
		p, _, err := pool.take(t.Context(), addr)
		if err != nil {
			t.Fatal(err)
		}
		pids[addr] = p.Pid()
		procs = append(procs, p)
	}
	pool.give(procs[0], "a")
	pool.give(procs[1], "b")
	warm := func(addr string) bool { return pool.FirstWarm(1, func(int) string { return addr }) == 0 }
	for _, addr := range []string{"b", "a", "a", "b"} {
		if !warm(addr) {
			t.Errorf("%s is not warm with every process idle", addr)
		}
		rv, ok := pool.TryReserve(addr)
		if !ok {
			t.Fatal("reservation refused on an idle pool")
		}
		if got := greet(rv, addr); got != pids[addr] {
			t.Errorf("%s went to process %d, want %d, which served it last", addr, got, pids[addr])
		}
		if got := greet(nil, addr); got != pids[addr] {
			t.Errorf("%s (Call) went to process %d, want %d", addr, got, pids[addr])
		}
	}
	// A reservation sets its process aside: the other resource's process
	// is no longer warm for it, and a release gives it back.
	rv, _ := pool.TryReserve("a")
	if warm("a") {
		t.Error("a is warm while its process is reserved for it")
	}
	if got := pool.FirstWarm(3, func(i int) string { return []string{"x", "a", "b"}[i] }); got != 2 {
		t.Errorf("FirstWarm(x, a, b) = %d with a's process reserved, want 2 (b)", got)
	}
	rv.Release()
	if !warm("a") {
		t.Error("a is not warm after the reservation was released")
	}
	if warm("never-served") {
		t.Error("a resource no process served is warm")
	}
}

// TestPoolPrestart: Prestart starts one process ahead of the first
// request, which then uses it; it does nothing on a pool that started
// one, whose slot a request holds, or that is closed.
func TestPoolPrestart(t *testing.T) {
	t.Parallel()
	exe := testProvider(t, "python/provider.py", "python3")
	greet := &schema.CreateResourceRequest{Type: "greeting", InputProperties: schema.Properties{"name": "x"}}

	pool := NewPool(Config{Name: "py", Executable: exe}, 1)
	defer pool.Close()
	pool.Prestart(t.Context())
	pool.Prestart(t.Context()) // a second one finds the first under way
	out, err := pool.Create(t.Context(), "a", greet)
	if err != nil {
		t.Fatal(err)
	}
	if got := pool.Started(); got != 1 {
		t.Errorf("Started() = %d after Prestart and a request, want 1", got)
	}
	pool.Prestart(t.Context())
	again, err := pool.Create(t.Context(), "b", greet)
	if err != nil {
		t.Fatal(err)
	}
	if got := pool.Started(); got != 1 {
		t.Errorf("Started() = %d after a Prestart of a running pool, want 1", got)
	}
	if a, b := outputPID(t, out.OutputProperties), outputPID(t, again.OutputProperties); a != b {
		t.Errorf("requests ran in processes %d and %d, want one", a, b)
	}

	held := NewPool(Config{Name: "py", Executable: exe}, 1)
	rv, _ := held.TryReserve("a")
	held.Prestart(t.Context())
	rv.Release()
	if err := held.Close(); err != nil {
		t.Error(err)
	}
	if got := held.Started(); got != 0 {
		t.Errorf("Started() = %d after a Prestart while a request held the slot, want 0", got)
	}

	closed := NewPool(Config{Name: "py", Executable: exe}, 1)
	closed.Close()
	closed.Prestart(t.Context())
	if got := closed.Started(); got != 0 {
		t.Errorf("Started() = %d after a Prestart of a closed pool, want 0", got)
	}
}
