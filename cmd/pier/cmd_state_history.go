package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/pierhq/pier/host/engine"
	"github.com/pierhq/pier/host/redact"
	"github.com/pierhq/pier/host/statedoc"
)

func newStateHistoryCommand(g *globalOptions) *cli.Command {
	return &cli.Command{
		Name:  "history",
		Usage: "list the events of the deployment's state logs: index, time, event, what it touched",
		Description: `Reads the event log of each state handler (state_file or pg_state) without
taking its write lock, so it answers while an apply runs. Each line is one
event: its index, time, event name, and the JSON Pointers its patch
touched. pier state show --at INDEX shows the state as it was after one.

Exit codes: 0 listed, 1 error, 64 usage.`,
		Flags: append(deployFlags(), &cli.StringFlag{Name: "state", Usage: "list only the log of the state handler `ADDR`"}),
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usagef("state history takes no arguments")
			}
			return runStateHistory(c.Context, readDeployOptions(c), c.String("state"), g.stdout, g.stderr)
		},
	}
}

func runStateHistory(ctx context.Context, o deployOptions, only string, stdout, stderr io.Writer) error {
	handlers, err := stateHandlers(ctx, o, stderr)
	if err != nil {
		return err
	}
	names := make([]string, 0, len(handlers))
	for n := range handlers {
		if only == "" || n == only {
			names = append(names, n)
		}
	}
	if only != "" && len(names) == 0 {
		return fmt.Errorf("%s is not a state handler of this deployment", only)
	}
	sort.Strings(names)
	for _, n := range names {
		l, err := openStateLog(ctx, handlers[n], false)
		if err != nil {
			return err
		}
		rows, err := l.history(ctx)
		l.close()
		if err != nil {
			return fmt.Errorf("history of %s: %w", n, err)
		}
		if !o.JSON && len(names) > 1 {
			fmt.Fprintf(stdout, "# %s\n", n)
		}
		for _, r := range rows {
			if o.JSON {
				writeJSONLine(stdout, struct {
					MessageType string `json:"message_type"`
					State       string `json:"state"`
					historyRow
				}{"event", n, r})
				continue
			}
			fmt.Fprintf(stdout, "%d\t%s\t%s\t%s\n", r.Index, r.Time, orDash(r.Event), strings.Join(r.Touched, ","))
		}
	}
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// stateHandlers resolves the deployment's state handlers, starting no
// provider.
func stateHandlers(ctx context.Context, o deployOptions, stderr io.Writer) (map[string]engine.Handler, error) {
	view := newProgress(stderr, false, o.Verbose)
	defer view.close()
	eng, err := newEngine(o, view, stderr)
	if err != nil {
		return nil, err
	}
	defer eng.Close()
	return eng.Handlers(ctx)
}

// stateShowAtFlags are pier state show's flags for an earlier state, new
// for each app: a cli.Flag keeps what it parsed.
func stateShowAtFlags() []cli.Flag {
	return []cli.Flag{
		&cli.Int64Flag{Name: "at", Usage: "show the state as it was after event `INDEX` (see pier state history); without ADDR, every resource"},
		&cli.StringFlag{Name: "state", Usage: "with --at: the state handler `ADDR`, when the deployment has several"},
	}
}

// runStateShowAt shows the state as it was after event index: one
// resource (redacted), or, without an address, every resource.
func runStateShowAt(ctx context.Context, o deployOptions, index int64, state, addr string, stdout, stderr io.Writer) error {
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
	doc, err := l.stateAt(ctx, index)
	if err != nil {
		return err
	}
	view, err := statedoc.Decode(h.Address, doc)
	if err != nil {
		return fmt.Errorf("decode state: %w", err)
	}
	redacted := func(rec *statedoc.Recorded) statedoc.Entry {
		e := rec.Entry
		e.InputProperties = redact.EntryInputs(e)
		e.OutputProperties = redact.EntryOutputs(e)
		return e
	}
	var out any
	if addr != "" {
		rec := view.Entries[addr]
		if rec == nil {
			return fmt.Errorf("%s was not recorded in %s after event %d", addr, h.Address, index)
		}
		out = redacted(rec)
	} else {
		all := map[string]statedoc.Entry{}
		for a, rec := range view.Entries {
			all[a] = redacted(rec)
		}
		out = all
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s\n", b)
	return nil
}
