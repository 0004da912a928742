// Package workers runs functions at once on goroutines that outlive them.
//
// Each operation of an apply ran on a goroutine of its own, which starts
// with a small stack; the operation's calls (building and encoding a
// request, decoding the answer) grow it, and every growth copies the
// stack: 7-10% of the command's CPU on a fresh apply. A goroutine of a
// [Pool] keeps the stack the functions it ran grew, so later ones find it
// grown.
package workers

import (
	"sync"
	"sync/atomic"
)

// Pool starts functions the way the go statement does: Go never waits
// and never queues. A function goes to an idle goroutine of the pool
// when there is one, and to a new goroutine, which joins the pool, when
// there is none; so the pool holds as many goroutines as functions ever
// ran at once.
type Pool struct {
	work chan func()
	stop chan struct{}
}

// New makes an empty pool.
func New() *Pool {
	return &Pool{work: make(chan func()), stop: make(chan struct{})}
}

// Go runs f on a goroutine of the pool.
func (p *Pool) Go(f func()) {
	select {
	case p.work <- f: // an idle goroutine took it
	default:
		go p.worker(f)
	}
}

func (p *Pool) worker(f func()) {
	for {
		f()
		f = nil // nothing of the last function stays reachable while idle
		select {
		case f = <-p.work:
		case <-p.stop:
			return
		}
	}
}

// Close lets the pool's goroutines end: the idle ones at once, a busy one
// when its function returns. It does not wait for them. A function given
// to Go after Close still runs, on a goroutine that then ends.
func (p *Pool) Close() { close(p.stop) }

// Each calls f(i) for every i from 0 to n-1, on at most limit goroutines
// at once (n when limit < 1), and returns when every call has returned.
// The calls start in order of i: each goroutine takes the next i when its
// call returns, as an errgroup.Group with a limit starts them, but the
// limit goroutines serve all n calls, keeping their stacks.
func Each(n, limit int, f func(i int)) {
	if limit < 1 || limit > n {
		limit = n
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range limit {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				f(i)
			}
		})
	}
	wg.Wait()
}
