package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/pierhq/pier/statefile"
)

// statefileOptions are the flags shared by the read-only statefile
// commands.
type statefileOptions struct {
	Path string
	JSON bool
}

func newStatefileShowCommand(g *globalOptions) *cli.Command {
	return &cli.Command{
		Name:      "show",
		Usage:     "print the state a state_file resolves to, as indented JSON (unredacted: may contain secrets)",
		ArgsUsage: "FILE",
		Description: `Replays the event log without locking or changing it and prints the
resolved document, unredacted: provider outputs in it may be secrets
(pier state show redacts what it knows to be sensitive). Warnings (e.g.
non-increasing indexes) and a torn last event go to stderr; a torn event is
not applied.

Exit codes: 0 printed, 1 the file cannot be read or replayed, 64 usage.`,
		Action: func(c *cli.Context) error {
			path, err := oneFileArg(c, "statefile show")
			if err != nil {
				return err
			}
			return runStatefileShow(c.Context, statefileOptions{Path: path}, g.stdout, g.stderr)
		},
	}
}

func oneFileArg(c *cli.Context, cmd string) (string, error) {
	if c.NArg() != 1 {
		return "", usagef("%s takes one state file, got %d arguments", cmd, c.NArg())
	}
	return c.Args().First(), nil
}

// replayFile replays path read-only and reports warnings and a torn tail
// on stderr.
func replayFile(path string, stderr io.Writer) (*statefile.Replayed, error) {
	data, err := statefile.ReadFile(path)
	if err != nil {
		return nil, err
	}
	rep, err := statefile.Replay(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("replay state file %s: %w", path, err)
	}
	for _, w := range rep.Warnings {
		fmt.Fprintf(stderr, "warning: %s: %s\n", path, w)
	}
	if rep.Torn != nil {
		fmt.Fprintf(stderr, "warning: %s\n", &statefile.TornError{Path: path, Torn: *rep.Torn})
	}
	return rep, nil
}

func runStatefileShow(_ context.Context, opts statefileOptions, stdout, stderr io.Writer) error {
	rep, err := replayFile(opts.Path, stderr)
	if err != nil {
		return err
	}
	b, err := json.MarshalIndent(rep.State, "", "  ")
	if err != nil {
		return fmt.Errorf("encode state of %s: %w", opts.Path, err)
	}
	fmt.Fprintf(stdout, "%s\n", b)
	return nil
}
