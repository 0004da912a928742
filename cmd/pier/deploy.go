package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/pierhq/pier/adapters/builtin"
	"github.com/pierhq/pier/host/engine"
	"github.com/pierhq/pier/host/hclsource"
	"github.com/pierhq/pier/host/lockfile"
	"github.com/pierhq/pier/host/modsource"
	"github.com/pierhq/pier/host/nixsource"
	"github.com/pierhq/pier/host/source"
)

// deployOptions are the flags every command that works on a deployment
// takes: where it is, its variables, and how to run it.
type deployOptions struct {
	Dir   string
	Flake string
	// File is --file as given; Flake then holds it as a nixsource
	// file reference.
	File     string
	Vars     []string
	VarFiles []string
	// EnvVars are the variable values PIER_VAR_NAME and TF_VAR_NAME set
	// (hclsource.EnvVars), read once so that a saved plan keeps them.
	EnvVars     map[string]string
	Parallelism int
	Timeout     time.Duration
	JSON        bool
	Verbose     bool
	// ReadOnlyState opens the state handlers that support it without
	// their write lock (commands that only read state set it).
	ReadOnlyState bool
	// Lock is --lock: how providers are checked against the lock file.
	Lock string
	// UnsetVarsUnknown lets variables without a value be unknown
	// (hclsource.Options.UnsetUnknown): set by commands that need none.
	UnsetVarsUnknown bool
	// Stdout is the command's output, where --json puts warnings.
	Stdout io.Writer
	// UpgradeModules is --upgrade of plan and apply: git module sources
	// whose ref moved are fetched at the new commit and pinned to it.
	UpgradeModules bool
	// The fields below are pier test's.
	// WorkDir, when set, is the working directory of provider processes
	// instead of the deployment's: relative paths (a state_file's name)
	// land there.
	WorkDir string
	// VarValues are variable values given as values, over every other
	// source (hclsource.Options.Values).
	VarValues map[string]cty.Value
	// Asserts are a run's asserts, evaluated with the deployment.
	Asserts *hclsource.Asserts
	// UpgradeModules is --upgrade of plan and apply: git module sources
	// whose ref moved are fetched at the new commit and pinned to it.
}

// warn prints a warning once, in the command's format: a message_type
// "diagnostic" line of severity "warning" on stdout under --json, as
// errors are, or a "pier: warning:" line on stderr.
func (o deployOptions) warn(stderr io.Writer) func(string) {
	if o.JSON && o.Stdout != nil {
		return func(msg string) { writeWarning(o.Stdout, msg) }
	}
	return func(msg string) { fmt.Fprintln(stderr, "pier: warning:", msg) }
}

// writeWarning writes one warning as a --json diagnostic line.
func writeWarning(stdout io.Writer, msg string) {
	writeJSONLine(stdout, struct {
		MessageType string `json:"message_type"`
		diagnostic
	}{"diagnostic", diagnostic{Severity: "warning", Summary: msg}})
}

func deployFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "dir", Value: ".", Usage: "directory holding the deployment's *.pier.hcl / *.pier.json files"},
		&cli.StringFlag{Name: "flake", Usage: "deploy a Nix flake instead: `REF` is PATH or PATH#ATTR (default attribute nixops4)"},
		&cli.StringFlag{Name: "file", Usage: "deploy a plain Nix `FILE` (e.g. nixops4.nix) that evaluates to a NixOps4 component, as nixops4 --file does"},
		&cli.StringSliceFlag{Name: "var", Usage: "set a variable, `NAME=VALUE` (repeatable)"},
		&cli.StringSliceFlag{Name: "var-file", Usage: "read variables from an HCL or JSON `FILE` (repeatable)"},
		&cli.IntFlag{Name: "parallelism", Value: 10, Usage: "run at most `N` operations at once"},
		&cli.DurationFlag{Name: "timeout", Value: 10 * time.Minute, Usage: "bound one provider request"},
		&cli.BoolFlag{Name: "json", Usage: "print machine-readable JSON lines"},
		&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "show provider logs and evaluation rounds"},
		lockFlag(),
	}
}

func readDeployOptions(c *cli.Context) deployOptions {
	o := deployOptions{
		Dir:         c.String("dir"),
		Flake:       c.String("flake"),
		Vars:        c.StringSlice("var"),
		VarFiles:    c.StringSlice("var-file"),
		EnvVars:     hclsource.EnvVars(os.Environ()),
		Parallelism: c.Int("parallelism"),
		Timeout:     c.Duration("timeout"),
		JSON:        c.Bool("json"),
		Verbose:     c.Bool("verbose"),
		Lock:        c.String("lock"),
		// plan and apply's --upgrade (providers lock's means providers,
		// and that command loads no modules through loadSource).
		UpgradeModules: c.Bool("upgrade"),
		Stdout:         c.App.Writer,
	}
	o.File = c.String("file")
	if o.Flake == "" && o.File == "" && !hclsource.HasFiles(o.Dir) {
		// As nixops4 does: a directory with a flake.nix and no pier
		// files is the flake's deployment.
		if _, err := os.Stat(filepath.Join(o.Dir, "flake.nix")); err == nil {
			if abs, err := filepath.Abs(o.Dir); err == nil {
				o.Flake = abs
			}
		}
	}
	if f := o.File; f != "" && o.Flake == "" {
		// A Nix file travels as a reference nixsource reads as a file,
		// absolute so that a saved plan finds it from anywhere.
		abs, err := filepath.Abs(f)
		if err != nil {
			abs = f
		}
		o.Flake = nixsource.FileRefPrefix + abs
	}
	return o
}

// loadSource opens the deployment the options name.
func loadSource(o deployOptions, logger *slog.Logger, stderr io.Writer) (src source.Source, dir string, err error) {
	if o.Flake != "" {
		if o.File != "" && !strings.HasPrefix(o.Flake, nixsource.FileRefPrefix) {
			return nil, "", usagef("--file and --flake name two deployments; give one")
		}
		if len(o.Vars) > 0 || len(o.VarFiles) > 0 {
			return nil, "", usagef("--var and --var-file apply to HCL deployments, not to --flake or --file")
		}
		s, err := nixsource.New(o.Flake, nixsource.Options{Logger: logger, Warn: o.warn(stderr)})
		if err != nil {
			return nil, "", err
		}
		// Relative paths in a local flake (a state_file's name) are the
		// flake's, as --dir's are the directory's; a remote flake has no
		// directory here, so they are the working directory's.
		if dir := s.Dir(); dir != "" {
			return s, dir, nil
		}
		wd, err := os.Getwd()
		return s, wd, err
	}
	vars := map[string]string{}
	for _, kv := range o.Vars {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, "", usagef("--var %q: want NAME=VALUE", kv)
		}
		vars[k] = v
	}
	dir, err = filepath.Abs(o.Dir)
	if err != nil {
		return nil, "", err
	}
	// Version constraints choose the locked version while it fits; a
	// lock file that does not parse is lockedSource's to report.
	var locked, pins map[string]string
	lockPath := filepath.Join(dir, lockfile.Name)
	if lock, _, err := lockfile.Read(lockPath); err == nil {
		locked, pins = lock.Versions(), lock.Modules
	}
	fetch := &modsource.Fetcher{Pins: pins, Upgrade: o.UpgradeModules}
	d, err := hclsource.Load(dir, hclsource.Options{Vars: vars, VarFiles: o.VarFiles, EnvVars: o.EnvVars, UnsetUnknown: o.UnsetVarsUnknown, LockedVersions: locked, Builtins: builtin.Capabilities, Values: o.VarValues, Asserts: o.Asserts, FetchModule: fetch.Fetch})
	if err != nil {
		return nil, "", err
	}
	// A git source is pinned the first time it is fetched, and moved
	// only by --upgrade or pier modules update.
	changed, err := modsource.Pin(lockPath, fetch.Resolved())
	if err != nil {
		return nil, "", err
	}
	for _, src := range changed {
		old := ""
		if c, ok := pins[src]; ok {
			old = " (was " + c + ")"
		}
		fmt.Fprintf(stderr, "pier: pinned module %s to commit %s%s in %s\n", modsource.Redact(src), fetch.Resolved()[src], old, lockfile.Name)
	}
	return d, dir, nil
}

// newEngine loads the deployment and builds an engine whose events go to
// the progress view. The caller closes the engine.
func newEngine(o deployOptions, view *progress, stderr io.Writer) (*engine.Engine, error) {
	// Provider stderr shows under its resource; pier's own lifecycle and
	// protocol records only with --verbose.
	level := slog.LevelWarn
	if o.Verbose {
		level = slog.LevelDebug
	}
	base := slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level})
	stderrLevel := slog.LevelInfo
	if o.Verbose {
		stderrLevel = slog.LevelDebug
	}
	logger := slog.New(engine.LogHandler(view.event, stderrLevel, base))
	src, dir, err := loadSource(o, logger, stderr)
	if err != nil {
		return nil, err
	}
	if src, err = lockedSource(src, dir, o.Lock, o.warn(stderr)); err != nil {
		return nil, err
	}
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find pier's own executable for built-in adapters: %w", err)
	}
	if o.WorkDir != "" {
		dir = o.WorkDir
	}
	return engine.New(engine.Config{
		Source:         src,
		Dir:            dir,
		PierExecutable: self,
		Parallelism:    o.Parallelism,
		Timeout:        o.Timeout,
		Logger:         logger,
		Events:         view.event,
		NixopsVersion:  "pier " + version,
		ReadOnlyState:  o.ReadOnlyState,
		Builtins:       builtin.Capabilities,
	}), nil
}
