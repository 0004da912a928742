package main

import (
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/pierhq/pier/adapters/builtin"
	"github.com/pierhq/pier/host/lockfile"
	"github.com/pierhq/pier/host/nixsource"
	"github.com/pierhq/pier/host/session"
)

// openSession opens the deployment the options name for a command that
// may run several operations on it (pier ui, pier console), its logs on
// stderr.
func openSession(o deployOptions, stderr io.Writer) (*session.Deployment, error) {
	return openDeployment(o, stderr, nil, false)
}

// openDeployment opens the deployment the options name through
// host/session, the one way every command, the RPC service and the web
// view open one. logger receives the source's and the engines' logs (nil:
// stderr, at warn level or with --verbose debug); once says the command
// runs one operation on it, which then uses the source Open loaded.
func openDeployment(o deployOptions, stderr io.Writer, logger *slog.Logger, once bool) (*session.Deployment, error) {
	mode, err := lockfile.ParseMode(o.Lock)
	if err != nil {
		return nil, usageError{err}
	}
	opts := session.Options{
		Flake:         o.Flake,
		VarFiles:      o.VarFiles,
		EnvVars:       o.EnvVars,
		UnsetUnknown:  o.UnsetVarsUnknown,
		Parallelism:   o.Parallelism,
		Timeout:       o.Timeout,
		CloseGrace:    profilingCloseGrace(),
		Lock:          mode,
		NixopsVersion: "pier " + version,
		Builtins:      builtin.Capabilities,
		Warn:          o.warn(stderr),
		Logger:        logger,
		Once:          once,
		// The commands that load as plan does pin git module sources.
		PinModules:     once,
		UpgradeModules: o.UpgradeModules,
		Pinned:         func(msg string) { fmt.Fprintln(stderr, "pier: "+msg) },
		WorkDir:        o.WorkDir,
		Values:         o.VarValues,
		Asserts:        o.Asserts,
	}
	if o.Flake == "" {
		opts.Dir = o.Dir
	} else if o.File != "" && !strings.HasPrefix(o.Flake, nixsource.FileRefPrefix) {
		return nil, usagef("--file and --flake name two deployments; give one")
	} else if len(o.Vars) > 0 || len(o.VarFiles) > 0 {
		return nil, usagef("--var and --var-file apply to HCL deployments, not to --flake or --file")
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
	if opts.Logger == nil {
		level := slog.LevelWarn
		if o.Verbose {
			level = slog.LevelDebug
		}
		opts.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	}
	return session.Open(opts)
}
