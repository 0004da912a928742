package engine

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"github.com/pierhq/pier/host/execgraph"
	"github.com/pierhq/pier/schema/logkey"
)

//go:generate go tool stringer -type EventType,Status -linecomment

// EventType says what an [Event] reports.
type EventType int

// The event types.
const (
	EventInvalid EventType = iota // invalid
	// EventStatus is a resource moving to a new [Status].
	EventStatus // status
	// EventLog is a line a provider wrote to stderr while working on a
	// resource.
	EventLog // log
	// EventEvaluation is one evaluation round of the deployment source.
	EventEvaluation // evaluation
)

// MarshalText renders the type by name.
func (t EventType) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// Status is where one resource's operation stands. Operations move from
// PENDING through APPLYING to APPLIED or ERRORED; SKIPPED ones never ran.
type Status int

// The statuses.
const (
	StatusInvalid  Status = iota // INVALID
	StatusPending                // PENDING
	StatusApplying               // APPLYING
	StatusApplied                // APPLIED
	StatusErrored                // ERRORED
	StatusSkipped                // SKIPPED
	// StatusRefreshing and StatusRefreshed bracket a refresh's read of
	// one recorded object (pier plan --refresh); see refresh.go.
	StatusRefreshing // REFRESHING
	StatusRefreshed  // REFRESHED
)

// MarshalText renders the status by name.
func (s Status) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Event is one step of progress, for the terminal view and `--json`.
type Event struct {
	Time time.Time
	Type EventType
	// Address is the change's as people read it ([Change.Addr]): a
	// deposed object's says so.
	Address string
	// Deposed is the key of the deposed object the change destroys, if
	// it is one; see [Event.ResourceAddress].
	Deposed  string
	Action   execgraph.Action
	Status   Status
	Provider string
	// Elapsed is how long the operation (or evaluation round) took.
	Elapsed time.Duration
	// Err is set for ERRORED, and says why for SKIPPED.
	Err error
	// Message is a provider's stderr line, or a note.
	Message string
	// Level is the level of a log line.
	Level slog.Level
	// Round is the evaluation round of an EventEvaluation.
	Round int
}

// ResourceAddress is the address of the resource the event is about,
// without the deposed object's key that Address shows.
func (ev Event) ResourceAddress() string {
	if ev.Deposed == "" {
		return ev.Address
	}
	return strings.TrimSuffix(ev.Address, DeposedSuffix(ev.Deposed))
}

// LogHandler returns a slog handler that turns records about a resource
// (provider stderr lines, which carry a "resource" attribute) at level min
// or above into [EventLog] events, and passes every other record to next.
// The engine's Config.Logger can use it so that stderr appears under the
// resource it belongs to.
func LogHandler(events func(Event), min slog.Level, next slog.Handler) slog.Handler {
	return &logHandler{events: events, min: min, next: next}
}

type logHandler struct {
	events func(Event)
	min    slog.Level
	next   slog.Handler
	attrs  []slog.Attr
}

func (h *logHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.min || h.next.Enabled(ctx, l)
}

func (h *logHandler) Handle(ctx context.Context, r slog.Record) error {
	ev := Event{Time: r.Time, Type: EventLog, Message: r.Message, Level: r.Level}
	visit := func(a slog.Attr) bool {
		switch a.Key {
		case logkey.Resource:
			ev.Address = a.Value.String()
		case logkey.Provider:
			ev.Provider = a.Value.String()
		}
		return true
	}
	for _, a := range h.attrs {
		visit(a)
	}
	r.Attrs(visit)
	if ev.Address == "" {
		if h.next.Enabled(ctx, r.Level) {
			return h.next.WithAttrs(h.attrs).Handle(ctx, r)
		}
		return nil
	}
	if r.Level >= h.min {
		h.events(ev)
	}
	return nil
}

func (h *logHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &logHandler{events: h.events, min: h.min, next: h.next, attrs: append(append([]slog.Attr{}, h.attrs...), attrs...)}
}

func (h *logHandler) WithGroup(name string) slog.Handler {
	return &logHandler{events: h.events, min: h.min, next: h.next.WithGroup(name), attrs: h.attrs}
}

// DeposedSuffix is what an address says of a deposed object: its key.
func DeposedSuffix(key string) string { return " (deposed " + key + ")" }
