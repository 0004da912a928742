package apply

import (
	"context"
	"errors"
	"slices"

	"github.com/pierhq/pier/host/engine"
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
// Nothing is sent that a stop forbids: once the run is stopped (Ctrl-C,
// a lost state handler), a node that has sent no request yet is refused
// its slot with errNotSent. Its intent is cleared (intentFailed: nothing
// reached the provider), and it is skipped as a node that did not start;
// under a lost handler the clearing cannot be recorded, so the intent
// stays and the node fails saying so.
// A node that has sent one finishes (the create half of a replace decided
// at run time, after its destroy), as the requests in flight do.

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
// requests in flight, and per provider, the nodes started ahead of their
// first answer and the workers waiting for a slot. The scheduling
// goroutine owns it.
type callSlots struct {
	// limit is how many requests may be in flight across providers: the
	// engine's parallelism.
	limit    int
	inFlight int
	byName   map[string]*providerCalls
	// order are the providers in first-use order, which grants follow.
	order []*providerCalls
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
	ahead   int
	waiting []*callWant
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
		a.calls.order = append(a.calls.order, pc)
	}
	return pc
}

// admits reports whether provider name may have one more node started:
// fewer of its nodes are ahead of their first answer than startBound of
// its pool's size.
func (a *applier) admits(name string) bool {
	pc := a.callsOf(name)
	return pc.size == 0 || pc.ahead < startBound(pc.size)
}

// startAhead counts a node started against its provider.
func (a *applier) startAhead(n *node) {
	pc := a.callsOf(n.change.Provider())
	pc.ahead++
	n.ahead = pc
}

// endAhead stops counting n against its provider: a request of its was
// answered, or it finished.
func (a *applier) endAhead(n *node) {
	if n.ahead != nil {
		n.ahead.ahead--
		n.ahead = nil
	}
}

// wantCall queues a worker's request for a call slot.
func (a *applier) wantCall(w *callWant) {
	pc := a.callsOf(w.provider)
	pc.waiting = append(pc.waiting, w)
}

// freeCall takes back the call slot of an answered request.
func (a *applier) freeCall(w *callWant) {
	a.calls.inFlight--
	a.callsOf(w.provider).inFlight--
	a.endAhead(w.n)
}

// grantCalls answers the workers waiting for a call slot, as far as the
// slots go: per provider in first-use order, the first whose pool process
// is warm for it first (see [engine.Providers.WarmIndex]). Once the run
// is stopped, a node that has sent nothing is refused.
func (a *applier) grantCalls() {
	for _, pc := range a.calls.order {
		if a.stopped {
			pc.waiting = slices.DeleteFunc(pc.waiting, func(w *callWant) bool {
				if w.n.requests > 0 {
					return false
				}
				w.grant <- callGrant{refused: true}
				return true
			})
		}
		for len(pc.waiting) > 0 && a.calls.inFlight < a.calls.limit && (pc.size == 0 || pc.inFlight < pc.size) {
			q := pc.waiting
			i := a.e.Providers().WarmIndex(pc.name, min(len(q), warmScan), func(i int) string { return q[i].resource })
			w := q[i]
			pc.waiting = slices.Delete(q, i, i+1)
			// Reserving fails only while a request from outside this
			// apply holds the pool's slot: the worker then waits in the
			// pool.
			s, _ := a.e.Providers().Reserve(pc.name, w.resource)
			a.calls.inFlight++
			pc.inFlight++
			w.n.requests++
			w.grant <- callGrant{slot: s}
		}
	}
}

// warmScan bounds how far into a provider's waiting workers grantCalls
// looks for one whose process is warm.
const warmScan = 64

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
