package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/pierhq/pier/statefile"
)

func newStatefileVerifyCommand(g *globalOptions) *cli.Command {
	return &cli.Command{
		Name:      "verify",
		Usage:     "check a state_file: format, index order and a full replay",
		ArgsUsage: "FILE",
		Description: `Reads the event log without locking or changing it. Non-increasing
indexes (NixOps4's own writer puts 0 on every event) are warnings, each
with the event's position. A malformed event, a patch that does not apply,
a resolved _type other than nixopsState, or a torn last event are errors.
With --json, prints one object (message_type "verify").

Exit codes: 0 valid (possibly with warnings), 1 invalid or unreadable,
64 usage.`,
		Flags: []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print the report as one JSON object"}},
		Action: func(c *cli.Context) error {
			path, err := oneFileArg(c, "statefile verify")
			if err != nil {
				return err
			}
			return runStatefileVerify(c.Context, statefileOptions{Path: path, JSON: c.Bool("json")}, g.stdout, g.stderr)
		},
	}
}

// statefileVerifyReport is the --json form of a verification.
type statefileVerifyReport struct {
	MessageType string `json:"message_type"`
	OK          bool   `json:"ok"`
	*statefile.Report
}

func runStatefileVerify(_ context.Context, opts statefileOptions, stdout, _ io.Writer) error {
	r, err := statefile.Verify(opts.Path)
	if r == nil {
		return err
	}
	if opts.JSON {
		b, merr := json.Marshal(statefileVerifyReport{MessageType: "verify", OK: err == nil, Report: r})
		if merr != nil {
			return fmt.Errorf("encode report for %s: %w", opts.Path, merr)
		}
		fmt.Fprintf(stdout, "%s\n", b)
		return err
	}
	for _, w := range r.Warnings {
		fmt.Fprintf(stdout, "warning: %s\n", w)
	}
	if err != nil {
		fmt.Fprintf(stdout, "error: %s\n", r.Error)
		fmt.Fprintf(stdout, "%s: INVALID after %d events\n", opts.Path, r.Events)
		return err
	}
	fmt.Fprintf(stdout, "%s: ok, %d events, last index %d, %d resources, %d warnings\n", opts.Path, r.Events, r.LastIndex, r.Resources, len(r.Warnings))
	return nil
}
