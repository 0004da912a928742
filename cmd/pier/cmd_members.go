package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/pierhq/pier/host/source"
)

func newMembersListCommand(g *globalOptions) *cli.Command {
	return &cli.Command{
		Name:      "list",
		Usage:     "list the members of the deployment, or of the composite at PATH",
		ArgsUsage: "[PATH]",
		Description: `Prints the names of the members directly below PATH (a dotted member
path such as web or infra.db; the root when omitted), one per line, as
nixops4 members list does. With --json, one object per member with its
address and whether it is a resource or a composite.

It evaluates the deployment without state and changes nothing. A
composite whose members depend on an output not yet known cannot be
listed: the command fails and names the outputs, rather than show a
partial list.

Exit codes: 0 listed, 1 the deployment cannot be evaluated or PATH has no
members, 64 usage.`,
		Flags: deployFlags(),
		Action: func(c *cli.Context) error {
			if c.NArg() > 1 {
				return usagef("members list takes at most one path, got %d arguments", c.NArg())
			}
			return runMembersList(c.Context, readDeployOptions(c), c.Args().First(), g.stdout, g.stderr)
		},
	}
}

// member is one line of pier members list.
type member struct {
	MessageType string `json:"message_type"`
	Name        string `json:"name"`
	Address     string `json:"address"`
	// Kind is "resource" or "composite".
	Kind string `json:"kind"`
}

func runMembersList(ctx context.Context, o deployOptions, path string, stdout, stderr io.Writer) error {
	var at source.Address
	if path != "" {
		a, err := source.ParseAddress(path)
		if err != nil {
			return usagef("members list %q: %v", path, err)
		}
		at = a
	}
	src, _, err := loadSource(o, slog.New(slog.DiscardHandler), stderr)
	if err != nil {
		return err
	}
	snap, err := src.Resolve(ctx, nil)
	if err != nil {
		return err
	}
	var addrs []source.Address
	structural := map[string]bool{}
	for _, r := range snap.Ready {
		addrs = append(addrs, r.Address)
	}
	for _, b := range snap.Blocked {
		// Only a composite at or above PATH hides PATH's members; one
		// below PATH is itself a member, a composite.
		if b.Structural && at.HasPrefix(b.Address) {
			var waits []string
			for _, w := range b.WaitsOn {
				waits = append(waits, w.String())
			}
			where := "the deployment"
			if len(at) > 0 {
				where = at.String()
			}
			return fmt.Errorf("cannot list the members of %s: the members of %s depend on outputs of %s, which are known only once they are applied", where, b.Address, strings.Join(waits, ", "))
		}
		addrs = append(addrs, b.Address)
		structural[b.Address.String()] = b.Structural
	}
	found := map[string]*member{}
	isResource := false
	for _, a := range addrs {
		if !a.HasPrefix(at) {
			continue
		}
		if len(a) == len(at) {
			isResource = true
			continue
		}
		child := a[:len(at)+1]
		m := found[child.String()]
		if m == nil {
			m = &member{MessageType: "member", Name: source.Address{child[len(at)]}.String(), Address: child.String(), Kind: "resource"}
			found[child.String()] = m
		}
		if len(a) > len(at)+1 {
			m.Kind = "composite"
		}
		if b := structural[a.String()]; b && len(a) == len(at)+1 {
			m.Kind = "composite"
		}
	}
	if len(found) == 0 {
		if isResource {
			return fmt.Errorf("%s is a resource, not a composite: it has no members", at)
		}
		if len(at) > 0 {
			return fmt.Errorf("the deployment has no member %s (see pier members list)", at)
		}
		return nil
	}
	names := make([]string, 0, len(found))
	for k := range found {
		names = append(names, k)
	}
	slices.SortFunc(names, source.CompareAddresses)
	for _, k := range names {
		if o.JSON {
			writeJSONLine(stdout, found[k])
		} else {
			fmt.Fprintln(stdout, found[k].Name)
		}
	}
	return nil
}
