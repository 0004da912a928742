package main

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/pierhq/pier/adapters/builtin"
	"github.com/pierhq/pier/host/engine"
	"github.com/pierhq/pier/host/provider"
	"github.com/pierhq/pier/schema"
)

// This file holds the flags every `pier provider …` command shares: how to
// run the provider, what it declares, how long a request may take.

// providerProcessOptions say how to run the provider under test.
type providerProcessOptions struct {
	Executable string
	Args       []string
	Builtin    string // "local": run this pier binary as `pier adapter local`
	Operations []schema.Operation
	Timeout    time.Duration
	Resource   string // the address used in logs and errors
	Verbose    bool   // log the provider's stderr and protocol traffic
}

// repeatedFlag collects every value of a repeatable flag verbatim. Unlike
// cli.StringSliceFlag it does not split values at commas, which arguments
// and JSON values contain.
type repeatedFlag struct{ values []string }

func (r *repeatedFlag) Set(v string) error { r.values = append(r.values, v); return nil }
func (r *repeatedFlag) String() string     { return strings.Join(r.values, " ") }

var _ cli.Generic = (*repeatedFlag)(nil)

func repeated(c *cli.Context, name string) []string {
	if r, ok := c.Generic(name).(*repeatedFlag); ok && r != nil {
		return r.values
	}
	return nil
}

// providerProcessFlags returns fresh flag definitions (a Generic flag
// holds its values, so each command needs its own).
func providerProcessFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "provider-exe", Usage: "run the provider at `PATH`"},
		&cli.GenericFlag{Name: "provider-arg", Value: &repeatedFlag{}, Usage: "pass `ARG` to the provider (repeatable; commas are kept)"},
		&cli.StringFlag{Name: "builtin", Usage: "run a provider shipped with pier: `NAME` " + strings.Join(schema.BuiltinNames(builtin.Capabilities), " or ") + " (same as --provider-exe PIER --provider-arg adapter --provider-arg NAME)"},
		&cli.StringFlag{Name: "operations", Usage: "optional operations the provider declares, comma-separated: `destroy,read,import`"},
		&cli.DurationFlag{Name: "timeout", Value: provider.DefaultTimeout, Usage: "bound the request; a provider that does not answer in time is killed"},
		&cli.StringFlag{Name: "resource", Value: "cli", Usage: "the resource `ADDRESS` named in logs and errors"},
		&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "log the provider's stderr and the protocol traffic to stderr"},
	}
}

// providerProcessOptionsFrom reads the shared flags.
func providerProcessOptionsFrom(c *cli.Context) (providerProcessOptions, error) {
	o := providerProcessOptions{
		Executable: c.String("provider-exe"),
		Args:       repeated(c, "provider-arg"),
		Builtin:    c.String("builtin"),
		Timeout:    c.Duration("timeout"),
		Resource:   c.String("resource"),
		Verbose:    c.Bool("verbose"),
	}
	if c.NArg() > 0 {
		return o, usagef("%s takes no arguments, got %q", c.Command.FullName(), c.Args().Slice())
	}
	switch {
	case o.Builtin != "" && o.Executable != "":
		return o, usagef("give either --provider-exe or --builtin, not both")
	case o.Builtin == "" && o.Executable == "":
		return o, usagef("name the provider with --provider-exe PATH or --builtin local")
	case o.Timeout <= 0:
		return o, usagef("--timeout must be positive, got %s", o.Timeout)
	}
	if o.Builtin != "" {
		if _, ok := schema.Builtin(builtin.Capabilities, o.Builtin); !ok {
			return o, usagef("--builtin %q: unknown (known: %s)", o.Builtin, strings.Join(schema.BuiltinNames(builtin.Capabilities), ", "))
		}
	}
	for _, name := range strings.Split(c.String("operations"), ",") {
		if name = strings.TrimSpace(name); name == "" {
			continue
		}
		op, err := schema.ParseOperation(name)
		if err != nil {
			return o, usagef("--operations: %w", err)
		}
		o.Operations = append(o.Operations, op)
	}
	return o, nil
}

// config turns the options into a provider configuration whose logs go to
// stderr.
func (o providerProcessOptions) config(stderr io.Writer) (provider.Config, error) {
	level := slog.LevelWarn
	if o.Verbose {
		level = slog.LevelDebug
	}
	cfg := provider.Config{
		Executable: o.Executable,
		Args:       o.Args,
		Operations: o.Operations,
		Timeout:    o.Timeout,
		Logger:     slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level})),
	}
	if o.Builtin != "" {
		self, err := os.Executable()
		if err != nil {
			return cfg, fmt.Errorf("find the pier executable for --builtin %s: %w", o.Builtin, err)
		}
		cfg.Name = o.Builtin
		cfg.Executable = self
		cfg.Args = append([]string{"adapter", o.Builtin}, o.Args...)
		// The adapter declares its own operations, as it does under
		// the engine.
		caps, _ := schema.Builtin(builtin.Capabilities, o.Builtin)
		cfg.Env = engine.BuiltinEnv(caps, nil, false)
		for _, op := range caps.Operations {
			if !containsOperation(cfg.Operations, op) {
				cfg.Operations = append(cfg.Operations, op)
			}
		}
	} else {
		cfg.Name = filepath.Base(o.Executable)
	}
	return cfg, nil
}

func containsOperation(ops []schema.Operation, op schema.Operation) bool {
	for _, o := range ops {
		if o == op {
			return true
		}
	}
	return false
}

// parseObjectFlag parses a flag holding a JSON object; empty means {}.
func parseObjectFlag(flag, value string) (schema.Properties, error) {
	if strings.TrimSpace(value) == "" {
		return schema.Properties{}, nil
	}
	var props schema.Properties
	if err := json.Unmarshal([]byte(value), &props); err != nil || props == nil {
		if err == nil {
			err = fmt.Errorf("got null")
		}
		return nil, usagef("--%s: want a JSON object: %w", flag, err)
	}
	return props, nil
}

// printJSON writes v as indented JSON followed by a newline.
func printJSON(w io.Writer, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode result: %w", err)
	}
	_, err = fmt.Fprintf(w, "%s\n", data)
	return err
}
