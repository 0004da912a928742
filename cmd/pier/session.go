package main

import (
	"io"
	"log/slog"
	"strings"

	"github.com/pierhq/pier/adapters/builtin"
	"github.com/pierhq/pier/host/lockfile"
	"github.com/pierhq/pier/host/session"
)

// openSession opens the deployment the options name through host/session,
// the layer pier eval, pier console, pier providers and pier rpcapi share.
func openSession(o deployOptions, stderr io.Writer) (*session.Deployment, error) {
	mode, err := lockfile.ParseMode(o.Lock)
	if err != nil {
		return nil, usageError{err}
	}
	opts := session.Options{
		Flake:         o.Flake,
		VarFiles:      o.VarFiles,
		EnvVars:       o.EnvVars,
		Parallelism:   o.Parallelism,
		Timeout:       o.Timeout,
		Lock:          mode,
		NixopsVersion: "pier " + version,
		Builtins:      builtin.Capabilities,
		Warn:          o.warn(stderr),
	}
	if o.Flake == "" {
		opts.Dir = o.Dir
	} else if len(o.Vars) > 0 || len(o.VarFiles) > 0 {
		return nil, usagef("--var and --var-file apply to HCL deployments, not to --flake")
	}
	if len(o.Vars) > 0 {
		opts.Vars = map[string]string{}
		for _, kv := range o.Vars {
			k, v, ok := strings.Cut(kv, "=")
			if !ok || k == "" {
				return nil, usagef("--var %q: want NAME=VALUE", kv)
			}
			opts.Vars[k] = v
		}
	}
	level := slog.LevelWarn
	if o.Verbose {
		level = slog.LevelDebug
	}
	opts.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	return session.Open(opts)
}
