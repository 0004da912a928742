package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/pierhq/pier/host/lockfile"
	"github.com/pierhq/pier/host/session"
)

func newProvidersCommand(g *globalOptions) *cli.Command {
	return &cli.Command{
		Name:  "providers",
		Usage: "list the deployment's provider declarations, where each was found and its lock status",
		Description: `Lists every provider the deployment declares: what kind it is (builtin,
executable, a Terraform provider by path, or a Terraform package found by
source and version in Terraform's plugin directories), where its program
is, and whether it matches ` + lockfile.Name + `. Starts no provider.

Exit codes: 0 listed, 1 error, 64 usage.`,
		Flags: deployFlags(),
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usagef("providers takes no arguments")
			}
			return runProviders(c.Context, readDeployOptions(c), g.stdout, g.stderr)
		},
		Subcommands: []*cli.Command{newProvidersLockCommand(g), newProvidersSchemaCommand(g)},
	}
}

// providerStatus is one row of pier providers.
type providerStatus struct {
	session.ProviderInfo
	Lock   string `json:"lock"`
	Detail string `json:"detail,omitempty"`
}

func runProviders(ctx context.Context, o deployOptions, stdout, stderr io.Writer) error {
	o.Lock = "off"
	d, err := openSession(o, stderr)
	if err != nil {
		return err
	}
	snap, err := d.Snapshot(ctx)
	if err != nil {
		return err
	}
	lock, _, err := lockfile.Read(d.LockPath())
	if err != nil {
		return err
	}
	var rows []providerStatus
	for _, name := range slices.Sorted(maps.Keys(snap.Providers)) {
		p := snap.Providers[name]
		row := providerStatus{ProviderInfo: session.Describe(p)}
		_, err := lock.Verify(p, d.Dir())
		var me *lockfile.MismatchError
		var ue *lockfile.UnlockedError
		switch {
		case p.Builtin != "":
			row.Lock = "builtin"
		case err == nil:
			row.Lock = "locked"
		case errors.As(err, &me):
			row.Lock, row.Detail = "MISMATCH", err.Error()
		case errors.As(err, &ue):
			row.Lock = "unlocked"
		default:
			row.Lock, row.Detail = "error", err.Error()
		}
		rows = append(rows, row)
	}
	if o.JSON {
		writeJSONLine(stdout, map[string]any{"message_type": "providers", "lock_file": d.LockPath(), "providers": rows})
		return nil
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tKIND\tFOUND AT\tLOCK")
	for _, r := range rows {
		kind := r.Kind
		if r.Source != "" {
			kind += " " + r.Source + " " + r.Version
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Name, kind, r.Where, r.Lock)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range rows {
		if r.Detail != "" {
			fmt.Fprintf(stdout, "\n%s: %s\n", r.Name, r.Detail)
		}
	}
	return nil
}

func newProvidersLockCommand(g *globalOptions) *cli.Command {
	return &cli.Command{
		Name:  "lock",
		Usage: "record the deployment's providers in " + lockfile.Name,
		Description: `Writes ` + lockfile.Name + ` next to the deployment, in the shape of
Terraform's .terraform.lock.hcl: Terraform packages by source address,
version and h1: hash (Terraform's own package hash); executables by
sha256; Nix store executables by store path. Built-in providers are part
of pier and are not recorded. A provider that no longer matches its entry
is refused unless --upgrade is given, which records what is there now.
pier plan and apply check every provider against the file before starting
it. Starts no provider.

Exit codes: 0 written, 1 error (e.g. a mismatch without --upgrade), 64 usage.`,
		Flags: append(deployFlags(), &cli.BoolFlag{Name: "upgrade", Usage: "record providers that changed since they were locked"}),
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usagef("providers lock takes no arguments")
			}
			return runProvidersLock(c.Context, readDeployOptions(c), c.Bool("upgrade"), g.stdout, g.stderr)
		},
	}
}

func runProvidersLock(ctx context.Context, o deployOptions, upgrade bool, stdout, stderr io.Writer) error {
	o.Lock = "off"
	d, err := openSession(o, stderr)
	if err != nil {
		return err
	}
	snap, err := d.Snapshot(ctx)
	if err != nil {
		return err
	}
	old, _, err := lockfile.Read(d.LockPath())
	if err != nil {
		return err
	}
	lock, err := old.Lock(snap.Providers, d.Dir(), upgrade)
	if err != nil {
		return err
	}
	if err := lock.Write(d.LockPath()); err != nil {
		return err
	}
	if o.JSON {
		writeJSONLine(stdout, map[string]any{"message_type": "providers_lock", "lock_file": d.LockPath(), "providers": len(lock.Entries)})
		return nil
	}
	fmt.Fprintf(stdout, "Locked %d providers in %s.\n", len(lock.Entries), d.LockPath())
	return nil
}

func newProvidersSchemaCommand(g *globalOptions) *cli.Command {
	var opts tfSchemaOptions
	var name, format, source string
	return &cli.Command{
		Name:      "schema",
		Usage:     "show a Terraform provider's schema (pier tf schema)",
		ArgsUsage: "[PROVIDER]",
		Description: `With --plugin BINARY, the same as pier tf schema. With a PROVIDER name
instead, the schema of that declaration of the deployment. A v0 provider
cannot describe itself: its schema is unknown, and pier says so.

--format terraform prints the JSON document of terraform providers schema
-json instead (format_version "1.0", provider_schemas keyed by source
address, with the provider's functions), so that tools written for
Terraform's output read it unchanged. The key is the declaration's source,
or --source ADDR; for a provider given by path without --source it is
the address Terraform implies for the type named by the binary
(terraform-provider-time: registry.terraform.io/hashicorp/time).

Exit codes: 0 OK, 1 the provider could not be started, 64 usage error.`,
		Flags: append(deployFlags(),
			&cli.StringFlag{Name: "plugin", Usage: "path of the Terraform provider `BINARY`", Destination: &opts.plugin},
			&cli.StringFlag{Name: "format", Value: "pier", Usage: "`FORMAT` of the output: pier, or terraform (the JSON of terraform providers schema -json)", Destination: &format},
			&cli.StringFlag{Name: "source", Usage: "source `ADDR` to key the terraform format by (default: the declaration's)", Destination: &source},
		),
		Action: func(c *cli.Context) error {
			opts.json = c.Bool("json")
			name = c.Args().First()
			if c.NArg() > 1 || (name == "") == (opts.plugin == "") {
				return usagef("providers schema takes a PROVIDER name of the deployment, or --plugin BINARY")
			}
			if format != "pier" && format != "terraform" {
				return usagef("providers schema --format is pier or terraform, not %q", format)
			}
			if source != "" && format != "terraform" {
				return usagef("providers schema --source applies to --format terraform only")
			}
			if opts.plugin == "" {
				o := readDeployOptions(c)
				o.Lock = "off"
				d, err := openSession(o, g.stderr)
				if err != nil {
					return err
				}
				snap, err := d.Snapshot(c.Context)
				if err != nil {
					return err
				}
				p := snap.Providers[name]
				if p == nil {
					return fmt.Errorf("the deployment declares no provider %q (it has: %s)", name, strings.Join(slices.Sorted(maps.Keys(snap.Providers)), ", "))
				}
				if p.Terraform == "" {
					return fmt.Errorf("provider %s is not a Terraform provider: a v0 provider cannot describe itself, so its schema is unknown", name)
				}
				opts.plugin = p.Terraform
				if source == "" {
					source = p.Source
				}
			}
			if format == "terraform" {
				return runTerraformSchema(c.Context, opts.plugin, source, g.stdout, g.stderr)
			}
			return runTFSchema(c.Context, opts, g.stdout, g.stderr)
		},
	}
}
