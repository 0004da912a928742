// Package postgres is pier's PostgreSQL state provider, served by `pier
// adapter postgres`. Its one resource type, pg_state, keeps a deployment's
// state as an append-only event log in PostgreSQL, for teams: one shared,
// locked, durable state with its history. It speaks the same v0 state
// contract as the local adapter's state_file (stateResourceReadRequest and
// stateResourceEvent), so the engine treats both alike.
//
// The layout (see migrate.go), in a schema of its own ("pier" unless the
// schema input says otherwise):
//
//   - events: one row per state event (state key, index, time, event name,
//     meta, and the RFC 6902 patch as jsonb), never updated or deleted.
//     Index 0 is the initialising event, as in a state_file, so a log
//     copies between the two one event for one event.
//   - snapshots: the resolved document after some event, so a read costs
//     the latest snapshot plus the events after it, not a replay of all.
//   - holders: who holds each state key's lock (pid, command line without
//     values, user, host, since, and the PostgreSQL backend pid).
//   - schema_version: the layout version pier created or migrated to. A
//     database at a newer version than this pier knows is refused.
//
// Locking: a writer takes a session-level advisory lock per state key with
// pg_try_advisory_lock and holds it, on one connection, for the process's
// life, as state_file holds its flock. PostgreSQL releases it when that
// session ends, so a killed pier leaves no stale lock. A reader (the
// PIER_STATE_READ_ONLY environment variable, which pier sets for plan
// without -out and the state inspection commands) takes no lock and reads
// a consistent snapshot in one REPEATABLE READ READ ONLY transaction.
//
// Connection: libpq's environment (PGHOST, PGPORT, PGDATABASE, PGUSER,
// PGPASSFILE, PGSSLMODE, PGSSLROOTCERT, …) plus the conninfo input, which
// must not contain a password: passwords come from PGPASSFILE (or
// ~/.pgpass), never from argv, inputs or state.
//
// Start with [New] (the provider) and [Open] (the store it keeps per state
// key). The package imports schema, providersdk and statefile from pier,
// never the engine.
package postgres
