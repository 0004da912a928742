package postgres

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pierhq/pier/internal/lockholder"
	"github.com/pierhq/pier/statefile"
)

// LockedError reports that another session holds a state key's lock. The
// holder fields come from its holder row; they are empty when the row
// does not match the session that holds the lock (a holder that was just
// starting, or one that predates the row).
type LockedError struct {
	Key        string
	BackendPID int // the holding PostgreSQL session
	PID        int // the pier command that holds it
	Command    string
	User       string
	Host       string
	Since      time.Time
}

func (e *LockedError) Error() string {
	if e.PID == 0 {
		return fmt.Sprintf("PostgreSQL state %q is locked by another session (PostgreSQL backend pid %d)", e.Key, e.BackendPID)
	}
	return fmt.Sprintf("PostgreSQL state %q is locked by pid %d (%s) of %s on %s since %s (PostgreSQL backend pid %d)",
		e.Key, e.PID, e.Command, e.User, e.Host, e.Since.UTC().Format(time.RFC3339), e.BackendPID)
}

// StateLocked marks the error as a lock conflict for the protocol; see
// schema.StateLockedPrefix.
func (e *LockedError) StateLocked() bool { return true }

// Holder is what a writer records about itself while it holds a lock.
type Holder = statefile.Holder

// ThisHolder describes the pier command this process serves (see
// [lockholder.Current]): its command line keeps no values, since a --var
// value may be a secret.
func ThisHolder() Holder { return lockholder.Current() }

// lockID is the advisory lock key of a state key within a schema: 64 bits
// of a hash, so different deployments' keys do not contend.
func lockID(schema, key string) int64 {
	sum := sha256.Sum256([]byte("pier state\x00" + schema + "\x00" + key))
	return int64(binary.BigEndian.Uint64(sum[:8]))
}

// holderRetries bounds how long a refused locker waits for the holder's
// row: the holder writes it right after taking the lock.
const (
	holderRetries = 20
	holderRetry   = 10 * time.Millisecond
)

// lock takes the state key's session lock on conn and records h as its
// holder, or returns a *LockedError.
func (s *Store) lock(ctx context.Context, h Holder) error {
	id := lockID(s.schema, s.key)
	var ok bool
	if err := s.conn.QueryRow(ctx, "SELECT pg_try_advisory_lock($1)", id).Scan(&ok); err != nil {
		return fmt.Errorf("take the lock: %w", err)
	}
	if !ok {
		return s.lockedError(ctx, id)
	}
	_, err := s.conn.Exec(ctx, "INSERT INTO "+s.table("holders")+` (state_key, backend_pid, pid, command, username, hostname, since)
		VALUES ($1, pg_backend_pid(), $2, $3, $4, $5, now())
		ON CONFLICT (state_key) DO UPDATE SET backend_pid = excluded.backend_pid, pid = excluded.pid,
			command = excluded.command, username = excluded.username, hostname = excluded.hostname, since = excluded.since`,
		s.key, h.PID, h.Command, h.User, h.Host)
	if err != nil {
		return fmt.Errorf("record the lock holder: %w", err)
	}
	return nil
}

// lockedError finds who holds lock id: the session from pg_locks, the
// pier command from the holder row that session wrote.
func (s *Store) lockedError(ctx context.Context, id int64) error {
	le := &LockedError{Key: s.key}
	for range holderRetries {
		backend, err := lockBackend(ctx, s.conn, id)
		if err != nil {
			return err
		}
		if backend != 0 {
			le.BackendPID = backend
		}
		ok, err := s.holderRow(ctx, s.conn, le)
		if err != nil {
			return err
		}
		if ok {
			return le
		}
		select {
		case <-ctx.Done():
			return le
		case <-time.After(holderRetry):
		}
	}
	return le
}

// querier is a connection or a transaction.
type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// lockBackend is the PostgreSQL backend pid of the session that holds
// lock id, 0 when none does. pg_locks is live, not part of a transaction's
// snapshot.
func lockBackend(ctx context.Context, q querier, id int64) (int, error) {
	u := uint64(id)
	var backend *int32
	err := q.QueryRow(ctx, `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted
		AND classid = $1::bigint::oid AND objid = $2::bigint::oid AND objsubid = 1 LIMIT 1`,
		int64(u>>32), int64(u&0xffffffff)).Scan(&backend)
	if err != nil && err != pgx.ErrNoRows {
		return 0, fmt.Errorf("find the lock holder: %w", err)
	}
	if backend == nil {
		return 0, nil
	}
	return int(*backend), nil
}

// holderRow fills le's pier command from the state key's holder row, when
// that row was written by le's session (le.BackendPID), and reports
// whether it was: a row of an earlier holder names someone else.
func (s *Store) holderRow(ctx context.Context, q querier, le *LockedError) (bool, error) {
	if le.BackendPID == 0 {
		return false, nil
	}
	var (
		h     Holder
		bpid  int32
		since time.Time
	)
	err := q.QueryRow(ctx, "SELECT backend_pid, pid, command, username, hostname, since FROM "+s.table("holders")+" WHERE state_key = $1", s.key).
		Scan(&bpid, &h.PID, &h.Command, &h.User, &h.Host, &since)
	switch {
	case err == pgx.ErrNoRows:
		return false, nil
	case err != nil:
		return false, fmt.Errorf("read the lock holder: %w", err)
	case int(bpid) != le.BackendPID:
		return false, nil
	}
	le.PID, le.Command, le.User, le.Host, le.Since = h.PID, h.Command, h.User, h.Host, since
	return true, nil
}

// Record is the holder note a reader is sent (lockholder.Record);
// a session whose holder row is not written yet reads as pid 0, "another
// pier".
func (e *LockedError) Record() map[string]any {
	return lockholder.Record(Holder{PID: e.PID, Command: e.Command, User: e.User, Host: e.Host}, e.Since)
}
