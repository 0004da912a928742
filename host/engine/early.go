package engine

import (
	"context"
	"slices"
	"sync"

	"github.com/pierhq/pier/host/source"
)

// This file reads states while the deployment resolves: a state handler
// is usually ready long before the resources it records are evaluated,
// and reading a large state (its provider's read, the frame's decode,
// statedoc's) then runs beside the evaluation instead of after it.
//
// The reads are a guess that ReadStatesAfter checks. They follow the
// order ReadStates reads in, address order, because a built-in handler
// takes its storage's lock on its first read and holds it: two commands
// that lock in the same order cannot wait on each other. When the guess
// was wrong (a handler the listing missed sorts before one read early,
// or a handler read early was evaluated again), the early handlers'
// processes are replaced, which gives their locks back, and every state
// is read again in order.

// EarlyStates are the state reads started by [Engine.StartStateReads].
// Its methods are for the goroutine that resolves; a nil *EarlyStates
// reads nothing.
type EarlyStates struct {
	e      *Engine
	cancel context.CancelFunc
	done   chan struct{}
	wake   chan struct{}
	// order is the handlers to read early, in address order: those the
	// source lists, served by a built-in provider.
	order    []string
	provider map[string]string // provider name of each in order

	mu      sync.Mutex
	ready   map[string]*source.Resource // as the source last reported them
	stopped bool
	reads   []earlyRead // in order, a prefix of it
}

type earlyRead struct {
	r   *source.Resource
	ref *HandlerRef
	err error
}

// StartStateReads reads, in address order, each state handler that the
// source lists before it resolves, as soon as the next Resolve reports it
// ready. It returns nil when the source cannot report them, or lists no
// handler of a built-in provider: only those processes may run before
// the deployment resolves (see [Engine.PrestartHandlers]). Pass the
// result to [Engine.ReadStatesAfter], or to Abandon when the snapshot
// fails.
func (e *Engine) StartStateReads(ctx context.Context) *EarlyStates {
	w, ok := e.cfg.Source.(source.HandlerWatcher)
	l, ok2 := e.cfg.Source.(source.StateHandlerLister)
	if !ok || !ok2 {
		return nil
	}
	es := &EarlyStates{e: e, done: make(chan struct{}), wake: make(chan struct{}, 1), provider: map[string]string{}, ready: map[string]*source.Resource{}}
	for _, h := range l.StateHandlers() {
		if h.Provider != nil && h.Provider.Builtin != "" {
			es.order = append(es.order, h.Address)
			es.provider[h.Address] = h.Provider.Name
		}
	}
	if len(es.order) == 0 {
		return nil
	}
	slices.Sort(es.order)
	ctx, es.cancel = context.WithCancel(ctx)
	w.WatchHandlers(es.reported)
	go es.run(ctx)
	return es
}

// reported is the source's news that handler r is ready.
func (es *EarlyStates) reported(r *source.Resource) {
	addr := r.Address.String()
	if es.provider[addr] != r.Provider {
		return // not served by the built-in provider listed
	}
	es.mu.Lock()
	es.ready[addr] = r
	es.mu.Unlock()
	select {
	case es.wake <- struct{}{}:
	default:
	}
}

// run reads the handlers in order, each once it is ready, until one is
// not ready when the resolve ends or a read fails.
func (es *EarlyStates) run(ctx context.Context) {
	defer close(es.done)
	for _, h := range es.order {
		r := es.await(h)
		if r == nil || r.Stateful() {
			return // ReadStatesAfter reads it, or refuses it
		}
		ref, err := es.e.ReadState(ctx, r)
		es.mu.Lock()
		es.reads = append(es.reads, earlyRead{r: r, ref: ref, err: err})
		es.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// await returns handler h once it is ready, or nil when the resolve
// ended before it was.
func (es *EarlyStates) await(h string) *source.Resource {
	for {
		es.mu.Lock()
		r, stopped := es.ready[h], es.stopped
		es.mu.Unlock()
		if r != nil {
			return r
		}
		if stopped {
			return nil
		}
		<-es.wake
	}
}

// finish stops listening to the source and waits for the reads under
// way, and returns them.
func (es *EarlyStates) finish() []earlyRead {
	if es == nil {
		return nil
	}
	es.e.cfg.Source.(source.HandlerWatcher).WatchHandlers(nil)
	es.mu.Lock()
	es.stopped = true
	es.mu.Unlock()
	select {
	case es.wake <- struct{}{}:
	default:
	}
	<-es.done
	es.cancel()
	return es.reads
}

// Abandon ends the early reads of a snapshot that failed: it cancels
// the read under way and waits for it to end.
func (es *EarlyStates) Abandon() {
	if es == nil {
		return
	}
	es.cancel()
	es.finish()
}

// usable reports whether reads are what ReadStates would have done first
// for handlers (address order) of a snapshot whose ready handlers are
// ready: the same handlers, in the same order, with the same resources.
func usable(reads []earlyRead, handlers []string, ready map[string]*source.Resource) bool {
	if len(reads) > len(handlers) {
		return false
	}
	for i, rd := range reads {
		if handlers[i] != rd.r.Address.String() || ready[handlers[i]] != rd.r {
			return false
		}
	}
	return true
}
