package main

import (
	"context"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/pierhq/pier/adapters/terraform"
	"github.com/pierhq/pier/providersdk"
	"github.com/pierhq/pier/schema/logkey"
)

func newTFHoldCommand(g *globalOptions) *cli.Command {
	var plugin string
	var providerLogs bool
	return &cli.Command{
		Name:   "hold",
		Usage:  "start a Terraform provider for the bridges of one pier command (used by pier itself)",
		Hidden: true,
		Description: `Starts the Terraform provider given by --plugin and reads its schema
once, then lends the provider to the command's bridges (pier adapter
terraform --attach), so that one command starts each Terraform provider
once. The provider configuration is read from the descriptor named by
$PIER_PROVIDER_CONFIG_FD and sent when the host asks on stdin. The
protocol on stdin and stdout is in the documentation of terraform.Hold.
The provider stops when stdin closes, and dies with this process.

Exit codes: 0 stdin closed, 1 the provider could not be started, 64 usage
error.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "plugin", Usage: "path of the Terraform provider `BINARY` (required)", Destination: &plugin},
			&cli.BoolFlag{Name: "provider-logs", Usage: "turn on the provider SDK's own logs (TF_LOG_*), forwarded to stderr", EnvVars: []string{"PIER_TF_PROVIDER_LOG"}, Destination: &providerLogs},
		},
		Action: func(c *cli.Context) error {
			if c.Args().Present() {
				return usagef("tf hold takes no arguments, got %q", c.Args().Slice())
			}
			if plugin == "" {
				return usagef("tf hold needs --plugin, the Terraform provider binary")
			}
			stdin, releaseStdin, err := providersdk.TakeStdin()
			if err != nil {
				return err
			}
			defer releaseStdin()
			return runTFHold(c.Context, plugin, providerLogs, stdin, g.stdout, g.stderr)
		},
	}
}

func runTFHold(ctx context.Context, plugin string, providerLogs bool, stdin io.Reader, stdout, stderr io.Writer) error {
	logger := providersdk.NewLogger(stderr, providersdk.LevelFromEnv()).With(logkey.Adapter, "terraform")
	cfg, err := terraform.ReadConfig()
	if err != nil {
		return fmt.Errorf("provider %s: %w", plugin, err)
	}
	return terraform.Hold(ctx, terraform.Options{Plugin: plugin, Config: cfg, Logger: logger, ProviderLogs: providerLogs}, stdin, stdout)
}
