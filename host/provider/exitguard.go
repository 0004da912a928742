package provider

import (
	"sync"
	"time"

	"github.com/pierhq/pier/host/internal/proc"
)

// exitGuard guards a process's requests against a process that exits
// while a descendant that left its process group (setsid) keeps its stdin
// or stdout open: then no end of file or broken pipe ends the request, and
// it would run to its timeout. Once the process has exited, the guard
// gives a request's last output exitWait to arrive and then ends the
// request's pipe I/O.
//
// One goroutine per process waits for the exit, for the process's whole
// life; a request only marks itself in flight, under a lock nobody else
// holds while the process runs. (A goroutine started and stopped for
// every request was a few percent of the command's CPU.)
type exitGuard struct {
	proc *proc.Process

	mu       sync.Mutex
	exited   bool        // the process has exited
	inFlight bool        // a request's I/O is under way
	request  uint64      // counts requests: a timer ends only its own
	timer    *time.Timer // ends the request's I/O exitWait after the exit
	ended    bool        // the timer ended the request's I/O
}

func newExitGuard(p *proc.Process) *exitGuard {
	g := &exitGuard{proc: p}
	go func() {
		<-p.Exited()
		g.mu.Lock()
		defer g.mu.Unlock()
		g.exited = true
		if g.inFlight {
			g.arm()
		}
	}()
	return g
}

// watch marks a request's I/O in flight. The caller holds the process's
// mu, so one request at a time is watched, and calls unwatch when its I/O
// is done.
func (g *exitGuard) watch() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.inFlight, g.ended = true, false
	g.request++
	if g.exited {
		g.arm()
	}
}

// arm starts the timer that ends the request's I/O. The caller holds mu.
func (g *exitGuard) arm() {
	req := g.request
	g.timer = time.AfterFunc(exitWait, func() {
		g.mu.Lock()
		defer g.mu.Unlock()
		if !g.inFlight || g.request != req {
			return // that request finished in time
		}
		g.ended = true
		past := time.Unix(1, 0)
		_ = g.proc.Stdout().SetReadDeadline(past)
		_ = g.proc.Stdin().SetWriteDeadline(past)
	})
}

// unwatch ends the watch of the request's I/O and reports whether the
// guard ended it. Once it returns, the guard does not touch the pipes for
// this request.
func (g *exitGuard) unwatch() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.inFlight = false
	if g.timer != nil {
		g.timer.Stop()
		g.timer = nil
	}
	return g.ended
}
