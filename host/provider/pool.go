package provider

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/pierhq/pier/schema"
)

// Pool runs up to size processes of one provider, started lazily on first
// use (an unchanged deployment starts no provider), each serving one
// request at a time. A process that fails with an [*Error] is dropped and
// the next request starts a fresh one. Its methods are safe for concurrent
// use.
type Pool struct {
	cfg  Config
	sem  chan struct{} // one token per request in flight, at most size
	mu   sync.Mutex    // guards the fields below
	idle []*Process
	// started counts processes started over the pool's life.
	started int
	closed  bool
	busy    sync.WaitGroup // requests in flight, for Close
}

// NewPool returns a pool of at most size processes (size < 1 means 1). No
// process starts until the first request.
func NewPool(cfg Config, size int) *Pool {
	size = max(size, 1)
	return &Pool{cfg: cfg.withDefaults(), sem: make(chan struct{}, size)}
}

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
	return pl.call(ctx, resource, req, nil, false)
}

// Reservation is one of a pool's request slots, taken without waiting by
// a scheduler that must not block on a provider whose processes are all
// busy (the engine's). It serves one request; an unused one is released.
type Reservation struct {
	pl *Pool
	// once hands the slot on: to the first Call, or back by Release.
	once sync.Once
}

// TryReserve takes a free request slot, or reports that none is free.
func (pl *Pool) TryReserve() (*Reservation, bool) {
	select {
	case pl.sem <- struct{}{}:
		return &Reservation{pl: pl}, true
	default:
		return nil, false
	}
}

// Call sends req in the reserved slot, as [Pool.Call] does, and gives the
// slot back. A second Call waits for a slot as Pool.Call does.
func (rv *Reservation) Call(ctx context.Context, resource string, req *schema.Request) (*schema.Response, error) {
	held := false
	rv.once.Do(func() { held = true })
	if !held {
		return rv.pl.Call(ctx, resource, req)
	}
	return rv.pl.call(ctx, resource, req, nil, true)
}

// Release gives back a slot that no request used; after Call it does
// nothing.
func (rv *Reservation) Release() {
	rv.once.Do(func() { <-rv.pl.sem })
}

// CallSized is [Pool.Call] that also returns the length in bytes of the
// response line: a state read's is the size of the state as stored, which
// the engine keeps within [schema.MaxStateSize].
func (pl *Pool) CallSized(ctx context.Context, resource string, req *schema.Request) (*schema.Response, int, error) {
	var n int
	resp, err := pl.call(ctx, resource, req, &n, false)
	return resp, n, err
}

// call sends one request; held means the caller already holds a slot,
// which call gives back.
func (pl *Pool) call(ctx context.Context, resource string, req *schema.Request, size *int, held bool) (*schema.Response, error) {
	if held {
		defer func() { <-pl.sem }()
	}
	r, err := prepare(pl.cfg, resource, req)
	if err != nil {
		return nil, err
	}
	r.size = size
	who := subject(pl.cfg.Name, pl.cfg.Executable, r.kind, r.resourceType, resource)
	pl.mu.Lock()
	if pl.closed {
		pl.mu.Unlock()
		return nil, fmt.Errorf("%s: %w", who, ErrClosed)
	}
	pl.busy.Add(1)
	pl.mu.Unlock()
	defer pl.busy.Done()

	if !held {
		select {
		case pl.sem <- struct{}{}:
		case <-ctx.Done():
			return nil, fmt.Errorf("%s: wait for a free provider process: %w", who, context.Cause(ctx))
		}
		defer func() { <-pl.sem }()
	}

	p, err := pl.take(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", who, err)
	}
	resp, err := p.call(ctx, r)
	pl.give(p)
	return resp, err
}

// take returns an idle process or starts one. The caller holds a token,
// so the number of processes never exceeds the pool size.
func (pl *Pool) take(ctx context.Context) (*Process, error) {
	pl.mu.Lock()
	for n := len(pl.idle); n > 0; n = len(pl.idle) {
		p := pl.idle[n-1]
		pl.idle = pl.idle[:n-1]
		if !p.exited() {
			pl.mu.Unlock()
			return p, nil
		}
		// It died between requests (killed from outside, or it exits
		// after each request): reap it and try the next.
		err := p.Close()
		pl.cfg.Logger.Warn("provider process exited while idle; it is replaced",
			KeyProvider, pl.cfg.Name, KeyPid, p.Pid(), "exit_status", p.proc.ExitStatus(), "error", err)
	}
	pl.started++
	pl.mu.Unlock()
	p, err := Start(ctx, pl.cfg)
	if err != nil {
		pl.mu.Lock()
		pl.started-- // it never ran
		pl.mu.Unlock()
	}
	return p, err
}

// give returns a process after a request: a failed one is dropped (it was
// killed and reaped when it failed).
func (pl *Pool) give(p *Process) {
	if !p.usable() {
		return
	}
	pl.mu.Lock()
	pl.idle = append(pl.idle, p)
	pl.mu.Unlock()
}

// Close refuses new requests, waits for those in flight, and closes every
// process (see [Process.Close]). It returns the processes' shutdown
// errors, joined.
func (pl *Pool) Close() error {
	pl.mu.Lock()
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
	return errors.Join(errs...)
}
