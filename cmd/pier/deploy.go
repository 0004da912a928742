package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/urfave/cli/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/pierhq/pier/host/diag"
	"github.com/pierhq/pier/host/engine"
	"github.com/pierhq/pier/host/hclsource"
	"github.com/pierhq/pier/host/nixsource"
	"github.com/pierhq/pier/host/session"
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
	writeDiagnostic(stdout, diag.Diagnostic{Severity: diag.Warning, Summary: msg})
}

func deployFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "dir", Value: ".", Usage: "directory holding the deployment's *.pier.hcl / *.pier.json files"},
		&cli.StringFlag{Name: "flake", Usage: "deploy a Nix flake instead: `REF` is PATH or PATH#ATTR (default attribute nixops4)"},
		&cli.StringFlag{Name: "file", Usage: "deploy a plain Nix `FILE` (e.g. nixops4.nix) that evaluates to a NixOps4 component, as nixops4 --file does"},
		&cli.StringSliceFlag{Name: "var", Usage: "set a variable, `NAME=VALUE` (repeatable)"},
		&cli.StringSliceFlag{Name: "var-file", Usage: "read variables from an HCL or JSON `FILE` (repeatable)"},
		&cli.IntFlag{Name: "parallelism", Value: 10, Usage: "send at most `N` provider requests at once"},
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

// loadSource opens the deployment the options name, unchecked against
// the lock file, for a command that starts no provider; dir is what its
// relative paths are relative to.
func loadSource(o deployOptions, logger *slog.Logger, stderr io.Writer) (src source.Source, dir string, err error) {
	d, err := openDeployment(o, stderr, logger, true)
	if err != nil {
		return nil, "", err
	}
	src, err = d.Source()
	return src, d.Dir(), err
}

// newEngine opens the deployment and builds an engine whose events go to
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
	d, err := openDeployment(o, stderr, logger, true)
	if err != nil {
		return nil, err
	}
	// A command that only reads state still says which providers are
	// unlocked, as one that plans does.
	return d.NewEngine(session.EngineOptions{Events: view.event, ReadOnlyState: o.ReadOnlyState})
}
