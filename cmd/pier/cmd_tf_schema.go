package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/pierhq/pier/adapters/terraform"
	"github.com/pierhq/pier/providersdk"
)

// tfSchemaOptions are the settings of `pier tf schema`.
type tfSchemaOptions struct {
	plugin string
	json   bool
}

func newTFSchemaCommand(g *globalOptions) *cli.Command {
	var opts tfSchemaOptions
	return &cli.Command{
		Name:  "schema",
		Usage: "list a Terraform provider's resource types, data sources and their attributes",
		Description: `Starts the Terraform provider given by --plugin, reads its schema and stops
it; the provider is not configured. For each type it lists every attribute
with its type and whether it is required, optional, computed or
sensitive. Nested blocks and nested attributes appear at dotted paths,
"*" standing for any element of a collection.

Whether changing an attribute replaces the object is not in a Terraform
schema: the provider decides it while planning, and the bridge logs the
attributes that forced a replacement when it happens.

Exit codes: 0 OK, 1 the provider could not be started, 64 usage error.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "plugin", Usage: "path of the Terraform provider `BINARY` (required)", Destination: &opts.plugin},
			&cli.BoolFlag{Name: "json", Usage: "print the schema as JSON", Destination: &opts.json},
		},
		Action: func(c *cli.Context) error {
			if c.Args().Present() {
				return usagef("tf schema takes no arguments, got %q", c.Args().Slice())
			}
			if opts.plugin == "" {
				return usagef("tf schema needs --plugin, the Terraform provider binary")
			}
			return runTFSchema(c.Context, opts, g.stdout, g.stderr)
		},
	}
}

func runTFSchema(ctx context.Context, opts tfSchemaOptions, stdout, stderr io.Writer) error {
	logger := providersdk.NewLogger(stderr, providersdk.LevelFromEnv())
	info, err := terraform.DescribeSchema(ctx, terraform.Options{Plugin: opts.plugin, Logger: logger})
	if err != nil {
		return err
	}
	if opts.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(info)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "provider %s (plugin protocol %d)\n", info.Plugin, info.ProtocolVersion)
	writeType := func(kind string, t terraform.TypeInfo) {
		fmt.Fprintf(&b, "\n%s %s", kind, t.Name)
		if t.SchemaVersion != 0 {
			fmt.Fprintf(&b, " (schema version %d)", t.SchemaVersion)
		}
		b.WriteString("\n")
		if len(t.Attributes) == 0 {
			b.WriteString("  (no attributes)\n")
		}
		for _, a := range t.Attributes {
			fmt.Fprintf(&b, "  %-30s %-20s %s\n", a.Path, a.Type, flagsOf(a))
			if a.Description != "" {
				fmt.Fprintf(&b, "  %-30s %s\n", "", oneLine(a.Description))
			}
		}
	}
	writeType("provider configuration", info.Provider)
	for _, t := range info.ResourceTypes {
		writeType("resource type", t)
	}
	for _, t := range info.DataSources {
		writeType("data source", t)
	}
	_, err = io.WriteString(stdout, b.String())
	return err
}

// runTerraformSchema prints the schema of the provider at plugin as
// `terraform providers schema -json` does, keyed by source (or by the
// address Terraform implies for the binary's type name when source is "").
func runTerraformSchema(ctx context.Context, plugin, source string, stdout, stderr io.Writer) error {
	if source == "" {
		typ, ok := impliedProviderType(plugin)
		if !ok {
			return usagef("providers schema --format terraform: %s is not named terraform-provider-TYPE, so its source address is unknown: give --source HOST/NAMESPACE/TYPE", plugin)
		}
		source = "registry.terraform.io/hashicorp/" + typ
	}
	logger := providersdk.NewLogger(stderr, providersdk.LevelFromEnv())
	doc, err := terraform.DescribeTerraformSchema(ctx, terraform.Options{Plugin: plugin, Logger: logger}, source)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// impliedProviderType is the type a provider binary is named for:
// terraform-provider-TYPE, optionally with a _vX.Y.Z suffix as in
// Terraform's plugin directories.
func impliedProviderType(plugin string) (string, bool) {
	typ, ok := strings.CutPrefix(filepath.Base(plugin), "terraform-provider-")
	if i := strings.Index(typ, "_v"); i >= 0 {
		typ = typ[:i]
	}
	return typ, ok && typ != ""
}

func flagsOf(a terraform.AttributeInfo) string {
	var fs []string
	if a.Block {
		fs = append(fs, a.Nesting+" block")
	} else if a.Nesting != "" {
		fs = append(fs, a.Nesting+" nested")
	}
	for _, f := range []struct {
		on   bool
		name string
	}{{a.Required, "required"}, {a.Optional, "optional"}, {a.Computed, "computed"}, {a.Sensitive, "sensitive"}, {a.WriteOnly, "write-only"}, {a.Deprecated, "deprecated"}} {
		if f.on {
			fs = append(fs, f.name)
		}
	}
	return strings.Join(fs, ", ")
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 100 {
		s = s[:97] + "..."
	}
	return s
}
