package webview

import (
	"context"
	"encoding/json"
	"maps"
	"slices"

	"strings"
	"time"

	"github.com/pierhq/pier/schema"
	"github.com/pierhq/pier/schema/logkey"
)

// FollowEvery is how often pier ui looks for state events that another
// process (a teammate's pier apply on a shared pg_state) recorded, while
// a page is open.
const FollowEvery = time.Second

// LogTail follows state logs from where they stood when it was opened.
type LogTail interface {
	// Landed returns, by handler address, the events recorded since the
	// last call (the first: since the tail was opened), oldest first.
	// Its cost follows the number of new events, not the log.
	Landed(ctx context.Context) (map[string][]HistoryEvent, error)
	Close() error
}

// LogFollower is a [StateLogs] that can follow its logs as others write
// them.
type LogFollower interface {
	Tail(ctx context.Context) (LogTail, error)
}

// stateEventJSON is a state event that landed while the page was open:
// pier state history --json's object, with the state it is in and the
// status it gives each resource instance it touched. Touched paths name
// resources, never values, so there is nothing to redact.
type stateEventJSON struct {
	MessageType string `json:"message_type"` // "state_event"
	State       string `json:"state"`
	HistoryEvent
	Statuses map[string]string `json:"statuses"`
}

// keepLanded bounds the state events kept for streams that lag.
const keepLanded = 1000

// watchLogs counts an open event stream; while there is one, the server
// follows the state logs. The returned func ends the count.
func (s *Server) watchLogs() func() {
	f, ok := s.opts.Logs.(LogFollower)
	if !ok {
		return func() {}
	}
	s.followMu.Lock()
	defer s.followMu.Unlock()
	s.followers++
	if s.followers == 1 {
		ctx, cancel := context.WithCancel(context.Background())
		s.stopFollow = cancel
		go s.follow(ctx, f)
	}
	return func() {
		s.followMu.Lock()
		defer s.followMu.Unlock()
		s.followers--
		if s.followers == 0 {
			s.stopFollow()
		}
	}
}

func (s *Server) follow(ctx context.Context, f LogFollower) {
	tick := time.NewTicker(FollowEvery)
	defer tick.Stop()
	var tail LogTail
	defer func() {
		if tail != nil {
			tail.Close()
		}
	}()
	// The tail opens at once, so that it starts where the page's first
	// reads did; until it can (the database may be down), at each tick.
	open := func() bool {
		t, err := f.Tail(ctx)
		if err != nil {
			if ctx.Err() == nil {
				s.log.Warn("pier ui: follow the state logs", logkey.Error, err)
			}
			return false
		}
		tail = t
		return true
	}
	open()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if tail == nil && !open() {
			continue
		}
		// What a tail returns with an error is still news: it has moved
		// past it.
		landed, err := tail.Landed(ctx)
		if err != nil && ctx.Err() == nil {
			s.log.Warn("pier ui: follow the state logs", logkey.Error, err)
		}
		for _, h := range slices.Sorted(maps.Keys(landed)) {
			for _, ev := range landed[h] {
				s.runs.land(stateEventJSON{MessageType: "state_event", State: h, HistoryEvent: ev, Statuses: touchedStatuses(ev.Touched)})
			}
		}
	}
}

// land sends a state event to every open stream.
func (rs *runs) land(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.landed = append(rs.landed, b)
	if len(rs.landed) > keepLanded {
		n := len(rs.landed) - keepLanded
		rs.landed = append(rs.landed[:0:0], rs.landed[n:]...)
		rs.landedBase += n
	}
	rs.notify()
}

// touchedStatuses is what an event says of the instances it touched: one
// that only gained or lost a pending operation is applying (pier records
// the intent before it calls the provider); one whose entry changed is
// applied.
func touchedStatuses(paths []string) map[string]string {
	out := map[string]string{}
	for _, p := range paths {
		addr, pending := instanceOf(p)
		if addr == "" {
			continue
		}
		if !pending {
			out[addr] = "applied"
		} else if out[addr] == "" {
			out[addr] = "applying"
		}
	}
	return out
}

// instanceOf is the instance address a state document's JSON Pointer is
// in (see source.Address.StateKey), and whether it is its pending
// operation; "" for other paths.
func instanceOf(p string) (addr string, pending bool) {
	segs, err := schema.ParsePointer(p)
	if err != nil {
		return "", false
	}
	if len(segs) >= 2 && segs[0] == schema.PendingOperationsKey {
		return segs[1], true
	}
	var names []string
	for len(segs) >= 2 {
		switch segs[0] {
		case schema.DeploymentsKey:
			names = append(names, segs[1])
			segs = segs[2:]
		case schema.ResourcesKey:
			return strings.Join(append(names, segs[1]), "."), false
		default:
			return "", false
		}
	}
	return "", false
}
