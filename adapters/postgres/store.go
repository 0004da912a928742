package postgres

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pierhq/pier/schema"
	"github.com/pierhq/pier/schema/logkey"
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
	// SessionTimeout bounds how long a writer cut off from the server
	// keeps the lock (see session.go); 0 means DefaultSessionTimeout.
	SessionTimeout time.Duration
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
// for writing. Its methods are called one at a time; a writer's pings run
// beside them, under mu.
type Store struct {
	// mu serialises the connection's use by the methods and the pings.
	mu       sync.Mutex
	conn     *pgx.Conn
	schema   string
	key      string
	readOnly bool
	every    int
	log      *slog.Logger

	// doc is the resolved document; nil while encoded holds it, until
	// it is needed (see [Store.document]).
	doc *statefile.Document
	// encoded is the document's compact encoding as the snapshot it was
	// read from holds it, while no event has changed it since (nil
	// otherwise); plain says a state read may send these bytes as they
	// are (see [Store.Encoded]).
	encoded []byte
	plain   bool
	// size is the length of the snapshot's encoding as read, what an
	// encoding of the document is sized for.
	size     int
	last     int64 // index of the last event, -1 before the first
	snapshot int64 // index of the latest snapshot, -1 for none
	// broken is set when an append's outcome is unknown (the connection
	// failed), or the server stopped answering pings: the lock went, or
	// is going, with the session, so nothing more may be written from
	// this process.
	broken error
	// session is the session timeout; an append or a ping that gets no
	// answer within half of it counts the lock as lost.
	session time.Duration
	// stopPings ends the pings; pinging is closed when they have.
	stopPings, pinging chan struct{}
	// heldBy, for a reader, is the session that held the lock when the
	// state was read, with the pier command of its holder row (see
	// [Store.HeldBy]). Nil otherwise.
	heldBy *LockedError
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
	if cfg.SessionTimeout <= 0 {
		cfg.SessionTimeout = DefaultSessionTimeout
	}
	cc, err := connConfig(cfg.Conninfo, cfg.SessionTimeout)
	if err != nil {
		return nil, err
	}
	conn, err := pgx.ConnectConfig(ctx, cc)
	if err != nil {
		return nil, fmt.Errorf("connect to PostgreSQL: %w", err)
	}
	s := &Store{conn: conn, schema: cfg.Schema, key: cfg.Key, readOnly: cfg.ReadOnly, every: cfg.SnapshotEvery, log: cfg.Logger, last: -1, snapshot: -1, session: cfg.SessionTimeout}
	if err := s.open(ctx, cfg); err != nil {
		conn.Close(context.WithoutCancel(ctx))
		return nil, err
	}
	if !s.readOnly {
		s.stopPings, s.pinging = make(chan struct{}), make(chan struct{})
		go s.ping()
	}
	return s, nil
}

// ping keeps a writer's session from ever being idle for the session
// timeout, and finds out when the server no longer answers: then the
// lock is counted as lost (the server ends the session within the
// timeout), and Append refuses.
func (s *Store) ping() {
	defer close(s.pinging)
	t := time.NewTicker(s.session / 4)
	defer t.Stop()
	for {
		select {
		case <-s.stopPings:
			return
		case <-t.C:
		}
		s.mu.Lock()
		if s.broken != nil {
			s.mu.Unlock()
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), s.session/2)
		err := s.conn.Ping(ctx)
		cancel()
		if err != nil {
			s.broken = s.lost(err)
			s.log.Error("PostgreSQL state: the server did not answer; the state lock is lost", logkey.Key, s.key, logkey.Error, err)
		}
		s.mu.Unlock()
	}
}

// lost is the error of a session that failed or stopped answering.
func (s *Store) lost(err error) error {
	return fmt.Errorf("the connection to PostgreSQL was lost, or did not answer within %s, and the state lock with it (%w); nothing more is written from this process: run pier again once the server is reachable", s.session/2, err)
}

func (s *Store) open(ctx context.Context, cfg Config) error {
	if s.readOnly {
		return s.read(ctx, -1)
	}
	if _, err := idleSessionTimeout(ctx, s.conn, cfg.SessionTimeout); err != nil {
		return fmt.Errorf("set idle_session_timeout: %w", err)
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
		s.setDocument(init)
		s.last = 0
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
	// A reader of the current state asks who holds the lock first: this
	// statement fixes the transaction's snapshot, so a holder found here
	// held the lock when every row below was read, and the pending
	// operations they record are its work, not an interrupted run's.
	holder := 0
	if s.readOnly && at < 0 {
		if holder, err = lockBackend(ctx, tx, lockID(s.schema, s.key)); err != nil {
			return fmt.Errorf("read state: %w", err)
		}
	}
	if s.readOnly {
		if err := checkVersion(ctx, tx, s.schema); errors.Is(err, errNoTables) {
			s.setDocument(statefile.NewDocument())
			s.last = -1
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
	var (
		doc     *statefile.Document
		encoded []byte
		plain   bool
	)
	if snapIdx >= 0 {
		// jsonb's text has a space after each colon and comma: without
		// them the snapshot is checked without decoding it, and decoded
		// (two levels deep, its resources kept as their bytes) only once
		// an event is applied to it; a read with no event since the
		// snapshot sends the bytes as they are. On a state of 100,000
		// resources decoding it whole, copying it and encoding it again
		// was most of a no-op apply's wait for its state.
		raw, plain = compactJSON(raw)
		ok, err := statefile.CheckDocument(raw)
		if ok && err == nil {
			encoded = raw
		} else if !ok {
			doc, err = decodeDocument(raw)
		}
		if err != nil {
			return fmt.Errorf("decode snapshot at index %d: %w", snapIdx, err)
		}
		s.size = len(raw)
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
		if doc == nil && encoded != nil {
			doc = decodeSnapshot(encoded)
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
		encoded = nil
		last = idx
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read events: %w", err)
	}
	if doc == nil && encoded == nil {
		doc = statefile.NewDocument()
	}
	s.heldBy = nil
	if holder != 0 {
		le := &LockedError{Key: s.key, BackendPID: holder}
		if _, err := s.holderRow(ctx, tx, le); err != nil {
			return fmt.Errorf("read state: %w", err)
		}
		s.heldBy = le
	}
	s.doc, s.encoded, s.plain, s.last, s.snapshot = doc, encoded, plain, last, snapIdx
	return nil
}

// decodeSnapshot decodes a snapshot's compact encoding that
// [statefile.CheckDocument] accepted, which cannot fail.
func decodeSnapshot(b []byte) *statefile.Document {
	doc, ok, err := statefile.DecodeDocument(b)
	if !ok {
		doc, err = decodeDocument(b)
	}
	if err != nil {
		panic("a checked state snapshot does not decode (" + err.Error() + "): this is a bug in pier")
	}
	return doc
}

// document returns the resolved document, decoding the snapshot it was
// read from the first time it is needed.
func (s *Store) document() *statefile.Document {
	if s.doc == nil {
		s.doc = decodeSnapshot(s.encoded)
	}
	return s.doc
}

// setDocument replaces the resolved document.
func (s *Store) setDocument(doc *statefile.Document) { s.doc, s.encoded = doc, nil }

// compactJSON removes the white space outside strings from b, valid JSON
// (as PostgreSQL writes a jsonb value as text), in place, and reports
// whether the result is plain: without a character that [schema.AppendJSON]
// escapes and PostgreSQL does not (<, >, &, U+2028, U+2029), so that the
// bytes are, but for the order of object members, what encoding the
// decoded document gives. (The other escapes agree: both write \b, \f,
// \n, \r, \t, \" and \\, and \u00xx for the other control characters.)
func compactJSON(b []byte) (_ []byte, plain bool) {
	plain = true
	w := 0
	inString := false
	for r := 0; r < len(b); r++ {
		c := b[r]
		switch {
		case inString:
			switch c {
			case '"':
				inString = false
			case '\\':
				if r+1 < len(b) {
					b[w] = c
					w++
					r++
					c = b[r]
				}
			case '<', '>', '&':
				plain = false
			case 0xE2:
				if r+2 < len(b) && b[r+1] == 0x80 && b[r+2]&^1 == 0xA8 {
					plain = false
				}
			}
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			continue
		case c == '"':
			inString = true
		}
		b[w] = c
		w++
	}
	return b[:w], plain
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
func (s *Store) State() map[string]any { return s.document().State() }

// Encoded returns the resolved document's encoding, one compact JSON
// object: the snapshot's bytes as read while no event followed it, else
// the document encoded (its resources not reached by an event copied as
// read). The caller must not change it.
func (s *Store) Encoded() ([]byte, error) {
	if s.encoded != nil && s.plain {
		return s.encoded, nil
	}
	return s.document().AppendJSON(make([]byte, 0, s.size+s.size/8+4096))
}

// HeldBy is, for a reader, the session that held the state's lock when
// the state was read, and the pier command that took it; nil for a writer
// or when no session held it. The command is empty (PID 0) when its
// holder row was not written yet.
func (s *Store) HeldBy() *LockedError { return s.heldBy }

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
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.readOnly:
		return 0, ErrReadOnly
	case s.broken != nil:
		return 0, s.broken
	}
	if meta.Time == "" {
		meta.Time = now()
	}
	if err := s.document().Apply(patch); err != nil {
		return 0, err
	}
	s.encoded = nil
	idx := s.last + 1
	// An answer later than half the session timeout may come after the
	// server ended the session: pier gives up first.
	ictx, cancel := context.WithTimeout(ctx, s.session/2)
	err := s.insert(ictx, idx, meta, patch)
	cancel()
	if err != nil {
		// The outcome of the commit is unknown, and a broken session took
		// the lock with it: stop writing. A new process rereads the log.
		if s.conn.IsClosed() {
			err = s.lost(err)
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
	raw, err := s.Encoded()
	if err != nil {
		return err
	}
	if _, err := s.conn.Exec(ctx, "INSERT INTO "+s.table("snapshots")+" (state_key, idx, state) VALUES ($1, $2, $3::jsonb) ON CONFLICT DO NOTHING", s.key, s.last, string(raw)); err != nil {
		return fmt.Errorf("write snapshot at index %d: %w", s.last, err)
	}
	s.log.Debug("state snapshot written", logkey.Key, s.key, logkey.Index, s.last)
	s.snapshot = s.last
	return nil
}

// Close takes a snapshot if one is due, and ends the session, which
// releases the lock.
func (s *Store) Close(ctx context.Context) error {
	if s.stopPings != nil {
		close(s.stopPings)
		<-s.pinging
		s.stopPings = nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
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
