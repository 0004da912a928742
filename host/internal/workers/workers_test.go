package workers

import (
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestPoolStartsAtOnce: Go never waits, however many functions are
// running, so functions that wait for each other all run.
func TestPoolStartsAtOnce(t *testing.T) {
	t.Parallel()
	p := New()
	defer p.Close()
	const n = 50
	var started, release sync.WaitGroup
	started.Add(n)
	release.Add(1)
	done := make(chan int, n)
	for i := range n {
		p.Go(func() {
			started.Done()
			release.Wait() // every function blocks until all have started
			done <- i
		})
	}
	started.Wait()
	release.Done()
	seen := map[int]bool{}
	for range n {
		seen[<-done] = true
	}
	if len(seen) != n {
		t.Fatalf("%d distinct functions ran, want %d", len(seen), n)
	}
}

// TestPoolReuses: one function at a time runs on one goroutine, whose
// stack stays grown.
// Not parallel: waitIdle counts the idle goroutines of every pool.
func TestPoolReuses(t *testing.T) {
	p := New()
	defer p.Close()
	ids := map[*int]bool{}
	for range 20 {
		got := make(chan *int)
		p.Go(func() { got <- goroutineMarker() })
		ids[<-got] = true
		// The worker is idle once it is parked waiting for work: wait for
		// that rather than assume it.
		waitIdle(t, 1)
	}
	if len(ids) != 1 {
		t.Errorf("20 sequential functions ran on %d goroutines, want 1", len(ids))
	}
}

// TestCloseEndsIdle: after Close, the idle goroutines end.
func TestCloseEndsIdle(t *testing.T) {
	before := runtime.NumGoroutine()
	p := New()
	var wg sync.WaitGroup
	for range 5 {
		wg.Add(1)
		p.Go(func() { wg.Done() })
	}
	wg.Wait()
	p.Close()
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines after Close, %d before the pool", runtime.NumGoroutine(), before)
		}
		time.Sleep(time.Millisecond)
	}
	ran := make(chan bool)
	p.Go(func() { ran <- true })
	if !<-ran {
		t.Fatal("a function given after Close did not run")
	}
}

// markers hands each goroutine of the test one pointer, found again by
// its goroutine's stack identity: a goroutine-local value.
var (
	markersMu sync.Mutex
	markers   = map[uint64]*int{}
)

func goroutineMarker() *int {
	id := goid()
	markersMu.Lock()
	defer markersMu.Unlock()
	if markers[id] == nil {
		markers[id] = new(int)
	}
	return markers[id]
}

// goid parses the goroutine's id from its stack trace header.
func goid() uint64 {
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	var id uint64
	for _, c := range buf[len("goroutine "):] {
		if c < '0' || c > '9' {
			break
		}
		id = id*10 + uint64(c-'0')
	}
	return id
}

// waitIdle waits until n goroutines of a pool are parked waiting for
// work, as their stacks say.
func waitIdle(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	buf := make([]byte, 1<<20)
	for {
		idle := 0
		for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
			if strings.Contains(g, " [select") && strings.Contains(g, "workers.(*Pool).worker") {
				idle++
			}
		}
		if idle >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines of the pool idle, want %d", idle, n)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestEach: every index is called once, never more than limit at once,
// and the calls start in order.
func TestEach(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ n, limit, most int }{
		{0, 4, 0}, {1, 4, 1}, {10, 1, 1}, {100, 4, 4}, {7, 0, 7}, {3, 10, 3},
	} {
		var mu sync.Mutex
		running, most := 0, 0
		var order []int
		calls := make([]int, tc.n)
		Each(tc.n, tc.limit, func(i int) {
			mu.Lock()
			order = append(order, i)
			calls[i]++
			running++
			most = max(most, running)
			mu.Unlock()
			time.Sleep(100 * time.Microsecond) // let the others start
			mu.Lock()
			running--
			mu.Unlock()
		})
		for i, c := range calls {
			if c != 1 {
				t.Errorf("n=%d limit=%d: f(%d) called %d times", tc.n, tc.limit, i, c)
			}
		}
		if most > tc.most {
			t.Errorf("n=%d limit=%d: %d calls at once, want at most %d", tc.n, tc.limit, most, tc.most)
		}
		for i := range order {
			// Starts are in order of i, up to the ones taken at once.
			if d := order[i] - i; d < -tc.most || d > tc.most {
				t.Errorf("n=%d limit=%d: call %d started %dth", tc.n, tc.limit, order[i], i)
				break
			}
		}
	}
}
