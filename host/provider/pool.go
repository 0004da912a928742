package provider

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/pierhq/pier/schema"
	"github.com/pierhq/pier/schema/logkey"
)

// Pool runs up to size processes of one provider, started lazily on first
// use (an unchanged deployment starts no provider), each serving one
// request at a time. A process that fails with an [*Error] is dropped and
// the next request starts a fresh one. Its methods are safe for concurrent
// use.
//
// The pool remembers which process last served each resource and gives a
// resource's next request to that process when it is idle: a bridge that
// previewed a change keeps what the preview learned (the Terraform bridge
// keeps the provider's plan), so the create or update that follows costs
// the provider less there. See [Pool.FirstWarm].
type Pool struct {
	cfg  Config
	sem  chan struct{} // one token per request in flight, at most size
	mu   sync.Mutex    // guards the fields below
	idle []*Process
	// served maps a resource to the process that last served it; it is
	// emptied when it reaches maxServed, since a preview and its apply come
	// close together.
	served map[string]*Process
	// started counts processes started over the pool's life.
	started int
	closed  bool
	busy    sync.WaitGroup // requests in flight, for Close

	// holder marks a pool of one process that holds something for its
	// life (a state handler's lock): see [NewHolderPool]. held is that
	// process once started; lost is closed, and lostErr set, once it has
	// exited after it was sent a request.
	holder  bool
	held    *Process
	lost    chan struct{}
	lostErr *LostError
	// closing is closed by Close, to stop the watcher of the held
	// process, which watch waits for.
	closing chan struct{}
	watch   sync.WaitGroup
}

// NewPool returns a pool of at most size processes (size < 1 means 1). No
// process starts until the first request.
func NewPool(cfg Config, size int) *Pool {
	size = max(size, 1)
	return &Pool{cfg: cfg.withDefaults(), sem: make(chan struct{}, size), closing: make(chan struct{})}
}

// NewHolderPool returns a pool of one process that holds something for
// its whole life, as a state handler holds its state's lock (state_file
// its flock, pg_state its session's advisory lock). Once that process
// has been sent a request it is never replaced: had a second process
// taken the lock again, another command could have changed the state in
// between, unseen by the caller. When it exits other than by Close, the
// pool is lost: [Pool.Lost] is closed and every later request fails
// with a [*LostError]. A process that exits before its first request
// held nothing yet, and is replaced as in any pool.
func NewHolderPool(cfg Config) *Pool {
	pl := NewPool(cfg, 1)
	pl.holder = true
	pl.lost = make(chan struct{})
	return pl
}

// Lost is closed once a holder pool's process has exited after serving
// (see [NewHolderPool]); it is nil, so never ready, for any other pool.
func (pl *Pool) Lost() <-chan struct{} { return pl.lost }

// LostErr returns why a holder pool is lost, or nil. It asks the kernel
// whether the held process has exited, so it is exact even before the
// watcher behind Lost has noticed.
func (pl *Pool) LostErr() *LostError {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	if pl.holder && !pl.closed { // closing ends the process: not a loss
		_ = pl.checkHeld(true)
	}
	return pl.lostErr
}

// Size returns the pool's size: how many requests it serves at once.
func (pl *Pool) Size() int { return cap(pl.sem) }

// Started returns how many processes the pool has started so far,
// including ones that failed and were replaced.
func (pl *Pool) Started() int {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	return pl.started
}

// Call sends req on an idle process, starting one if fewer than size are
// running; see [Process.Call]. It waits for a free process while all are
// busy, or until ctx ends.
func (pl *Pool) Call(ctx context.Context, resource string, req *schema.Request) (*schema.Response, error) {
	return pl.call(ctx, resource, req, nil, nil)
}

// Reservation is one of a pool's request slots, taken without waiting by
// a scheduler that must not block on a provider whose processes are all
// busy (the engine's). It serves one request; an unused one is released.
type Reservation struct {
	pl *Pool
	// proc is the idle process that last served the reserved resource,
	// set aside for it so that no other request takes it meanwhile; nil
	// when it was busy, gone, or there was none.
	proc *Process
	// once hands the slot on: to the first Call, or back by Release.
	once sync.Once
}

// TryReserve takes a free request slot for a request about resource, or
// reports that none is free. When the process that last served resource
// is idle, the slot comes with it (see [Pool.FirstWarm]).
func (pl *Pool) TryReserve(resource string) (*Reservation, bool) {
	select {
	case pl.sem <- struct{}{}:
	default:
		return nil, false
	}
	rv := &Reservation{pl: pl}
	pl.mu.Lock()
	if p := pl.served[resource]; pl.takeIdle(p) {
		rv.proc = p
	}
	pl.mu.Unlock()
	return rv, true
}

// Call sends req in the reserved slot, as [Pool.Call] does, and gives the
// slot back. A second Call waits for a slot as Pool.Call does.
func (rv *Reservation) Call(ctx context.Context, resource string, req *schema.Request) (*schema.Response, error) {
	held := false
	rv.once.Do(func() { held = true })
	if !held {
		return rv.pl.Call(ctx, resource, req)
	}
	return rv.pl.call(ctx, resource, req, nil, rv)
}

// Release gives back a slot that no request used, and the process set
// aside with it; after Call it does nothing.
func (rv *Reservation) Release() {
	rv.once.Do(func() {
		if rv.proc != nil {
			rv.pl.mu.Lock()
			rv.pl.idle = append(rv.pl.idle, rv.proc)
			rv.pl.mu.Unlock()
		}
		<-rv.pl.sem
	})
}

// CallSized is [Pool.Call] that also returns the length in bytes of the
// response line: a state read's is the size of the state as stored, which
// the engine keeps within [schema.MaxStateSize].
func (pl *Pool) CallSized(ctx context.Context, resource string, req *schema.Request) (*schema.Response, int, error) {
	var n int
	resp, err := pl.call(ctx, resource, req, &n, nil)
	return resp, n, err
}

// call sends one request; rv, when set, is the caller's reservation,
// whose slot (and process, if it set one aside) call uses and gives back.
func (pl *Pool) call(ctx context.Context, resource string, req *schema.Request, size *int, rv *Reservation) (*schema.Response, error) {
	if rv != nil {
		defer func() { <-pl.sem }()
	}
	r, err := prepare(pl.cfg, resource, req)
	if err != nil {
		if rv != nil && rv.proc != nil {
			pl.give(rv.proc, "")
		}
		return nil, err
	}
	defer r.release()
	r.size = size
	// who names the request in errors; only a failure pays for it.
	who := func() string { return subject(pl.cfg.Name, pl.cfg.Executable, r.kind, r.resourceType, resource) }
	pl.mu.Lock()
	if pl.closed {
		pl.mu.Unlock()
		if rv != nil && rv.proc != nil {
			rv.proc.Close() // Close did not see it: it was set aside
		}
		return nil, fmt.Errorf("%s: %w", who(), ErrClosed)
	}
	pl.busy.Add(1)
	pl.mu.Unlock()
	defer pl.busy.Done()

	if rv == nil {
		select {
		case pl.sem <- struct{}{}:
		case <-ctx.Done():
			return nil, fmt.Errorf("%s: wait for a free provider process: %w", who(), context.Cause(ctx))
		}
		defer func() { <-pl.sem }()
	}

	var p *Process
	if rv != nil {
		p = rv.proc
	}
	for {
		// idle says p was idle before this request, so it may have
		// exited meanwhile; one just started for it is not replaced when
		// it exits at once, but fails the request, as a process that
		// exits while it serves one does.
		idle := p != nil
		if p == nil {
			if p, idle, err = pl.take(ctx, resource); err != nil {
				return nil, fmt.Errorf("%s: %w", who(), err)
			}
		}
		// The request's poll before it is sent asks whether p has
		// exited: see Process.preflight.
		resp, err := p.call(ctx, r, idle)
		if errors.Is(err, errExitedIdle) {
			if err := pl.drop(p); err != nil {
				return nil, fmt.Errorf("%s: %w", who(), err)
			}
			p = nil
			continue
		}
		pl.give(p, resource)
		return resp, err
	}
}

// drop reaps p, a process that was found to have exited while idle
// (killed from outside, or one that exits after each request), before a
// request was sent to it. A holder pool whose process had served is lost,
// and drop returns the [*LostError]; any other pool starts or takes
// another process for the request.
func (pl *Pool) drop(p *Process) error {
	err := p.Close() // reaps it, so that the error can say how it ended
	if pl.holder && p.wasSent() {
		pl.mu.Lock()
		defer pl.mu.Unlock()
		pl.loseHeld(p)
		return pl.lostErr
	}
	pl.cfg.Logger.Warn("provider process exited while idle; it is replaced",
		logkey.Provider, pl.cfg.Name, logkey.Pid, p.Pid(), logkey.ExitStatus, p.proc.ExitStatus(), logkey.Error, err)
	return nil
}

// Prestart starts a process in the background when the pool has started
// none and no request holds a slot, so that the first request finds it
// running. A failed start is not reported: the first request starts the
// process again and reports why it cannot.
func (pl *Pool) Prestart(ctx context.Context) {
	pl.mu.Lock()
	idle := pl.closed || pl.started > 0
	pl.mu.Unlock()
	if idle {
		return
	}
	select {
	case pl.sem <- struct{}{}:
	default:
		return // a request is starting one
	}
	go func() {
		defer func() { <-pl.sem }()
		pl.mu.Lock()
		if pl.closed || pl.started > 0 {
			pl.mu.Unlock()
			return
		}
		pl.busy.Add(1) // Close waits for the start
		pl.mu.Unlock()
		defer pl.busy.Done()
		if p, _, err := pl.take(ctx, ""); err == nil {
			pl.give(p, "")
		}
	}()
}

// Adopt gives the pool processes started for it before it existed, with
// its configuration (a Terraform provider's bridges, started while the
// provider they attach to starts), as idle processes it started itself.
// Those that would take it past its size, or that a closed or holder
// pool cannot take, are discarded (see [Process.Discard]).
func (pl *Pool) Adopt(ps []*Process) {
	var extra []*Process
	pl.mu.Lock()
	for _, p := range ps {
		if pl.closed || pl.holder || pl.started >= cap(pl.sem) {
			extra = append(extra, p)
			continue
		}
		pl.started++
		pl.idle = append(pl.idle, p)
	}
	pl.mu.Unlock()
	for _, p := range extra {
		p.Discard()
	}
}

// maxServed bounds the resources a pool remembers the process of.
const maxServed = 1 << 16

// FirstWarm returns the first i < n for which the process that last
// served resource(i) is idle, so that a request for it now would go to
// that process, or -1. A scheduler with several runnable requests for one
// provider prefers those whose process is warm.
func (pl *Pool) FirstWarm(n int, resource func(i int) string) int {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	if len(pl.idle) == 0 || len(pl.served) == 0 {
		return -1
	}
	for i := range n {
		if p := pl.served[resource(i)]; p != nil && slices.Contains(pl.idle, p) {
			return i
		}
	}
	return -1
}

// takeIdle removes p from the idle processes and reports whether it was
// among them. The caller holds mu.
func (pl *Pool) takeIdle(p *Process) bool {
	i := slices.Index(pl.idle, p)
	if p == nil || i < 0 {
		return false
	}
	pl.idle = slices.Delete(pl.idle, i, i+1)
	return true
}

// take returns an idle process, the one that last served resource if it
// is idle, or starts one; idle says it was idle rather than started. The
// caller holds a token, so the number of processes never exceeds the pool
// size.
func (pl *Pool) take(ctx context.Context, resource string) (*Process, bool, error) {
	pl.mu.Lock()
	if pl.holder {
		// The kernel is asked by the request's own poll (see
		// Process.preflight): here only what pier already knows.
		if err := pl.checkHeld(false); err != nil {
			pl.mu.Unlock()
			return nil, false, err
		}
	}
	// One that has exited is found by the request, which drops it.
	if p := pl.served[resource]; pl.takeIdle(p) {
		pl.mu.Unlock()
		return p, true, nil
	}
	if n := len(pl.idle); n > 0 {
		p := pl.idle[n-1]
		pl.idle = pl.idle[:n-1]
		pl.mu.Unlock()
		return p, true, nil
	}
	pl.started++
	pl.mu.Unlock()
	p, err := Start(ctx, pl.cfg)
	pl.mu.Lock()
	defer pl.mu.Unlock()
	if err != nil {
		pl.started-- // it never ran
		return nil, false, err
	}
	if pl.holder {
		pl.held = p
		pl.watch.Go(func() { pl.watchHeld(p) })
	}
	return p, false, nil
}

// checkHeld refuses a request to a holder pool whose process is gone
// after it was sent a request. A held process that never was may be
// replaced: it held nothing. askKernel says whether to ask the kernel if
// the process has exited (a system call), or only what pier knows: that
// it failed, was closed, or that the watcher saw it exit. The caller
// holds mu.
func (pl *Pool) checkHeld(askKernel bool) error {
	if pl.lostErr != nil {
		return pl.lostErr
	}
	p := pl.held
	if p == nil || !p.wasSent() {
		return nil
	}
	gone := !p.usable()
	if !gone {
		select {
		case <-p.proc.Exited():
			gone = true
		default:
			gone = askKernel && p.exited()
		}
	}
	if gone {
		pl.loseHeld(p)
		return pl.lostErr
	}
	return nil
}

// loseHeld marks a holder pool lost because p, its process, is gone. The
// caller holds mu.
func (pl *Pool) loseHeld(p *Process) {
	if pl.lostErr != nil {
		return
	}
	pl.lostErr = &LostError{Provider: pl.cfg.Name, Executable: pl.cfg.Executable, Pid: p.Pid(), p: p}
	pl.cfg.Logger.Error("state-holding provider process exited; it is not replaced, and what it held (its state's lock) is gone",
		logkey.Provider, pl.cfg.Name, logkey.Pid, p.Pid())
	close(pl.lost)
}

// watchHeld marks a holder pool lost as soon as its process exits, not
// only at the next request, so that the caller can stop starting work
// that it could no longer record under the lock. An idle process is
// reaped here; a busy one by its failing request.
func (pl *Pool) watchHeld(p *Process) {
	select {
	case <-p.proc.Exited():
	case <-pl.closing:
		return
	}
	pl.mu.Lock()
	if pl.closed || !p.wasSent() {
		pl.mu.Unlock()
		return
	}
	idle := pl.takeIdle(p)
	pl.mu.Unlock()
	if idle {
		_ = p.Close() // reaps it, so that the error can say how it ended
	}
	pl.mu.Lock()
	pl.loseHeld(p)
	pl.mu.Unlock()
}

// give returns a process after a request for resource (none: "") and
// remembers that it served it: a failed one is dropped (it was killed and
// reaped when it failed).
func (pl *Pool) give(p *Process, resource string) {
	if !p.usable() {
		return
	}
	pl.mu.Lock()
	pl.idle = append(pl.idle, p)
	if resource != "" {
		if pl.served == nil || len(pl.served) >= maxServed {
			pl.served = map[string]*Process{}
		}
		pl.served[resource] = p
	}
	pl.mu.Unlock()
}

// Close refuses new requests, waits for those in flight, and closes every
// process (see [Process.Close]). It returns the processes' shutdown
// errors, joined.
func (pl *Pool) Close() error {
	pl.mu.Lock()
	if !pl.closed {
		close(pl.closing)
	}
	pl.closed = true
	pl.mu.Unlock()
	pl.busy.Wait()
	pl.mu.Lock()
	idle := pl.idle
	pl.idle = nil
	pl.mu.Unlock()
	errs := make([]error, len(idle))
	var wg sync.WaitGroup
	for i, p := range idle {
		wg.Go(func() { errs[i] = p.Close() })
	}
	wg.Wait()
	pl.watch.Wait()
	return errors.Join(errs...)
}
