package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/pierhq/pier/statefile"
)

func newStatefileLogCommand(g *globalOptions) *cli.Command {
	return &cli.Command{
		Name:      "log",
		Usage:     "list a state_file's events: index, time, event and the paths each touched",
		ArgsUsage: "FILE",
		Description: `Reads the event log without locking or changing it. With --json, prints
one object per event (message_type "event") with its position in the file
(ordinal, line, byte offset), index, meta and touched JSON Pointers.

Exit codes: 0 listed, 1 the file cannot be read or replayed, 64 usage.`,
		Flags: []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print one JSON object per event"}},
		Action: func(c *cli.Context) error {
			path, err := oneFileArg(c, "statefile log")
			if err != nil {
				return err
			}
			return runStatefileLog(c.Context, statefileOptions{Path: path, JSON: c.Bool("json")}, g.stdout, g.stderr)
		},
	}
}

// statefileLogEntry is one event as `statefile log --json` prints it.
type statefileLogEntry struct {
	MessageType string         `json:"message_type"`
	Ordinal     int            `json:"ordinal"`
	Line        int            `json:"line"`
	Offset      int64          `json:"offset"`
	Index       int64          `json:"index"`
	Meta        statefile.Meta `json:"meta"`
	Paths       []string       `json:"paths"`
}

func runStatefileLog(_ context.Context, opts statefileOptions, stdout, stderr io.Writer) error {
	rep, err := replayFile(opts.Path, stderr)
	if err != nil {
		return err
	}
	if opts.JSON {
		for _, e := range rep.Events {
			b, err := json.Marshal(statefileLogEntry{MessageType: "event", Ordinal: e.Ordinal, Line: e.Line, Offset: e.Offset, Index: e.Index, Meta: e.Meta, Paths: e.Paths})
			if err != nil {
				return fmt.Errorf("encode event %d of %s: %w", e.Ordinal, opts.Path, err)
			}
			fmt.Fprintf(stdout, "%s\n", b)
		}
		return nil
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "INDEX\tTIME\tEVENT\tPATHS")
	for _, e := range rep.Events {
		event := e.Meta.Event
		if event == "" {
			event = "-"
		}
		paths := make([]string, len(e.Paths))
		for i, p := range e.Paths {
			if p == "" {
				p = `""`
			}
			paths[i] = p
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\n", e.Index, e.Meta.Time, event, strings.Join(paths, " "))
	}
	return tw.Flush()
}
