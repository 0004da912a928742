package main

import (
	"fmt"
	"log/slog"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/pierhq/pier/rpcapi"
)

func newRPCAPICommand(g *globalOptions) *cli.Command {
	return &cli.Command{
		Name:  "rpcapi",
		Usage: "serve the engine over gRPC to the program that started pier (go-plugin)",
		Description: `Started by an RPC client, not by hand: the client sets ` + rpcapi.MagicCookieKey + `
and reads go-plugin's handshake line from stdout,

    1|1|unix|/tmp/…/pier-rpcapi-…/plugin…|grpc

then connects to that Unix socket (in a directory only this user can
read) and speaks pier1.proto: Setup.Handshake first, then Dependencies,
Deployments and Inspector. pier rpcapi exits when its client goes away
(its connection closes), stopping every provider it started. See
docs/rpcapi.md.

Exit codes: 0 the client went away, 1 error (e.g. started without the
cookie).`,
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usagef("rpcapi takes no arguments")
			}
			self, err := os.Executable()
			if err != nil {
				return fmt.Errorf("find pier's own executable for built-in adapters: %w", err)
			}
			// The first SIGINT or SIGTERM ends the server cleanly (its
			// providers stopped) instead of cancelling mid-operation.
			stop := g.gracefulStop()
			return rpcapi.Serve(c.Context, stop, rpcapi.Config{
				PierExecutable: self,
				Version:        version,
				Logger:         slog.New(slog.NewTextHandler(g.stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
			})
		},
	}
}
