package postgres

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pierhq/pier/schema"
	"github.com/pierhq/pier/statefile"
)

// Config configures [Open].
type Config struct {
	// Conninfo adds to libpq's environment (see connConfig); it must not
	// hold a password.
	Conninfo string
	// Schema holds the tables; "" means "pier".
	Schema string
	// Key names the deployment's state among those in the schema.
	Key string
	// ReadOnly opens without the lock, for readers: Append is refused and
	// the state is one consistent snapshot taken at Open.
	ReadOnly bool
	// Holder is recorded while a writer holds the lock; zero means
	// [ThisHolder].
	Holder Holder
	// SnapshotEvery is how many events may follow the latest snapshot
	// before a writer takes a new one (at Open and Close, never inside an
	// Append, whose cost must not grow with the state); 0 means
	// defaultSnapshotEvery.
	SnapshotEvery int
	// Logger receives lifecycle messages; nil discards them.
	Logger *slog.Logger
}

// defaultSnapshotEvery keeps a read to one snapshot plus at most about a
// hundred events, while a snapshot (a write of the whole state) is taken
// rarely.
const defaultSnapshotEvery = 100

// DefaultSchema is the PostgreSQL schema that holds pier's tables unless a
// pg_state says otherwise.
const DefaultSchema = "pier"

// Store is one state key's log, open for reading or (holding the lock)
// for writing. Its methods are called one at a time.
type Store struct {
	conn     *pgx.Conn
	schema   string
	key      string
	readOnly bool
	every    int
	log      *slog.Logger

	doc      *statefile.Document
	last     int64 // index of the last event, -1 before the first
	snapshot int64 // index of the latest snapshot, -1 for none
	// broken is set when an append's outcome is unknown (the connection
	// failed): the lock went with the session, so nothing more may be
	// written from this process.
	broken error
}

// Open connects, and for a writer migrates the tables, takes the state
// key's lock (a *LockedError when another session holds it), writes the
// initialising event of a new log, and reads the state.
func Open(ctx context.Context, cfg Config) (*Store, error) {
	if cfg.Key == "" {
		return nil, errors.New("the state key must not be empty")
	}
	if cfg.Schema == "" {
		cfg.Schema = DefaultSchema
	}
	if cfg.SnapshotEvery <= 0 {
		cfg.SnapshotEvery = defaultSnapshotEvery
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	cc, err := connConfig(cfg.Conninfo)
	if err != nil {
		return nil, err
	}
	conn, err := pgx.ConnectConfig(ctx, cc)
	if err != nil {
		return nil, fmt.Errorf("connect to PostgreSQL: %w", err)
	}
	s := &Store{conn: conn, schema: cfg.Schema, key: cfg.Key, readOnly: cfg.ReadOnly, every: cfg.SnapshotEvery, log: cfg.Logger, last: -1, snapshot: -1}
	if err := s.open(ctx, cfg); err != nil {
		conn.Close(context.WithoutCancel(ctx))
		return nil, err
	}
	return s, nil
}

func (s *Store) open(ctx context.Context, cfg Config) error {
	if s.readOnly {
		return s.read(ctx, -1)
	}
	if err := migrate(ctx, s.conn, s.schema); err != nil {
		return err
	}
	h := cfg.Holder
	if h == (Holder{}) {
		h = ThisHolder()
	}
	if err := s.lock(ctx, h); err != nil {
		return err
	}
	if err := s.read(ctx, -1); err != nil {
		return err
	}
	if s.last < 0 {
		init := statefile.NewDocument()
		raw, _ := init.MarshalJSON() // a fresh document always encodes
		patch := schema.Patch{{Op: "add", Path: "", Value: raw}}
		if err := s.insert(ctx, 0, statefile.Meta{Time: now()}, patch); err != nil {
			return fmt.Errorf("write the initialising event: %w", err)
		}
		s.doc, s.last = init, 0
	}
	return s.maybeSnapshot(ctx)
}

func now() string { return time.Now().UTC().Format(time.RFC3339Nano) }

func (s *Store) table(name string) string { return pgx.Identifier{s.schema, name}.Sanitize() }

// read loads the state as of event at (-1: the last) from the latest
// snapshot at or before it plus the events after that, in one consistent
// snapshot of the database.
func (s *Store) read(ctx context.Context, at int64) error {
	tx, err := s.conn.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return fmt.Errorf("read state: %w", err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // read-only
	if s.readOnly {
		if err := checkVersion(ctx, tx, s.schema); errors.Is(err, errNoTables) {
			s.doc, s.last = statefile.NewDocument(), -1
			return nil
		} else if err != nil {
			return err
		}
	}
	limit := int64(1<<63 - 1)
	if at >= 0 {
		limit = at
	}
	var (
		snapIdx int64 = -1
		raw     []byte
	)
	err = tx.QueryRow(ctx, "SELECT idx, state::text FROM "+s.table("snapshots")+" WHERE state_key = $1 AND idx <= $2 ORDER BY idx DESC LIMIT 1", s.key, limit).Scan(&snapIdx, &raw)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		snapIdx = -1
	case err != nil:
		return fmt.Errorf("read snapshot: %w", err)
	}
	var doc *statefile.Document
	if snapIdx >= 0 {
		if doc, err = decodeDocument(raw); err != nil {
			return fmt.Errorf("decode snapshot at index %d: %w", snapIdx, err)
		}
	}
	last := snapIdx
	rows, err := tx.Query(ctx, "SELECT idx, patch::text FROM "+s.table("events")+" WHERE state_key = $1 AND idx > $2 AND idx <= $3 ORDER BY idx", s.key, snapIdx, limit)
	if err != nil {
		return fmt.Errorf("read events: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			idx   int64
			praw  []byte
			patch schema.Patch
		)
		if err := rows.Scan(&idx, &praw); err != nil {
			return fmt.Errorf("read events: %w", err)
		}
		if err := json.Unmarshal(praw, &patch); err != nil {
			return fmt.Errorf("decode event %d: %w", idx, err)
		}
		if doc == nil {
			if idx != 0 {
				return fmt.Errorf("state %q has no initialising event (its first is index %d)", s.key, idx)
			}
			doc = &statefile.Document{}
			if err := initDocument(doc, patch); err != nil {
				return fmt.Errorf("event 0: %w", err)
			}
		} else if err := doc.Apply(patch); err != nil {
			return fmt.Errorf("apply event %d of state %q: %w", idx, s.key, err)
		}
		last = idx
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read events: %w", err)
	}
	if doc == nil {
		doc = statefile.NewDocument()
	}
	s.doc, s.last, s.snapshot = doc, last, snapIdx
	return nil
}

// initDocument applies the initialising event, which adds the whole
// document at "" (replacing a Document's zero value).
func initDocument(doc *statefile.Document, patch schema.Patch) error {
	if len(patch) == 0 || patch[0].Op != "add" || patch[0].Path != "" {
		return errors.New("the initialising event must add the state document at path \"\"")
	}
	d, err := decodeDocument(patch[0].Value)
	if err != nil {
		return err
	}
	*doc = *d
	return doc.Apply(patch[1:])
}

func decodeDocument(raw []byte) (*statefile.Document, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	return statefile.DocumentOf(m)
}

// State returns a copy of the resolved document.
func (s *Store) State() map[string]any { return s.doc.State() }

// LastIndex is the index of the last event read or appended.
func (s *Store) LastIndex() int64 { return s.last }

// ErrReadOnly is returned by Append on a store opened for reading.
var ErrReadOnly = errors.New("the state was opened read-only (PIER_STATE_READ_ONLY is set), for a command that must not change it")

// Append records patch as the next event. The patch is applied in memory
// first, so one that does not apply is refused and nothing is written;
// the insert is committed (and so durable, with PostgreSQL's default
// synchronous_commit) when Append returns. Its cost follows the patch,
// not the state.
func (s *Store) Append(ctx context.Context, meta statefile.Meta, patch schema.Patch) (int64, error) {
	switch {
	case s.readOnly:
		return 0, ErrReadOnly
	case s.broken != nil:
		return 0, s.broken
	}
	if meta.Time == "" {
		meta.Time = now()
	}
	if err := s.doc.Apply(patch); err != nil {
		return 0, err
	}
	idx := s.last + 1
	if err := s.insert(ctx, idx, meta, patch); err != nil {
		// The outcome of the commit is unknown, and a broken session took
		// the lock with it: stop writing. A new process rereads the log.
		if s.conn.IsClosed() {
			err = fmt.Errorf("the connection to PostgreSQL was lost, and the state lock with it (%w); run pier again once the server is reachable", err)
		}
		s.broken = fmt.Errorf("an earlier append (event %d) failed, and whether it was recorded is unknown: %w", idx, err)
		return 0, fmt.Errorf("append event %d: %w", idx, err)
	}
	s.last = idx
	return idx, nil
}

func (s *Store) insert(ctx context.Context, idx int64, meta statefile.Meta, patch schema.Patch) error {
	if patch == nil {
		patch = schema.Patch{}
	}
	mj, err := json.Marshal(meta)
	if err != nil {
		return err
	}
	pj, err := json.Marshal(patch)
	if err != nil {
		return err
	}
	_, err = s.conn.Exec(ctx, "INSERT INTO "+s.table("events")+" (state_key, idx, event, meta, patch) VALUES ($1, $2, $3, $4::jsonb, $5::jsonb)",
		s.key, idx, meta.Event, string(mj), string(pj))
	return err
}

// maybeSnapshot writes a snapshot when enough events follow the latest.
func (s *Store) maybeSnapshot(ctx context.Context) error {
	if s.readOnly || s.broken != nil || s.last-max(s.snapshot, 0) < int64(s.every) {
		return nil
	}
	raw, err := s.doc.MarshalJSON()
	if err != nil {
		return err
	}
	if _, err := s.conn.Exec(ctx, "INSERT INTO "+s.table("snapshots")+" (state_key, idx, state) VALUES ($1, $2, $3::jsonb) ON CONFLICT DO NOTHING", s.key, s.last, string(raw)); err != nil {
		return fmt.Errorf("write snapshot at index %d: %w", s.last, err)
	}
	s.log.Debug("state snapshot written", "key", s.key, "index", s.last)
	s.snapshot = s.last
	return nil
}

// Close takes a snapshot if one is due, and ends the session, which
// releases the lock.
func (s *Store) Close(ctx context.Context) error {
	if s.conn == nil {
		return nil
	}
	err := s.maybeSnapshot(ctx)
	if !s.readOnly && s.broken == nil {
		// Unlock before hanging up: the server ends a closed session
		// asynchronously, and the next pier run must not find the lock
		// still held by a process that has exited.
		if _, uerr := s.conn.Exec(ctx, "SELECT pg_advisory_unlock($1)", lockID(s.schema, s.key)); err == nil {
			err = uerr
		}
	}
	if cerr := s.conn.Close(ctx); err == nil {
		err = cerr
	}
	s.conn = nil
	return err
}
