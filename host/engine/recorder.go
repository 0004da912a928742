package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/pierhq/pier/host/statedoc"
	"github.com/pierhq/pier/schema"
)

// Recorder appends state events to one state handler. It commits in
// groups: while one append is in flight, later changes queue up and go out
// together as one event with one patch, so durability costs one sync per
// batch rather than one per resource.
type Recorder struct {
	e       *Engine
	handler string
	ref     *HandlerRef
	doc     *statedoc.Stored
	reqs    chan *recordReq
	done    chan struct{}
	// broken is the error of a failed append. After one, the in-memory view
	// may differ from the stored state, so every later record fails too.
	broken error
	// scratch keeps one patch's buffers for the next; only the loop
	// uses it.
	scratch statedoc.Scratch
}

type recordReq struct {
	ctx   context.Context
	event string
	build func(*statedoc.PatchBuilder) error
	// within bounds the append that carries the change (0: ctx alone
	// does); see [Recorder.RecordWithin].
	within time.Duration
	err    chan error
}

func NewRecorder(e *Engine, handler string, ref *HandlerRef) *Recorder {
	r := &Recorder{e: e, handler: handler, ref: ref, doc: ref.View.Stored(), reqs: make(chan *recordReq, 64), done: make(chan struct{})}
	go r.loop()
	return r
}

// Ref is the state handler the recorder appends through.
func (r *Recorder) Ref() *HandlerRef { return r.ref }

// recordReqs keep requests, with their channels, between records: an
// apply records twice a create (its intent and its outcome), and each
// request and channel was garbage left to the next collection. A request
// goes back only once its answer is received, or when it was never
// queued: then nothing else holds it.
var recordReqs = sync.Pool{New: func() any { return &recordReq{err: make(chan error, 1)} }}

// Record queues a change and waits until it is durable.
func (r *Recorder) Record(ctx context.Context, event string, build func(*statedoc.PatchBuilder) error) error {
	return r.RecordWithin(ctx, 0, event, build)
}

// RecordWithin is [Recorder.Record] with the append that carries the
// change bounded by within (when positive) as well as by ctx: a batch's
// append gets the shortest bound among its changes, and a change queued
// behind an append that fails fails with it. An apply records each change
// under a context that outlives a Ctrl-C with a bound of its own; giving
// the bound here, rather than as a context with a deadline per change,
// costs one timer per append instead of a timer, a context and a channel
// per change (0.75 MB of the command's allocations on a fresh apply of
// 1000 bridged resources, which records twice per resource).
func (r *Recorder) RecordWithin(ctx context.Context, within time.Duration, event string, build func(*statedoc.PatchBuilder) error) error {
	req := recordReqs.Get().(*recordReq)
	req.ctx, req.event, req.build, req.within = ctx, event, build, within
	select {
	case r.reqs <- req:
	case <-ctx.Done():
		req.reuse()
		return ctx.Err()
	}
	select {
	case err := <-req.err:
		req.reuse()
		return err
	case <-ctx.Done():
		return ctx.Err() // the loop may answer still: req is not reused
	}
}

// reuse gives req back to recordReqs.
func (req *recordReq) reuse() {
	req.ctx, req.event, req.build, req.within = nil, "", nil, 0
	recordReqs.Put(req)
}

func (r *Recorder) Close() {
	close(r.reqs)
	<-r.done
}

func (r *Recorder) loop() {
	defer close(r.done)
	for req := range r.reqs {
		batch := []*recordReq{req}
	drain:
		for {
			select {
			case more, ok := <-r.reqs:
				if !ok {
					break drain
				}
				batch = append(batch, more)
			default:
				break drain
			}
		}
		r.commit(batch)
	}
}

// commit builds one patch from a batch and appends it as one event.
func (r *Recorder) commit(batch []*recordReq) {
	if r.broken != nil {
		for _, req := range batch {
			req.err <- fmt.Errorf("an earlier append to this state failed: %w", r.broken)
		}
		return
	}
	pb := statedoc.NewPatchBuilderFrom(r.doc, &r.scratch)
	// The append below is done when commit returns: nothing refers to
	// the patch after.
	defer pb.Release(&r.scratch)
	healed := pb.Heal()
	// Most changes are one operation or two (an outcome and the
	// clearing of its intent).
	pb.Grow(2 * len(batch))
	var ok []*recordReq
	var events []string
	for _, req := range batch {
		if err := req.build(pb); err != nil {
			req.err <- err
			continue
		}
		ok = append(ok, req)
		if !slices.Contains(events, req.event) {
			events = append(events, req.event)
		}
	}
	if len(ok) == 0 || len(pb.Ops()) == healed {
		pb.Unheal()
	}
	if len(ok) == 0 {
		return
	}
	event := batchEvent(events)
	if len(pb.Ops()) > healed {
		ctx := ok[0].ctx
		if within := batchWithin(ok); within > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, within)
			defer cancel()
		}
		err := r.append(ctx, event, pb.Ops())
		if err != nil {
			r.broken = err
		}
		if healed > 0 && err == nil {
			r.doc.Healed()
		}
		for _, req := range ok {
			req.err <- err
		}
		return
	}
	for _, req := range ok {
		req.err <- nil
	}
}

// batchWithin is the shortest positive bound among a batch's changes, or
// 0 when none has one.
func batchWithin(batch []*recordReq) time.Duration {
	var within time.Duration
	for _, req := range batch {
		if req.within > 0 && (within == 0 || req.within < within) {
			within = req.within
		}
	}
	return within
}

// EventPending names an event that records only intents, or clears one
// whose operation the provider refused.
const EventPending = "pending"

// batchEvent names the event of a group commit after what it records, in
// order, so that the log still says a replace's destroy happened when it
// shares an event with an update ("destroy+update"). An intent riding
// along does not rename it: a forget batched with a pending operation is
// still a forget.
func batchEvent(events []string) string {
	if len(events) > 1 {
		events = slices.DeleteFunc(slices.Clone(events), func(e string) bool { return e == EventPending })
	}
	return strings.Join(events, "+")
}

func (r *Recorder) append(ctx context.Context, event string, patch schema.Patch) error {
	res := r.ref.Resource
	_, err := r.e.providers.callHandler(ctx, res.Provider, r.handler, &schema.Request{StateResourceEvent: &schema.StateResourceEvent{
		Resource:      schema.ExtantResource{Type: res.Type, InputProperties: res.Inputs, OutputProperties: r.ref.Outputs},
		Event:         event,
		NixopsVersion: r.e.cfg.nixopsVersion(),
		Patch:         patch,
	}})
	return err
}
