package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// SchemaVersion is the newest table layout this pier knows. Each version
// is one entry of migrations; a database whose recorded version is higher
// was migrated by a newer pier and is refused, because this one would not
// know what the new columns or tables mean.
const SchemaVersion = 1

// migrations[i] takes the layout from version i to i+1. "%[1]s" is the
// quoted schema name. Never edit a released entry: add one.
var migrations = []string{
	// 0 → 1: the event log, snapshots and lock holders.
	`CREATE TABLE IF NOT EXISTS %[1]s.events (
		state_key   text        NOT NULL,
		idx         bigint      NOT NULL CHECK (idx >= 0),
		recorded_at timestamptz NOT NULL DEFAULT now(),
		event       text        NOT NULL,
		meta        jsonb       NOT NULL,
		patch       jsonb       NOT NULL,
		PRIMARY KEY (state_key, idx)
	);
	CREATE TABLE IF NOT EXISTS %[1]s.snapshots (
		state_key text        NOT NULL,
		idx       bigint      NOT NULL,
		taken_at  timestamptz NOT NULL DEFAULT now(),
		state     jsonb       NOT NULL,
		PRIMARY KEY (state_key, idx)
	);
	CREATE TABLE IF NOT EXISTS %[1]s.holders (
		state_key   text        PRIMARY KEY,
		backend_pid integer     NOT NULL,
		pid         integer     NOT NULL,
		command     text        NOT NULL,
		username    text        NOT NULL,
		hostname    text        NOT NULL,
		since       timestamptz NOT NULL
	);`,
}

// migrationLock is the advisory lock (transaction-scoped) that serialises
// migrations, so two pier processes meeting an empty database do not race
// on CREATE TABLE. Its value is an arbitrary constant ("pier" in ASCII).
const migrationLock = 0x70696572

// VersionError reports a database migrated by a newer pier.
type VersionError struct {
	Schema   string
	Database int
	Known    int
}

func (e *VersionError) Error() string {
	return fmt.Sprintf("PostgreSQL schema %s is at pier table layout version %d; this pier knows up to %d: upgrade pier (or use another schema)", e.Schema, e.Database, e.Known)
}

// migrate creates or upgrades the tables in schema to [SchemaVersion].
func migrate(ctx context.Context, conn *pgx.Conn, schema string) error {
	q := pgx.Identifier{schema}.Sanitize()
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx) //nolint:errcheck // a no-op after Commit
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", int64(migrationLock)); err != nil {
		return err
	}
	var exists bool
	if err := tx.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)", schema).Scan(&exists); err != nil {
		return err
	}
	if !exists {
		if _, err := tx.Exec(ctx, "CREATE SCHEMA "+q); err != nil {
			return fmt.Errorf("create schema %s (the role needs CREATE on the database, or an administrator creates the schema for it): %w", schema, err)
		}
	}
	if _, err := tx.Exec(ctx, "CREATE TABLE IF NOT EXISTS "+q+".schema_version (version integer NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())"); err != nil {
		return fmt.Errorf("create %s.schema_version: %w", schema, err)
	}
	v, err := version(ctx, tx, schema)
	if err != nil {
		return err
	}
	if v > SchemaVersion {
		return &VersionError{Schema: schema, Database: v, Known: SchemaVersion}
	}
	for ; v < SchemaVersion; v++ {
		if _, err := tx.Exec(ctx, fmt.Sprintf(migrations[v], q)); err != nil {
			return fmt.Errorf("migrate schema %s to version %d: %w", schema, v+1, err)
		}
		if _, err := tx.Exec(ctx, "INSERT INTO "+q+".schema_version (version) VALUES ($1)", v+1); err != nil {
			return err
		}
	}
	return tx.Commit(ctx)
}

// version returns the recorded layout version, 0 for none.
func version(ctx context.Context, tx pgx.Tx, schema string) (int, error) {
	var v *int
	err := tx.QueryRow(ctx, "SELECT max(version) FROM "+pgx.Identifier{schema, "schema_version"}.Sanitize()).Scan(&v)
	if err != nil {
		return 0, fmt.Errorf("read %s.schema_version: %w", schema, err)
	}
	if v == nil {
		return 0, nil
	}
	return *v, nil
}

// errNoTables means a reader found no pier tables: nothing was ever
// recorded in this schema, which reads as the empty state.
var errNoTables = errors.New("no pier tables")

// checkVersion is the reader's migrate: it changes nothing, and reports
// errNoTables for a schema pier has not set up yet.
func checkVersion(ctx context.Context, tx pgx.Tx, schema string) error {
	var reg *string
	if err := tx.QueryRow(ctx, "SELECT to_regclass($1)::text", pgx.Identifier{schema, "schema_version"}.Sanitize()).Scan(&reg); err != nil {
		return err
	}
	if reg == nil {
		return errNoTables
	}
	v, err := version(ctx, tx, schema)
	switch {
	case err != nil:
		return err
	case v == 0:
		return errNoTables
	case v > SchemaVersion:
		return &VersionError{Schema: schema, Database: v, Known: SchemaVersion}
	case v < SchemaVersion:
		return fmt.Errorf("PostgreSQL schema %s is at pier table layout version %d, older than this pier's %d: run pier apply once to migrate it", schema, v, SchemaVersion)
	}
	return nil
}
