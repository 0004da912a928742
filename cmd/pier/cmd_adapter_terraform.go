package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/pierhq/pier/adapters/terraform"
	"github.com/pierhq/pier/providersdk"
	"github.com/pierhq/pier/schema/logkey"
)

// adapterTerraformOptions are the settings of `pier adapter terraform`.
type adapterTerraformOptions struct {
	plugin       string
	providerLogs bool
	timeout      time.Duration
	// attach uses the provider a holder (`pier tf hold`) started.
	attach bool
	// protocols restricts the plugin protocol versions offered (hidden,
	// for tests of version mismatches); empty offers 5 and 6.
	protocols string
}

func newAdapterTerraformCommand(g *globalOptions) *cli.Command {
	var opts adapterTerraformOptions
	return &cli.Command{
		Name:  "terraform",
		Usage: "serve a Terraform provider's resource types and data sources on stdin/stdout",
		Description: `Runs the Terraform bridge: a v0 provider whose resource types are those of
the Terraform provider binary given by --plugin (plugin protocol 5 or 6).
Data source NAME is the type "data-source-NAME". It implements the
optional operations "destroy", "read" and "import". Resources must be
stateful. Outputs are the full Terraform state plus the reserved key
"__tf" (private data, schema version, sensitive attribute paths).

The provider configuration is read as a JSON object from the file
descriptor named by $PIER_PROVIDER_CONFIG_FD (the host passes fd 3), never
from arguments; it is sent to the provider on the first request.

With --attach the descriptor carries instead what "pier tf hold" printed
to attach to the provider it started and configured: the host starts one
Terraform provider per command and provider declaration, and all its
bridges share it, calling it concurrently as Terraform does.

Otherwise the Terraform provider runs for as long as this process. Logs, including
the provider's stderr, go to stderr as JSON lines at the level named by
$PIER_LOG. SIGINT or SIGTERM tells the provider to stop (StopProvider).

Exit codes: 0 stdin closed, 1 the provider could not be started or the
protocol failed, 64 usage error, 75 outcome unknown: ApplyResourceChange
got no answer (the provider or its holder died, the call timed out or was
cancelled) or failed with an object, so the bridge exited without
answering, and the host keeps the create or destroy pending, 130
interrupted.`,
		Flags: []cli.Flag{
			&cli.StringFlag{
				Name:        "plugin",
				Usage:       "path of the Terraform provider `BINARY` (required)",
				Destination: &opts.plugin,
			},
			&cli.BoolFlag{
				Name:        "provider-logs",
				Usage:       "turn on the provider SDK's own logs (TF_LOG_*), forwarded to stderr",
				EnvVars:     []string{"PIER_TF_PROVIDER_LOG"},
				Destination: &opts.providerLogs,
			},
			&cli.DurationFlag{
				Name:        "timeout",
				Usage:       "bound each operation; when it passes the provider is told to stop (0: no bound)",
				Destination: &opts.timeout,
			},
			&cli.BoolFlag{
				Name:        "attach",
				Usage:       "use the provider that pier tf hold started, described on the configuration descriptor",
				Destination: &opts.attach,
			},
			&cli.StringFlag{
				Name:        "protocol-versions",
				Hidden:      true,
				EnvVars:     []string{"PIER_TF_PROTOCOL_VERSIONS"},
				Destination: &opts.protocols,
			},
		},
		Action: func(c *cli.Context) error {
			if c.Args().Present() {
				return usagef("adapter terraform takes no arguments, got %q", c.Args().Slice())
			}
			if opts.plugin == "" {
				return usagef("adapter terraform needs --plugin, the Terraform provider binary")
			}
			// The provider the bridge starts must not inherit the request
			// stream: serve it from a descriptor of its own.
			stdin, releaseStdin, err := providersdk.TakeStdin()
			if err != nil {
				return err
			}
			defer releaseStdin()
			frames, release, err := providersdk.TakeStdout()
			if err != nil {
				return err
			}
			err = runAdapterTerraform(c.Context, opts, stdin, frames, g.stderr)
			return errors.Join(err, release())
		},
	}
}

// runAdapterTerraform serves the bridge until stdin closes or ctx ends.
func runAdapterTerraform(ctx context.Context, opts adapterTerraformOptions, stdin io.Reader, stdout, stderr io.Writer) error {
	versions, err := parseProtocolVersions(opts.protocols)
	if err != nil {
		return err
	}
	logger := providersdk.NewLogger(stderr, providersdk.LevelFromEnv()).With(logkey.Adapter, "terraform")
	if opts.attach && os.Getenv("GOMAXPROCS") == "" {
		// An attached bridge serves one request at a time (ServeIO reads
		// the next only after answering) on one goroutine, which also
		// makes the request's gRPC calls: it never has two things to run
		// at once. A second processor only costs it the runtime waking a
		// thread to look for work at every handoff (a request line read,
		// an answer off the socket) and putting it back to sleep.
		runtime.GOMAXPROCS(1)
	}
	var cfg map[string]any
	var att *terraform.Attachment
	if opts.attach {
		att, err = terraform.ReadAttachment()
	} else {
		cfg, err = terraform.ReadConfig()
	}
	if err != nil {
		return fmt.Errorf("provider %s: %w", opts.plugin, err)
	}
	b, err := terraform.New(ctx, terraform.Options{
		Attach:           att,
		Plugin:           opts.plugin,
		Config:           cfg,
		Logger:           logger,
		ProviderLogs:     opts.providerLogs,
		ProtocolVersions: versions,
		Timeout:          opts.timeout,
	})
	if err != nil {
		// Answer what the host sends with the cause until it lets go, so
		// that it knows nothing reached a provider; then fail.
		logger.Error("the Terraform provider is unavailable; answering every request with the cause", logkey.Error, err)
		serveErr := providersdk.ServeIO(ctx, terraform.Unavailable(err), stdin, stdout, providersdk.Options{Logger: logger, HostValidates: true})
		return errors.Join(err, serveErr)
	}
	defer b.Close()
	return providersdk.ServeIO(ctx, b, stdin, stdout, providersdk.Options{Logger: logger, HostValidates: true})
}

func parseProtocolVersions(s string) ([]int, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || (v != 5 && v != 6) {
			return nil, usagef("--protocol-versions: %q is not 5 or 6", f)
		}
		out = append(out, v)
	}
	return out, nil
}
