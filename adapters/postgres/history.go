package postgres

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/pierhq/pier/schema"
	"github.com/pierhq/pier/statefile"
)

// Event is one stored event, as `pier state history` lists it and as a
// state_file log holds it.
type Event = statefile.Event

// Events returns the log, oldest first, in one consistent snapshot.
func (s *Store) Events(ctx context.Context) ([]Event, error) { return s.EventsAfter(ctx, -1) }

// EventsAfter returns the events after index after, oldest first: a
// reader that follows the log (pier ui) asks only for what landed since
// it last looked, so each look costs the new events, not the log.
func (s *Store) EventsAfter(ctx context.Context, after int64) ([]Event, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rows, err := s.conn.Query(ctx, "SELECT idx, meta::text, patch::text FROM "+s.table("events")+" WHERE state_key = $1 AND idx > $2 ORDER BY idx", s.key, after)
	if err != nil {
		if s.readOnly && s.last < 0 {
			return nil, nil // nothing was ever recorded: there may be no tables
		}
		return nil, fmt.Errorf("read events of %q: %w", s.key, err)
	}
	defer rows.Close()
	var out []Event
	for rows.Next() {
		var (
			ev          Event
			meta, patch []byte
		)
		if err := rows.Scan(&ev.Index, &meta, &patch); err != nil {
			return nil, fmt.Errorf("read events of %q: %w", s.key, err)
		}
		if err := json.Unmarshal(meta, &ev.Meta); err != nil {
			return nil, fmt.Errorf("decode meta of event %d: %w", ev.Index, err)
		}
		if err := json.Unmarshal(patch, &ev.Patch); err != nil {
			return nil, fmt.Errorf("decode patch of event %d: %w", ev.Index, err)
		}
		out = append(out, ev)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read events of %q: %w", s.key, err)
	}
	return out, nil
}

// StateAt returns the state as it was after event index: the latest
// snapshot at or before it, plus the events up to it.
func (s *Store) StateAt(ctx context.Context, index int64) (map[string]any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if index < 0 {
		return nil, fmt.Errorf("index %d: indexes start at 0", index)
	}
	at := &Store{conn: s.conn, schema: s.schema, key: s.key, readOnly: true, log: s.log}
	if err := at.read(ctx, index); err != nil {
		return nil, err
	}
	if at.last != index {
		if s.last < 0 {
			return nil, fmt.Errorf("state %q records no events yet", s.key)
		}
		return nil, fmt.Errorf("state %q has no event %d (its last is %d)", s.key, index, s.last)
	}
	return at.State(), nil
}

// Import appends a log read from elsewhere (a state_file, a backup) to a
// state that records nothing yet. Its initialising event is the one this
// state already has; the others are renumbered after it, so indexes
// increase even where the source's did not (NixOps4 writes 0 on every
// event). All of it is recorded, in one transaction, or none.
func (s *Store) Import(ctx context.Context, events []Event) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.readOnly:
		return ErrReadOnly
	case s.broken != nil:
		return s.broken
	case s.last != 0:
		return fmt.Errorf("state %q already has %d event(s) after its first: push only into an empty state", s.key, s.last)
	case len(events) == 0 || !isInitEvent(events[0].Patch):
		return fmt.Errorf("the log does not start with an initialising event")
	}
	doc := statefile.NewDocument()
	if err := initDocument(doc, events[0].Patch); err != nil {
		return fmt.Errorf("event 0: %w", err)
	}
	tx, err := s.conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx) //nolint:errcheck // a no-op after Commit
	if len(events[0].Patch) > 1 || !isEmpty(doc) {
		return fmt.Errorf("the log's initialising event does more than create the empty state")
	}
	for i, ev := range events[1:] {
		idx := int64(i + 1)
		if err := doc.Apply(ev.Patch); err != nil {
			return fmt.Errorf("event %d (index %d in the log): %w", i+1, ev.Index, err)
		}
		mj, err := json.Marshal(ev.Meta)
		if err != nil {
			return err
		}
		p := ev.Patch
		if p == nil {
			p = schema.Patch{}
		}
		pj, err := json.Marshal(p)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "INSERT INTO "+s.table("events")+" (state_key, idx, event, meta, patch) VALUES ($1, $2, $3, $4::jsonb, $5::jsonb)",
			s.key, idx, ev.Meta.Event, string(mj), string(pj)); err != nil {
			return fmt.Errorf("insert event %d: %w", idx, err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return err
	}
	s.setDocument(doc)
	s.last = int64(len(events) - 1)
	return s.maybeSnapshot(ctx)
}

func isInitEvent(p schema.Patch) bool { return len(p) > 0 && p[0].Op == "add" && p[0].Path == "" }

func isEmpty(d *statefile.Document) bool {
	for range schema.StateResources(d.State()) {
		return false
	}
	return true
}
