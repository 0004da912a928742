package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/pierhq/pier/statefile"
)

// statefileCompactOptions are the flags of pier statefile compact.
type statefileCompactOptions struct {
	Path string
	Wait bool
}

func newStatefileCompactCommand(g *globalOptions) *cli.Command {
	return &cli.Command{
		Name:      "compact",
		Usage:     "rewrite a state_file as its initialising event plus one snapshot event",
		ArgsUsage: "FILE",
		Description: `Takes the state file's lock, replays it, and atomically replaces it
with two events: the initialising event and a snapshot of the resolved
state that keeps the highest index. The previous file is kept as
FILE.TIME.bak. A torn last event is cut off first (a copy is kept as
FILE.torn-TIME).

Exit codes: 0 compacted, 1 error, 64 usage, 4 another process holds the
lock (use --wait to wait for it).`,
		Flags: []cli.Flag{&cli.BoolFlag{Name: "wait", Usage: "wait for the lock instead of failing when another process holds it"}},
		Action: func(c *cli.Context) error {
			path, err := oneFileArg(c, "statefile compact")
			if err != nil {
				return err
			}
			return runStatefileCompact(c.Context, statefileCompactOptions{Path: path, Wait: c.Bool("wait")}, g.stdout, g.stderr)
		},
	}
}

func runStatefileCompact(_ context.Context, opts statefileCompactOptions, stdout, stderr io.Writer) error {
	// Open would create a missing file; compacting one is a mistake.
	if _, err := os.Stat(opts.Path); err != nil {
		return fmt.Errorf("compact state file: %w", err)
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	l, err := statefile.Open(opts.Path, statefile.Options{Wait: opts.Wait, Logger: logger})
	if err != nil {
		return err // a *statefile.LockedError exits with exitStateLocked
	}
	before := l.Events()
	backup, err := l.Compact()
	if cerr := l.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: compacted %d events into 2; the previous file is kept as %s\n", opts.Path, before, backup)
	return nil
}
