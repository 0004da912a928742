package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"path/filepath"
	"slices"

	"github.com/urfave/cli/v2"

	"github.com/pierhq/pier/host/lockfile"
	"github.com/pierhq/pier/host/modsource"
)

// upgradeModulesFlag is plan and apply's --upgrade.
func upgradeModulesFlag() cli.Flag {
	return &cli.BoolFlag{Name: "upgrade", Usage: "fetch git module sources whose ref has moved at the new commit, and pin them to it in .pier.lock.hcl (as pier modules update)"}
}

func newModulesUpdateCommand(g *globalOptions) *cli.Command {
	return &cli.Command{
		Name:  "update",
		Usage: "move the pins of git module sources to the commits their refs name now",
		Description: `Loads the deployment, fetching every git module source (git::URL//DIR?ref=REF)
at the commit its ref names now, and records those commits in
.pier.lock.hcl. A plan refuses a source whose ref has moved from its pin;
this command (or plan/apply --upgrade) is how the pin moves. It prints
one line per pin it added or moved.

Exit codes: 0 updated (or nothing to update), 1 error, 64 usage.`,
		Flags: deployFlags(),
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usagef("modules update takes no arguments")
			}
			return runModulesUpdate(c.Context, readDeployOptions(c), g.stdout, g.stderr)
		},
	}
}

func runModulesUpdate(_ context.Context, o deployOptions, stdout, _ io.Writer) error {
	if o.Flake != "" {
		return usagef("modules update is for HCL deployments; a flake pins its inputs in flake.lock")
	}
	dir, err := filepath.Abs(o.Dir)
	if err != nil {
		return err
	}
	before, _, err := lockfile.Read(filepath.Join(dir, lockfile.Name))
	if err != nil {
		return err
	}
	o.UpgradeModules = true
	// loadSource pins what it fetched and says so on stderr; this
	// command's result is the list on stdout.
	if _, _, err := loadSource(o, slog.New(slog.DiscardHandler), io.Discard); err != nil {
		return err
	}
	after, _, err := lockfile.Read(filepath.Join(dir, lockfile.Name))
	if err != nil {
		return err
	}
	n := 0
	for _, src := range slices.Sorted(maps.Keys(after.Modules)) {
		commit := after.Modules[src]
		old, had := before.Modules[src]
		if had && old == commit {
			continue
		}
		n++
		if o.JSON {
			writeJSONLine(stdout, map[string]any{"message_type": "module_pin", "source": modsource.Redact(src), "commit": commit, "previous": old})
		} else if had {
			fmt.Fprintf(stdout, "module %s: %s -> %s\n", modsource.Redact(src), old, commit)
		} else {
			fmt.Fprintf(stdout, "module %s: pinned to %s\n", modsource.Redact(src), commit)
		}
	}
	if n == 0 && !o.JSON {
		fmt.Fprintln(stdout, "Module pins are up to date.")
	}
	return nil
}
