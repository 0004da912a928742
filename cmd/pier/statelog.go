package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/pierhq/pier/adapters/postgres"
	"github.com/pierhq/pier/host/engine"
	"github.com/pierhq/pier/statefile"
)

// stateLog is a state handler's event log, reached directly rather than
// through the v0 state contract, which has no message for history: the
// history and show --at commands read it, pull and push copy it. pier
// knows the logs of its own state types, state_file and pg_state.
type stateLog interface {
	// history lists the events, oldest first.
	history(ctx context.Context) ([]historyRow, error)
	// stateAt is the document as it was after event index.
	stateAt(ctx context.Context, index int64) (map[string]any, error)
	// pull writes the log in state_file form: one event per line.
	pull(ctx context.Context, w io.Writer) error
	// push imports a log into a state that records nothing yet.
	push(ctx context.Context, events []statefile.Event) error
	close() error
}

// historyRow is one event as pier state history lists it.
type historyRow struct {
	Index   int64    `json:"index"`
	Time    string   `json:"time"`
	Event   string   `json:"event"`
	Touched []string `json:"touched"`
}

// openStateLog opens h's log: read-only (no lock) unless write.
func openStateLog(ctx context.Context, h engine.Handler, write bool) (stateLog, error) {
	switch {
	case h.Builtin == "local" && h.Type == "state_file":
		name, _ := h.Inputs["name"].(string)
		if name == "" {
			return nil, fmt.Errorf("state handler %s: state_file has no name input", h.Address)
		}
		if !filepath.IsAbs(name) {
			name = filepath.Join(h.Dir, name)
		}
		return &fileLog{path: name}, nil
	case h.Builtin == "postgres" && h.Type == postgres.StateType:
		var in postgres.Inputs
		b, err := json.Marshal(h.Inputs)
		if err == nil {
			err = json.Unmarshal(b, &in)
		}
		if err != nil {
			return nil, fmt.Errorf("state handler %s: inputs: %w", h.Address, err)
		}
		s, err := postgres.Open(ctx, postgres.Config{Conninfo: in.Conninfo, Schema: in.Schema, Key: in.Key, ReadOnly: !write})
		if err != nil {
			return nil, fmt.Errorf("state handler %s: %w", h.Address, err)
		}
		return &pgLog{s: s}, nil
	}
	return nil, fmt.Errorf("state handler %s (provider %s, type %s) is not one of pier's own state types (state_file, pg_state), so pier cannot read its log", h.Address, h.Provider, h.Type)
}

// pickHandler chooses the handler --state names, or the only one.
func pickHandler(handlers map[string]engine.Handler, name string) (engine.Handler, error) {
	if name != "" {
		h, ok := handlers[name]
		if !ok {
			return engine.Handler{}, fmt.Errorf("%s is not a state handler of this deployment", name)
		}
		return h, nil
	}
	switch len(handlers) {
	case 0:
		return engine.Handler{}, errors.New("the deployment has no state handler")
	case 1:
		for _, h := range handlers {
			return h, nil
		}
	}
	names := slices.Sorted(maps.Keys(handlers))
	return engine.Handler{}, usagef("the deployment has several state handlers (%v): name one with --state", names)
}

// fileLog is a state_file's log. Reading it takes no lock: the writer
// appends whole lines, and a torn last one is reported, not applied.
type fileLog struct{ path string }

func (f *fileLog) read() ([]byte, *statefile.Replayed, error) {
	data, err := statefile.ReadFile(f.path)
	if err != nil {
		return nil, nil, fmt.Errorf("read state file: %w", err)
	}
	rep, err := statefile.Replay(bytes.NewReader(data))
	if err != nil {
		return nil, nil, fmt.Errorf("state file %s: %w", f.path, err)
	}
	return data, rep, nil
}

func (f *fileLog) history(context.Context) ([]historyRow, error) {
	if _, err := os.Stat(f.path); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	_, rep, err := f.read()
	if err != nil {
		return nil, err
	}
	rows := make([]historyRow, len(rep.Events))
	for i, r := range rep.Events {
		rows[i] = historyRow{Index: r.Index, Time: r.Meta.Time, Event: r.Meta.Event, Touched: r.Paths}
	}
	return rows, nil
}

func (f *fileLog) stateAt(_ context.Context, index int64) (map[string]any, error) {
	data, rep, err := f.read()
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(rep.Events, func(r statefile.Record) bool { return r.Index == index })
	if i < 0 {
		return nil, fmt.Errorf("state file %s has no event %d (its last is %d)", f.path, index, rep.LastIndex)
	}
	end := rep.End
	if i+1 < len(rep.Events) {
		end = rep.Events[i+1].Offset
	}
	at, err := statefile.Replay(bytes.NewReader(data[:end]))
	if err != nil {
		return nil, fmt.Errorf("state file %s up to event %d: %w", f.path, index, err)
	}
	return at.State, nil
}

func (f *fileLog) pull(_ context.Context, w io.Writer) error {
	data, rep, err := f.read()
	if err != nil {
		return err
	}
	_, err = w.Write(data[:rep.End])
	return err
}

func (f *fileLog) push(_ context.Context, events []statefile.Event) error {
	if _, err := os.Stat(f.path); err == nil {
		_, rep, err := f.read()
		if err != nil {
			return err
		}
		if len(rep.Events) > 1 {
			return fmt.Errorf("state file %s already has %d event(s) after its first: push only into an empty state", f.path, len(rep.Events)-1)
		}
	}
	l, err := statefile.Open(f.path, statefile.Options{})
	if err != nil {
		return err
	}
	defer l.Close()
	if l.Events() > 1 {
		return fmt.Errorf("state file %s is no longer empty", f.path)
	}
	for _, ev := range events[1:] {
		if _, err := l.Append(ev.Meta, ev.Patch); err != nil {
			return err
		}
	}
	return l.Close()
}

func (f *fileLog) close() error { return nil }

// pgLog is a pg_state's log.
type pgLog struct{ s *postgres.Store }

func (p *pgLog) history(ctx context.Context) ([]historyRow, error) { return p.after(ctx, -1) }

// after lists the events after index, as history does.
func (p *pgLog) after(ctx context.Context, index int64) ([]historyRow, error) {
	evs, err := p.s.EventsAfter(ctx, index)
	if err != nil {
		return nil, err
	}
	rows := make([]historyRow, len(evs))
	for i, ev := range evs {
		rows[i] = historyRow{Index: ev.Index, Time: ev.Meta.Time, Event: ev.Meta.Event, Touched: statefile.Paths(ev.Patch)}
	}
	return rows, nil
}

func (p *pgLog) stateAt(ctx context.Context, index int64) (map[string]any, error) {
	return p.s.StateAt(ctx, index)
}

func (p *pgLog) pull(ctx context.Context, w io.Writer) error {
	evs, err := p.s.Events(ctx)
	if err != nil {
		return err
	}
	for _, ev := range evs {
		b, err := json.Marshal(ev)
		if err != nil {
			return err
		}
		if _, err := w.Write(append(b, '\n')); err != nil {
			return err
		}
	}
	return nil
}

func (p *pgLog) push(ctx context.Context, events []statefile.Event) error {
	return p.s.Import(ctx, events)
}

func (p *pgLog) close() error { return p.s.Close(context.Background()) }

// readLog reads a state_file-form log (a backup, or another handler's
// pull) into its events, refusing one that does not replay cleanly.
func readLog(data []byte) ([]statefile.Event, error) {
	rep, err := statefile.Replay(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	if rep.Torn != nil {
		return nil, fmt.Errorf("the log ends in a torn event at %s; repair it first (pier statefile verify)", rep.Torn.Position)
	}
	dec := json.NewDecoder(bytes.NewReader(data[:rep.End]))
	dec.UseNumber()
	var out []statefile.Event
	for dec.More() {
		var ev statefile.Event
		if err := dec.Decode(&ev); err != nil {
			return nil, fmt.Errorf("decode event %d: %w", len(out), err)
		}
		out = append(out, ev)
	}
	return out, nil
}
