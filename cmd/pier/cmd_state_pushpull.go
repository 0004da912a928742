package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v2"
)

func newStatePullCommand(g *globalOptions) *cli.Command {
	return &cli.Command{
		Name:  "pull",
		Usage: "copy a state handler's event log out, in state_file form (a backup)",
		Description: `Writes the whole event log of the deployment's state handler (state_file or
pg_state), one event per line, to stdout or --out FILE (mode 0600: state
may hold secrets). It takes no lock. The output is a valid state_file, and
pier state push reads it into another handler.

Exit codes: 0 copied, 1 error, 64 usage.`,
		Flags: append(deployFlags(),
			&cli.StringFlag{Name: "state", Usage: "the state handler `ADDR`, when the deployment has several"},
			&cli.StringFlag{Name: "out", Usage: "write to `FILE` instead of stdout"}),
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usagef("state pull takes no arguments")
			}
			return runStatePull(c.Context, readDeployOptions(c), c.String("state"), c.String("out"), g.stdout, g.stderr)
		},
	}
}

func runStatePull(ctx context.Context, o deployOptions, state, out string, stdout, stderr io.Writer) error {
	handlers, err := stateHandlers(ctx, o, stderr)
	if err != nil {
		return err
	}
	h, err := pickHandler(handlers, state)
	if err != nil {
		return err
	}
	l, err := openStateLog(ctx, h, false)
	if err != nil {
		return err
	}
	defer l.close()
	if out == "" {
		return l.pull(ctx, stdout)
	}
	f, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	werr := l.pull(ctx, f)
	if werr == nil {
		werr = f.Sync()
	}
	if err := f.Close(); werr == nil {
		werr = err
	}
	if werr != nil {
		os.Remove(out)
	}
	return werr
}

func newStatePushCommand(g *globalOptions) *cli.Command {
	return &cli.Command{
		Name:      "push",
		Usage:     "copy an event log (a state_file, or pier state pull's output) into an empty state handler",
		ArgsUsage: "FILE",
		Description: `Reads a state_file-form log, checks that it replays, and appends its events,
in order, to the deployment's state handler (state_file or pg_state),
under that handler's write lock. The handler must record nothing yet:
push restores a backup or seeds a new store, it never merges.

Exit codes: 0 copied, 1 error (e.g. the state is not empty or is locked),
64 usage.`,
		Flags: append(deployFlags(), &cli.StringFlag{Name: "state", Usage: "the state handler `ADDR`, when the deployment has several"}),
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("state push takes one argument, the log FILE")
			}
			return runStatePush(c.Context, readDeployOptions(c), c.String("state"), c.Args().First(), g.stdout, g.stderr)
		},
	}
}

func runStatePush(ctx context.Context, o deployOptions, state, file string, stdout, stderr io.Writer) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	events, err := readLog(data)
	if err != nil {
		return fmt.Errorf("read %s: %w", file, err)
	}
	handlers, err := stateHandlers(ctx, o, stderr)
	if err != nil {
		return err
	}
	h, err := pickHandler(handlers, state)
	if err != nil {
		return err
	}
	l, err := openStateLog(ctx, h, true)
	if err != nil {
		return err
	}
	defer l.close()
	if err := l.push(ctx, events); err != nil {
		return fmt.Errorf("push into %s: %w", h.Address, err)
	}
	if err := l.close(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Copied %d event(s) from %s into %s.\n", len(events)-1, file, h.Address)
	return nil
}
