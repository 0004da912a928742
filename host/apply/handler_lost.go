package apply

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/pierhq/pier/host/engine"
	"github.com/pierhq/pier/host/plan"
	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/host/statedoc"
	"github.com/pierhq/pier/schema/logkey"
)

// This file is what apply does when a state handler's process dies under
// it. The process held the state's lock (state_file its flock, pg_state
// its session's advisory lock), so the lock is gone too, and another
// command may take it at once and change the state. Nothing this apply
// planned may then be started: it was planned on a state that may no
// longer be the state. The pool never replaces the process (see
// [provider.NewHolderPool]); the scheduler stops starting work, the
// operations in flight finish, and what they did is recorded once a new
// process holds the lock again, where the state still holds this apply's
// own intent for it (nothing else has recorded anything for it since).
// An intent recorded for a request that was never sent (the run stopped
// before its call slot, see calls.go) is cleared there likewise, so that
// the next apply does not refuse what nothing was done for. What cannot
// be recorded or cleared so is named in a [*HandlerLostError], and apply
// fails.

// HandlerLostError is a state handler whose process exited during apply,
// and with it the state's lock.
type HandlerLostError struct {
	Handler  string // the state handler's address
	Provider string
	Err      error // why the process is gone: a [*provider.LostError]
	// Recorded are the changes made under the lost lock and recorded once
	// it was held again, as "ADDRESS (EVENT)".
	Recorded []string
	// Unrecorded are the changes made that are not recorded.
	Unrecorded []UnrecordedChange
	// Cleared are the intents of requests never sent, cleared once the
	// lock was held again, by address; LeftPending those that could not
	// be, and stay recorded.
	Cleared     []string
	LeftPending []UnrecordedChange
}

// UnrecordedChange is a change apply made whose record it could not make.
type UnrecordedChange struct {
	Address string
	Event   string // create, update, destroy …
	Reason  string
}

func (e *HandlerLostError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "state handler %s (provider %s) was lost during apply: %v; pier started nothing more", e.Handler, e.Provider, e.Err)
	if len(e.Recorded) > 0 {
		fmt.Fprintf(&b, "; recorded once the lock was held again: %s", strings.Join(e.Recorded, ", "))
	}
	if len(e.Cleared) > 0 {
		fmt.Fprintf(&b, "; pending operations cleared once the lock was held again, as nothing was sent for them: %s", strings.Join(e.Cleared, ", "))
	}
	if len(e.Unrecorded) > 0 {
		b.WriteString("; NOT RECORDED, although done:")
		for _, u := range e.Unrecorded {
			fmt.Fprintf(&b, "\n  %s (%s): %s", u.Address, u.Event, u.Reason)
		}
	}
	if len(e.LeftPending) > 0 {
		b.WriteString("; left pending, although nothing was sent for them:")
		for _, u := range e.LeftPending {
			fmt.Fprintf(&b, "\n  %s (pending %s): %s", u.Address, u.Event, u.Reason)
		}
	}
	if len(e.Unrecorded) > 0 || len(e.LeftPending) > 0 {
		b.WriteString("\nrun pier plan: an object whose create is still pending is named there, with how to adopt it (pier import) or clear it (pier state resolve)")
	}
	return b.String()
}

func (e *HandlerLostError) Unwrap() error { return e.Err }

// lostState is an applier's record of lost handlers, of the intents it
// recorded, and of the outcomes whose record failed; workers write it
// concurrently.
type lostState struct {
	// lost receives the address of each state handler whose process is
	// lost; the scheduler reads it.
	lost chan string
	// handlers are the lost handlers, in the order the scheduler heard.
	handlers []string

	mu      sync.Mutex
	intents map[string]intentMark // by address: the last intent recorded, or being recorded
	// intentsHint is the size intents is made for: the graph's
	// operations, more than the addresses it holds intents for.
	intentsHint int
	unrecorded  []unrecorded
	stranded    []stranded
}

// intentMark is what identifies an intent this apply recorded when the
// state is read again: its operation and when it started. The whole
// intent, its inputs and all, was kept for each of an apply's resources
// (0.24 MB of the command's allocations on a fresh apply of 1000 bridged
// resources) for these two.
type intentMark struct {
	Operation statedoc.PendingKind
	Started   string
}

// stranded is an intent whose request was never sent (or answered that
// nothing was done) and whose clearing failed because its state handler
// was lost: it may stay recorded, for retake to clear.
type stranded struct {
	handler string
	change  *plan.Change
	op      statedoc.PendingKind
	// unsent says the node sent nothing: once its intent is known not to
	// stay recorded, it is a node that did not start.
	unsent bool
}

// unrecorded is a provider's outcome whose record failed because its
// state handler was lost.
type unrecorded struct {
	handler string
	change  *plan.Change
	event   string
	build   func(*statedoc.PatchBuilder) error
}

type changeKey struct{}

// withChange marks a worker's ctx with the change it carries out, so that
// a record that fails can say what it was for.
func withChange(ctx context.Context, c *plan.Change) context.Context {
	return context.WithValue(ctx, changeKey{}, c)
}

// watchHandlers forwards the loss of any state handler's process to the
// scheduler, until the returned stop is called.
func (a *applier) watchHandlers() (stop func()) {
	a.lostState.lost = make(chan string, len(a.recorders))
	done := make(chan struct{})
	var wg sync.WaitGroup
	for h, r := range a.recorders {
		pl, err := a.e.Providers().HandlerPool(r.Ref().Resource.Provider, h)
		if err != nil {
			continue
		}
		wg.Go(func() {
			select {
			case <-pl.Lost():
				a.lostState.lost <- h
			case <-done:
			}
		})
	}
	return func() {
		close(done)
		wg.Wait()
	}
}

// loseHandler stops the run: nothing more starts once a state's lock is
// gone. It runs on the scheduling goroutine.
func (a *applier) loseHandler(h string) {
	if !slices.Contains(a.lostState.handlers, h) {
		a.lostState.handlers = append(a.lostState.handlers, h)
	}
	a.stopped = true
}

// drainLost takes the losses reported so far, without waiting.
func (a *applier) drainLost() {
	for {
		select {
		case h := <-a.lostState.lost:
			a.loseHandler(h)
		default:
			return
		}
	}
}

// haltReason is why nodes that did not run were skipped.
func (a *applier) haltReason() error {
	if len(a.lostState.handlers) > 0 {
		return fmt.Errorf("not started: the process of state handler %s exited, and the state's lock with it", strings.Join(a.lostState.handlers, ", "))
	}
	return ErrInterrupted
}

// noteIntent remembers the intent recorded for addr, which identifies
// this apply's pending operation when the state is read again.
func (a *applier) noteIntent(addr source.Address, p statedoc.PendingOperation) {
	a.lostState.mu.Lock()
	defer a.lostState.mu.Unlock()
	if a.lostState.intents == nil {
		a.lostState.intents = make(map[string]intentMark, a.lostState.intentsHint)
	}
	a.lostState.intents[addr.String()] = intentMark{Operation: p.Operation, Started: p.Started}
}

// noteFailedRecord keeps an outcome whose record failed because its
// handler is lost, for retake. Intents are not outcomes: nothing was sent
// for one that failed.
func (a *applier) noteFailedRecord(ctx context.Context, handler, event string, build func(*statedoc.PatchBuilder) error) {
	c, _ := ctx.Value(changeKey{}).(*plan.Change)
	if c == nil || event == engine.EventPending || a.handlerLost(handler) == nil {
		return
	}
	a.lostState.mu.Lock()
	defer a.lostState.mu.Unlock()
	a.lostState.unrecorded = append(a.lostState.unrecorded, unrecorded{handler: handler, change: c, event: event, build: build})
}

// noteStranded keeps an intent c's node could not clear, or could not
// tell whether it was recorded, because its handler is lost: nothing was
// done for it, so retake clears it. It reports whether it kept it.
func (a *applier) noteStranded(handler string, c *plan.Change, op statedoc.PendingKind, unsent bool) bool {
	if a.handlerLost(handler) == nil {
		return false
	}
	a.lostState.mu.Lock()
	defer a.lostState.mu.Unlock()
	a.lostState.stranded = append(a.lostState.stranded, stranded{handler: handler, change: c, op: op, unsent: unsent})
	return true
}

// handlerLost returns why a state handler's process is lost, or nil.
func (a *applier) handlerLost(handler string) error {
	r := a.recorders[handler]
	if r == nil {
		return nil
	}
	pl, err := a.e.Providers().HandlerPool(r.Ref().Resource.Provider, handler)
	if err != nil {
		return nil
	}
	if le := pl.LostErr(); le != nil {
		return le
	}
	return nil
}

// retake records, for each lost handler, what was done under its lost
// lock: a new process takes the lock again and reads the state, and an
// outcome is recorded where that state still holds this apply's own
// intent for its object. Everything else is named. It runs once the run
// is over, on the scheduling goroutine.
func (a *applier) retake(ctx context.Context) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
	defer cancel()
	for _, h := range a.lostState.handlers {
		res := a.recorders[h].Ref().Resource
		herr := &HandlerLostError{Handler: h, Provider: res.Provider, Err: a.handlerLost(h)}
		if herr.Err == nil {
			herr.Err = errors.New("its process exited")
		}
		var us []unrecorded
		for _, u := range a.lostState.unrecorded {
			if u.handler == h {
				us = append(us, u)
			}
		}
		var ss []stranded
		for _, s := range a.lostState.stranded {
			if s.handler == h {
				ss = append(ss, s)
			}
		}
		if len(us) > 0 || len(ss) > 0 {
			a.retakeHandler(ctx, herr, res, us, ss)
		}
		a.result.Lost = append(a.result.Lost, herr)
	}
}

func (a *applier) retakeHandler(ctx context.Context, herr *HandlerLostError, res *source.Resource, us []unrecorded, ss []stranded) {
	notRecorded := func(u unrecorded, why string) {
		herr.Unrecorded = append(herr.Unrecorded, UnrecordedChange{Address: u.change.Addr(), Event: u.event, Reason: why})
	}
	leftPending := func(s stranded, why string) {
		herr.LeftPending = append(herr.LeftPending, UnrecordedChange{Address: s.change.Addr(), Event: string(s.op), Reason: why})
	}
	ref, err := a.takeAgain(ctx, res)
	if err != nil {
		for _, u := range us {
			notRecorded(u, fmt.Sprintf("the lock could not be taken again: %v", err))
		}
		for _, s := range ss {
			leftPending(s, fmt.Sprintf("the lock could not be taken again: %v", err))
		}
		return
	}
	rec := engine.NewRecorder(a.e, herr.Handler, ref)
	defer rec.Close()
	for _, u := range us {
		if alreadyRecorded(ref.View, u) {
			herr.Recorded = append(herr.Recorded, fmt.Sprintf("%s (%s, by the lost process before it exited)", u.change.Addr(), u.event))
			a.recovered(u.change)
			continue
		}
		if why := a.notOurs(ref.View, u); why != "" {
			notRecorded(u, why)
			continue
		}
		if err := rec.Record(ctx, u.event, u.build); err != nil {
			notRecorded(u, fmt.Sprintf("recording it under the lock taken again failed: %v", err))
			continue
		}
		herr.Recorded = append(herr.Recorded, fmt.Sprintf("%s (%s)", u.change.Addr(), u.event))
		a.recovered(u.change)
	}
	for _, s := range ss {
		switch a.strandedNow(ref.View, s) {
		case strandedGone:
			// The intent never became durable: nothing to clear.
		case strandedOurs:
			if err := rec.Record(ctx, engine.EventPending, func(pb *statedoc.PatchBuilder) error { pb.ClearPending(s.change.Address); return nil }); err != nil {
				leftPending(s, fmt.Sprintf("clearing it under the lock taken again failed: %v", err))
				continue
			}
			herr.Cleared = append(herr.Cleared, s.change.Addr())
		default:
			// Another command's, or an earlier one's: not this apply's to
			// clear, and the node's error stands.
			continue
		}
		if s.unsent {
			a.notStarted(s.change)
		}
	}
}

// What the state read again holds for a stranded intent's object.
const (
	strandedGone  = iota // no pending operation
	strandedOurs         // the intent this apply recorded
	strandedOther        // another pending operation
)

// strandedNow says what view holds for s's object: nothing pending, this
// apply's own intent (the one it recorded, or was recording, when its
// handler was lost), or another.
func (a *applier) strandedNow(view *statedoc.View, s stranded) int {
	addr := s.change.Addr()
	now := view.Pending[addr]
	if now == nil {
		return strandedGone
	}
	a.lostState.mu.Lock()
	mine, ok := a.lostState.intents[addr]
	a.lostState.mu.Unlock()
	if ok && now.Operation == mine.Operation && now.Started == mine.Started {
		return strandedOurs
	}
	return strandedOther
}

// takeAgain starts a new process for a lost handler, which takes the
// lock, and reads the state as it is now.
func (a *applier) takeAgain(ctx context.Context, res *source.Resource) (*engine.HandlerRef, error) {
	if _, err := a.e.Providers().RetakeHandler(res.Provider, res.Address.String()); err != nil {
		return nil, err
	}
	a.e.Logger().Warn("starting a new process for a lost state handler, to take its lock again and record what was done",
		logkey.Provider, res.Provider, logkey.Resource, res.Address.String())
	return a.e.ReadState(ctx, res)
}

// notOurs says why u's outcome may not be recorded in state as view now
// holds it, or "". It may only where view still holds the pending
// operation this apply recorded for the object before asking the
// provider: then nothing has recorded anything for it since.
func (a *applier) notOurs(view *statedoc.View, u unrecorded) string {
	addr := u.change.Addr()
	a.lostState.mu.Lock()
	mine, ok := a.lostState.intents[addr]
	a.lostState.mu.Unlock()
	if !ok {
		return "this apply recorded no pending operation for it, so pier cannot tell whether another command has changed its record since; the next apply sends it again"
	}
	now := view.Pending[addr]
	if now == nil || now.Operation != mine.Operation || now.Started != mine.Started {
		return fmt.Sprintf("the state no longer holds this apply's pending %s of it (started %s): another command has recorded it since, or the lost process did before it exited; check that what is recorded is the object this apply made", mine.Operation, mine.Started)
	}
	return ""
}

// alreadyRecorded reports whether view already holds u's outcome, with
// no operation pending: the lost process appended it, and died before it
// answered.
func alreadyRecorded(view *statedoc.View, u unrecorded) bool {
	addr := u.change.Addr()
	if view.Pending[addr] != nil {
		return false
	}
	pb := statedoc.NewPatchBuilder(view.Stored())
	if err := u.build(pb); err != nil {
		return false
	}
	ptr := statedoc.EntryPointer(u.change.Address)
	rec := view.Entries[addr]
	touched := false
	for _, op := range pb.Ops() {
		if op.Path != ptr {
			continue
		}
		touched = true
		switch op.Op {
		case "remove":
			return rec == nil
		case "add", "replace":
			if rec == nil {
				return false
			}
			have, err := json.Marshal(rec.Entry)
			return err == nil && sameJSON(have, op.Value)
		}
	}
	// A destroy of what is not recorded builds no operation on it.
	return !touched && rec == nil && u.event == "destroy"
}

// sameJSON reports whether two JSON texts hold the same value.
func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// notStarted counts a change whose node sent nothing, and whose intent
// retake found cleared or cleared itself, as skipped, not failed: it
// changed nothing.
func (a *applier) notStarted(c *plan.Change) {
	addr := c.Addr()
	a.result.Errors = slices.DeleteFunc(a.result.Errors, func(e *ResourceError) bool { return e.Address == addr })
	if !slices.Contains(a.result.Skipped, addr) {
		a.result.Skipped = append(a.result.Skipped, addr)
	}
	a.e.Emit(engine.Event{Type: engine.EventStatus, Address: addr, Action: c.Action, Status: engine.StatusSkipped, Provider: c.Provider(),
		Err: fmt.Errorf("%w; its pending operation was cleared once the state's lock was held again", a.haltReason())})
}

// recovered counts a change recorded by retake as done, not failed.
func (a *applier) recovered(c *plan.Change) {
	addr := c.Addr()
	a.result.Errors = slices.DeleteFunc(a.result.Errors, func(e *ResourceError) bool { return e.Address == addr })
	a.count(c)
	a.e.Emit(engine.Event{Type: engine.EventStatus, Address: addr, Action: c.Action, Status: engine.StatusApplied, Provider: c.Provider(),
		Message: "recorded once the state's lock was held again"})
}
