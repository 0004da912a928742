package main

import (
	"context"
	"errors"
	"io"
	"os"
	"os/signal"

	"github.com/urfave/cli/v2"

	"github.com/pierhq/pier/adapters/postgres"
	"github.com/pierhq/pier/providersdk"
	"github.com/pierhq/pier/schema"
	"github.com/pierhq/pier/schema/logkey"
)

func newAdapterPostgresCommand(g *globalOptions) *cli.Command {
	return &cli.Command{
		Name:  "postgres",
		Usage: "serve the PostgreSQL state type (pg_state) on stdin/stdout",
		Description: `Runs pier's PostgreSQL state provider. It reads v0 protocol requests, one
JSON value per line, from stdin and writes one response line per request
to stdout; logs go to stderr as JSON lines, at the level named by $PIER_LOG.
It implements the optional operation "destroy". See docs/postgres.md.

Connection settings come from libpq's environment (PGHOST, PGPORT,
PGDATABASE, PGUSER, PGPASSFILE, PGSSLMODE, PGSSLROOTCERT, …) and a
pg_state's conninfo input, which must not contain a password. Each state
is locked, with a PostgreSQL session advisory lock, until the process
exits; with $PIER_STATE_READ_ONLY=1 states are read without the lock and
events are refused. A writer cut off from the server loses its lock, and
stops writing, within the session timeout: $PIER_PG_SESSION_TIMEOUT (a
duration, at least 4s; default 60s).

Interrupts (SIGINT) are ignored: the host stops a provider by closing its
stdin.

Exit codes: 0 stdin closed, 1 reading or writing the protocol failed,
64 usage error.`,
		Action: func(c *cli.Context) error {
			if c.Args().Present() {
				return usagef("adapter postgres takes no arguments, got %q", c.Args().Slice())
			}
			signal.Ignore(os.Interrupt)
			stdin, releaseStdin, err := providersdk.TakeStdin()
			if err != nil {
				return err
			}
			defer releaseStdin()
			frames, release, err := providersdk.TakeStdout()
			if err != nil {
				return err
			}
			err = runAdapterPostgres(c.Context, os.Getenv(postgres.ReadOnlyEnv) != "", stdin, frames, g.stderr)
			return errors.Join(err, release())
		},
	}
}

// runAdapterPostgres serves pg_state until stdin closes, then closes the
// states, which releases their locks.
func runAdapterPostgres(ctx context.Context, readOnly bool, stdin io.Reader, stdout, stderr io.Writer) error {
	logger := providersdk.NewLogger(stderr, providersdk.LevelFromEnv()).With(logkey.Provider, "postgres")
	session, err := postgres.ParseSessionTimeout(os.Getenv(postgres.SessionTimeoutEnv))
	if err != nil {
		return err
	}
	p := postgres.New(postgres.Options{ReadOnly: readOnly, Logger: logger, SessionTimeout: session})
	err = providersdk.ServeIO(ctx, p, stdin, stdout, providersdk.Options{Logger: logger, HostValidates: true, MaxLineSize: schema.MaxStateSize})
	return errors.Join(err, p.Close())
}
