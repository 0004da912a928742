package apply

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/pierhq/pier/host/engine"
	"github.com/pierhq/pier/host/execgraph"
	"github.com/pierhq/pier/host/statedoc"
	"github.com/pierhq/pier/schema"
)

// This file is the call slots of an apply: what bounds the provider
// requests in flight, apart from the bound on the nodes started.
//
// A node is started some time before its first provider request: a
// create or a destroy first records its intent, and waits until it is
// durable (intents.go). It holds no provider process meanwhile. When it
// is about to send, its worker asks the scheduler for a call slot
// ([applier.call]), and the scheduler grants one while fewer requests are
// in flight than the engine's parallelism, and fewer of that provider's
// than its pool's size. The worker gives the slot back once the provider
// has answered, before the outcome is recorded.
//
// So that a node is ready to send whenever a slot frees, the scheduler
// starts up to twice as many nodes as may call ([startBound]), overall
// and per provider: the state handler records the next nodes' intents,
// and the last ones' outcomes, in the same group commits, while the
// provider serves the current requests. While a node held its process
// from before its intent to the provider's answer, a provider was idle
// for about as long as it served.
//
// First requests are granted in the order the nodes were started, not
// in the order their workers ask: a node started earlier whose intent is
// still being recorded keeps its place in its provider's line, and a
// slot of the engine's parallelism, so that nodes started after it (and
// held at the provider for long) cannot take every slot before it asks.
// That is the order the nodes ran in while a node reserved its process
// when started.
//
// A node is shown as applying ("Creating…", and the RPC API's APPLYING)
// when its first request is granted, as the request is about to go, not
// when it is started: what a stop finds applying is what it lets finish.
// Once the run is stopped (Ctrl-C, a lost state handler), a node that
// has sent no request yet is refused its slot with errNotSent. Its intent
// is cleared (intentFailed: nothing reached the provider), and it is
// skipped as a node that did not start; under a lost handler the
// clearing cannot be recorded then, and retake clears it once the lock is
// held again (handler_lost.go). A node that has sent one finishes (the
// create half of a replace decided at run time, after its destroy), as
// the requests in flight do.

// startBound is how many nodes may be started at once where calls
// provider requests may be in flight: twice as many, so that the next
// requests' intents are recorded while these run. With one, nothing runs
// ahead: parallelism 1 applies one node at a time.
func startBound(calls int) int {
	if calls <= 1 {
		return 1
	}
	return 2 * calls
}

// errNotSent refuses a provider request the run stopped before: nothing
// was sent. See notSent.
var errNotSent = errors.New("not sent: apply stopped before this operation's provider request")

// notSent reports whether err is a refused request's, through single
// wraps only: a refusal joined with a failure to clear its intent is not
// a node that did nothing, and fails.
func notSent(err error) bool {
	for ; err != nil; err = errors.Unwrap(err) {
		if err == errNotSent {
			return true
		}
	}
	return false
}

// callSlots is the scheduler's account of provider requests: the
// requests in flight, the started nodes in line for their first, and the
// later requests waiting. The scheduling goroutine owns it.
type callSlots struct {
	// limit is how many requests may be in flight across providers: the
	// engine's parallelism.
	limit    int
	inFlight int
	byName   map[string]*providerCalls
	// line are the started nodes that may call a provider and have not
	// been granted a request yet, in the order they were started.
	line []*node
	// again are the requests of nodes granted one before (a replace's
	// second half), as they came: they go before the line's.
	again []*callWant
}

// providerCalls is one provider's part of [callSlots].
type providerCalls struct {
	name string
	// size is its pool's size, how many of its requests may be in flight;
	// 0 when it has no pool (its requests fail on their own).
	size     int
	inFlight int
	// ahead counts its started nodes none of whose requests has been
	// answered yet (or that finished without one); dequeue keeps it
	// within startBound(size).
	ahead int
}

// callWant is a worker's request for a call slot, for one provider
// request about resource.
type callWant struct {
	n        *node
	provider string
	resource string
	// grant receives the scheduler's answer; it is buffered, so the
	// scheduler never waits on a worker.
	grant chan callGrant
}

// callGrant answers a [callWant].
type callGrant struct {
	// slot is the pool's request slot reserved for the request, nil when
	// something outside this apply holds it: the request then waits for
	// one in the pool.
	slot    *engine.Slot
	refused bool
}

func newCallSlots(limit int) callSlots {
	return callSlots{limit: limit, byName: map[string]*providerCalls{}}
}

// callsOf returns provider name's part, made on first use.
func (a *applier) callsOf(name string) *providerCalls {
	pc := a.calls.byName[name]
	if pc == nil {
		pc = &providerCalls{name: name, size: a.e.Providers().Parallelism(name)}
		a.calls.byName[name] = pc
	}
	return pc
}

// callsProvider reports whether an operation may send provider requests:
// the ones that only record something do not.
func callsProvider(op execgraph.Operation[*statedoc.Recorded]) bool {
	switch op.Opcode() {
	case execgraph.OpRefresh, execgraph.OpForget, execgraph.OpImport, execgraph.OpMove:
		return false
	}
	return true
}

// admits reports whether provider name may have one more node started:
// fewer of its nodes are ahead of their first answer than startBound of
// its pool's size.
func (a *applier) admits(name string) bool {
	pc := a.callsOf(name)
	return pc.size == 0 || pc.ahead < startBound(pc.size)
}

// startAhead counts a node started against its provider and puts it in
// line for its first request.
func (a *applier) startAhead(n *node) {
	pc := a.callsOf(n.change.Provider())
	pc.ahead++
	n.ahead = pc
	n.inLine = true
	a.calls.line = append(a.calls.line, n)
}

// endAhead stops counting n against its provider: a request of its was
// answered, or it finished.
func (a *applier) endAhead(n *node) {
	if n.ahead != nil {
		n.ahead.ahead--
		n.ahead = nil
	}
}

// leaveLine takes n out of the line: granted, refused, or finished.
func (a *applier) leaveLine(n *node) {
	if !n.inLine {
		return
	}
	n.inLine = false
	n.want = nil
	if i := slices.Index(a.calls.line, n); i >= 0 {
		a.calls.line = slices.Delete(a.calls.line, i, i+1)
	}
}

// wantCall takes a worker's request for a call slot.
func (a *applier) wantCall(w *callWant) {
	if w.n.inLine {
		w.n.want = w
		return
	}
	a.calls.again = append(a.calls.again, w)
}

// freeCall takes back the call slot of an answered request.
func (a *applier) freeCall(w *callWant) {
	a.calls.inFlight--
	a.callsOf(w.provider).inFlight--
	a.endAhead(w.n)
}

// grantCalls answers the workers waiting for a call slot, as far as the
// slots go: first the later requests of nodes that have sent one, then
// the line's first requests in the order the nodes started, each
// provider's line stopping at its first node that has not asked yet.
// Once the run is stopped, a node that has sent nothing is refused.
func (a *applier) grantCalls() {
	cs := &a.calls
	if !a.stopped && slices.ContainsFunc(cs.line, func(n *node) bool { return n.want != nil }) {
		a.pollLost()
	}
	if a.stopped {
		for _, n := range slices.Clone(cs.line) {
			if w := n.want; w != nil {
				a.leaveLine(n)
				w.grant <- callGrant{refused: true}
			}
		}
	}
	cs.again = slices.DeleteFunc(cs.again, func(w *callWant) bool {
		pc := a.callsOf(w.provider)
		if cs.inFlight >= cs.limit || !pc.free() {
			return false
		}
		a.grant(w, pc)
		return true
	})
	free := cs.limit - cs.inFlight
	// held are the providers whose line waits: on a node that has not
	// asked yet, or on a full pool.
	var held []*providerCalls
	for i := 0; i < len(cs.line) && free > 0; {
		n := cs.line[i]
		pc := n.ahead
		if slices.Contains(held, pc) {
			i++
			continue
		}
		if !pc.free() {
			held = append(held, pc)
			i++
			continue
		}
		w := n.want
		if w == nil || a.stopped {
			// Its place, and a slot of the engine's parallelism, wait
			// for it (a stopped run refuses it once it asks).
			held = append(held, pc)
			free--
			i++
			continue
		}
		a.leaveLine(n) // at i: the next node moves up
		a.grant(w, pc)
		free--
	}
}

// pollLost stops the run when a state handler's pool knows its process
// is lost, though the watcher has not told the scheduler yet: once pier
// knows the state's lock is gone, no first request may go, even where
// the intent became durable before.
func (a *applier) pollLost() {
	for h := range a.recorders {
		if a.handlerLost(h) != nil {
			a.loseHandler(h)
		}
	}
}

// free reports whether the provider may have one more request in flight.
func (pc *providerCalls) free() bool { return pc.size == 0 || pc.inFlight < pc.size }

// grant gives w a call slot of provider pc. A node's first is when it is
// shown as applying: its request is about to go.
func (a *applier) grant(w *callWant, pc *providerCalls) {
	if w.n.requests == 0 {
		a.showApplying(w.n)
	}
	// Reserving fails only while a request from outside this apply holds
	// the pool's slot: the worker then waits in the pool.
	s, _ := a.e.Providers().Reserve(pc.name, w.resource)
	a.calls.inFlight++
	pc.inFlight++
	w.n.requests++
	w.grant <- callGrant{slot: s}
}

// showApplying says n is applying, and times it from now.
func (a *applier) showApplying(n *node) {
	if n.shown {
		return
	}
	n.shown = true
	n.started = time.Now()
	c := n.change
	a.e.Emit(engine.Event{Type: engine.EventStatus, Address: c.Addr(), Deposed: c.Deposed, Action: c.Action, Status: engine.StatusApplying, Provider: c.Provider()})
}

type nodeKey struct{}

// withNode marks a worker's ctx with its node, which its requests for
// call slots name.
func withNode(ctx context.Context, n *node) context.Context {
	return context.WithValue(ctx, nodeKey{}, n)
}

// call sends one provider request for the node whose worker ctx is
// marked with, in a call slot the scheduler grants: it waits for the
// slot, sends the request, and gives the slot back once the provider has
// answered. A request the run stopped before is refused with errNotSent,
// and nothing is sent. It runs on the worker's goroutine.
func (a *applier) call(ctx context.Context, prov, resource string, req *schema.Request) (*schema.Response, error) {
	n, ok := ctx.Value(nodeKey{}).(*node)
	if !ok {
		panic("provider request outside a node's worker: this is a bug in pier")
	}
	w := &callWant{n: n, provider: prov, resource: resource, grant: make(chan callGrant, 1)}
	a.done <- nodeResult{n: n, want: w}
	g := <-w.grant
	if g.refused {
		return nil, errNotSent
	}
	if g.slot != nil {
		ctx = engine.WithSlot(ctx, g.slot)
	}
	resp, err := a.e.Providers().Call(ctx, prov, resource, req)
	if g.slot != nil {
		g.slot.Release() // a no-op once the request used it
	}
	// Before the outcome is recorded; the node's result follows on the
	// same channel, so it cannot pass this.
	a.done <- nodeResult{n: n, answered: w}
	return resp, err
}
