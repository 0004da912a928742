package main

import (
	"context"
	"errors"
	"io"
	"os"
	"os/signal"
	"runtime"

	"github.com/urfave/cli/v2"

	"github.com/pierhq/pier/adapters/local"
	"github.com/pierhq/pier/providersdk"
	"github.com/pierhq/pier/schema"
	"github.com/pierhq/pier/schema/logkey"
)

// adapterLocalOptions are the settings of `pier adapter local`.
type adapterLocalOptions struct {
	// waitForLock makes state_file wait for a state file's lock instead of
	// failing at once with the holder.
	waitForLock bool
}

func newAdapterLocalCommand(g *globalOptions) *cli.Command {
	var opts adapterLocalOptions
	return &cli.Command{
		Name:  "local",
		Usage: "serve the local resource types (file, exec, memo, state_file) on stdin/stdout",
		Description: `Runs pier's local provider. It reads v0 protocol requests, one JSON value
per line, from stdin and writes one response line per request to stdout;
logs go to stderr as JSON lines, at the level named by $PIER_LOG. It
implements the optional operation "destroy". Relative file and state_file
names resolve against the working directory, where exec also runs programs.
State files stay open, and locked, until the process exits.

Interrupts (SIGINT) are ignored, also by the programs exec runs: the host
stops a provider by closing its stdin. SIGTERM stops it at once, killing a
running exec program.

Exit codes: 0 stdin closed, 1 reading or writing the protocol failed,
64 usage error, 130 terminated.`,
		Flags: []cli.Flag{
			&cli.BoolFlag{
				Name:        "wait-lock",
				Usage:       "wait for a locked state file instead of failing",
				Destination: &opts.waitForLock,
			},
		},
		Action: func(c *cli.Context) error {
			if c.Args().Present() {
				return usagef("adapter local takes no arguments, got %q", c.Args().Slice())
			}
			// The host owns shutdown; a Ctrl-C in its terminal must not
			// kill the provider under an operation it is recording.
			signal.Ignore(os.Interrupt)
			// Frames only on stdout: a stray print goes to stderr.
			stdin, releaseStdin, err := providersdk.TakeStdin()
			if err != nil {
				return err
			}
			defer releaseStdin()
			frames, release, err := providersdk.TakeStdout()
			if err != nil {
				return err
			}
			err = runAdapterLocal(c.Context, opts, stdin, frames, g.stderr)
			return errors.Join(err, release())
		},
	}
}

// runAdapterLocal serves the local provider on stdin and stdout until stdin
// closes, and then releases the state files it opened.
func runAdapterLocal(ctx context.Context, opts adapterLocalOptions, stdin io.Reader, stdout, stderr io.Writer) error {
	logger := providersdk.NewLogger(stderr, providersdk.LevelFromEnv()).With(logkey.Provider, "local")
	if os.Getenv("GOMAXPROCS") == "" {
		// ServeIO answers one request before it reads the next, so the
		// adapter never has two things to run at once: a second
		// processor only costs it the runtime waking a thread to look
		// for work at every handoff (a request line read, a state event
		// written) and putting it back to sleep, about a quarter of its
		// CPU on a fresh apply. The one loss is the parallel decode of a
		// state file's lines when it has no valid cache.
		runtime.GOMAXPROCS(1)
	}
	p := local.New(local.Options{Stderr: stderr, Logger: logger, WaitForLock: opts.waitForLock, ReadOnly: os.Getenv(local.ReadOnlyEnv) != ""})
	err := providersdk.ServeIO(ctx, p, stdin, stdout, providersdk.Options{Logger: logger, HostValidates: true, MaxLineSize: schema.MaxStateSize})
	return errors.Join(err, p.Close())
}
