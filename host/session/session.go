// Package session opens a deployment (an HCL directory or a Nix flake) for
// programs that drive the engine for longer than one command: the RPC
// service, pier eval and pier console. It is a small layer over
// [engine.Engine] so that those programs do not follow the engine's API
// changes one by one: each operation loads the deployment afresh, checks
// its providers against the lock file and builds its own engine.
//
// It owns loading, lock checking and the inspector's wiring; planning and
// applying stay in host/engine. Start at [Open].
package session

import (
	"context"
	"errors"
	"fmt"
	"github.com/pierhq/pier/schema"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/pierhq/pier/host/engine"
	"github.com/pierhq/pier/host/hclsource"
	"github.com/pierhq/pier/host/inspect"
	"github.com/pierhq/pier/host/lockfile"
	"github.com/pierhq/pier/host/modsource"
	"github.com/pierhq/pier/host/nixsource"
	"github.com/pierhq/pier/host/source"
)

// Options say which deployment to open and how to run it.
type Options struct {
	// Dir is an HCL deployment's directory; Flake (PATH or PATH#ATTR) a
	// Nix one. Exactly one is set.
	Dir   string
	Flake string
	// Vars and VarFiles set an HCL deployment's variables.
	Vars     map[string]string
	VarFiles []string
	// EnvVars are variable values from the environment
	// (hclsource.Options.EnvVars).
	EnvVars map[string]string
	// PierExecutable runs the built-in adapters.
	PierExecutable string
	Parallelism    int
	Timeout        time.Duration
	Logger         *slog.Logger
	// Lock says how providers are checked against the lock file; Warn
	// receives the warnings of lockfile.ModeWarn.
	Lock lockfile.Mode
	Warn func(string)
	// Locks, when set, are checked instead of the deployment's lock file
	// (the RPC service's in-memory locks).
	Locks *lockfile.File
	// NixopsVersion is sent with state events.
	NixopsVersion string
	// Builtins are the adapters PierExecutable ships, as the engine's
	// Config.Builtins.
	Builtins map[string]schema.Capabilities
}

// Deployment is an opened deployment. Its methods may be called from
// several goroutines: each loads its own copy of the source.
type Deployment struct {
	opts Options
	dir  string
}

// Open checks that the deployment loads. A configuration error is a
// [*hclsource.DiagnosticsError] (the user's), any other error pier's or
// the system's.
func Open(opts Options) (*Deployment, error) {
	if (opts.Dir == "") == (opts.Flake == "") {
		return nil, errors.New("open deployment: give a directory or a flake, not both or neither")
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	d := &Deployment{opts: opts}
	if opts.Dir != "" {
		abs, err := filepath.Abs(opts.Dir)
		if err != nil {
			return nil, err
		}
		d.dir = abs
	} else {
		// A local flake's relative paths (a state_file's name) are its
		// directory's, as the CLI resolves them, not this process's
		// working directory: an RPC server runs anywhere. Only a flake
		// with no directory here (github:…) falls back to the latter.
		src, err := nixsource.New(opts.Flake, nixsource.Options{Logger: opts.Logger})
		if err != nil {
			return nil, err
		}
		if d.dir = src.Dir(); d.dir == "" {
			if d.dir, err = os.Getwd(); err != nil {
				return nil, err
			}
		}
	}
	if _, err := d.load(); err != nil {
		return nil, err
	}
	return d, nil
}

// Dir is the deployment's directory (a local flake's own, the working
// directory for a remote one): where its lock file is, and what relative
// paths in it are relative to.
func (d *Deployment) Dir() string { return d.dir }

// Name describes the deployment for messages.
func (d *Deployment) Name() string {
	if d.opts.Flake != "" {
		return d.opts.Flake
	}
	return d.dir
}

// LockPath is where the deployment's lock file is.
func (d *Deployment) LockPath() string { return filepath.Join(d.dir, lockfile.Name) }

func (d *Deployment) load() (source.Source, error) {
	if d.opts.Flake != "" {
		return nixsource.New(d.opts.Flake, nixsource.Options{Logger: d.opts.Logger})
	}
	return hclsource.Load(d.dir, d.hclOptions())
}

// hclOptions are the options an HCL deployment loads with. Version
// constraints choose the locked version while it fits; a lock file that
// does not parse is reported by the lock check.
func (d *Deployment) hclOptions() hclsource.Options {
	o := hclsource.Options{Vars: d.opts.Vars, VarFiles: d.opts.VarFiles, EnvVars: d.opts.EnvVars, Builtins: d.opts.Builtins}
	var pins map[string]string
	if lock, _, err := lockfile.Read(d.LockPath()); err == nil {
		o.LockedVersions, pins = lock.Versions(), lock.Modules
	}
	// Git module sources are fetched at their pinned commits; a moved
	// ref is refused. Pins are the CLI's to write (pier plan, pier
	// modules update).
	o.FetchModule = (&modsource.Fetcher{Pins: pins}).Fetch
	return o
}

// locked wraps a freshly loaded source in the lock check.
func (d *Deployment) locked(warn bool) (source.Source, error) {
	src, err := d.load()
	if err != nil {
		return nil, err
	}
	if d.opts.Lock == lockfile.ModeOff {
		return src, nil
	}
	lock, exists := d.opts.Locks, true
	if lock == nil {
		if lock, exists, err = lockfile.Read(d.LockPath()); err != nil {
			return nil, err
		}
	}
	w := d.opts.Warn
	if !warn {
		w = nil
	}
	return &lockfile.Source{Source: src, Lock: lock, Dir: d.dir, Mode: d.opts.Lock, NoFile: !exists, Warn: w}, nil
}

// Engine builds an engine for one operation; events receive its progress
// (nil discards them). The caller closes it, which stops every provider it
// started.
func (d *Deployment) Engine(events func(engine.Event)) (*engine.Engine, error) {
	return d.engine(events, false)
}

// engine builds an engine; readOnly opens the state handlers that can
// without their write lock, for operations that only read state.
func (d *Deployment) engine(events func(engine.Event), readOnly bool) (*engine.Engine, error) {
	// Reading state starts only state handlers: a mismatch still
	// refuses, but unlocked providers that will not run do not warn.
	src, err := d.locked(!readOnly)
	if err != nil {
		return nil, err
	}
	exe := d.opts.PierExecutable
	if exe == "" {
		if exe, err = os.Executable(); err != nil {
			return nil, fmt.Errorf("find pier's own executable for built-in adapters: %w", err)
		}
	}
	return engine.New(engine.Config{
		Source:         src,
		Dir:            d.dir,
		PierExecutable: exe,
		Parallelism:    d.opts.Parallelism,
		Timeout:        d.opts.Timeout,
		Logger:         d.opts.Logger,
		Events:         events,
		NixopsVersion:  d.opts.NixopsVersion,
		ReadOnlyState:  readOnly,
		Builtins:       d.opts.Builtins,
	}), nil
}

// Snapshot is the source's first answer, with no outputs known: every
// provider, the resources whose inputs are static, and the rest blocked.
// It starts no provider (a Nix source runs nix eval).
func (d *Deployment) Snapshot(ctx context.Context) (*source.Snapshot, error) {
	src, err := d.load()
	if err != nil {
		return nil, err
	}
	return src.Resolve(ctx, source.Outputs{})
}

// Validate checks the deployment without state: it loads and evaluates,
// and checks every provider against the lock file as plan would.
func (d *Deployment) Validate(ctx context.Context) error {
	src, err := d.locked(true)
	if err != nil {
		return err
	}
	_, err = src.Resolve(ctx, source.Outputs{})
	return err
}

// Components lists what the deployment declares.
type Components struct {
	Resources []Resource
	Providers []ProviderInfo
	Outputs   []string
}

// Resource is one resource (instance) of the deployment.
type Resource struct {
	Address  string
	Provider string
	Type     string
	Stateful bool
	// Blocked means its inputs wait on other resources' outputs.
	Blocked bool
	Range   source.Range
}

// ProviderInfo is one provider declaration and what runs it.
type ProviderInfo struct {
	Name string
	// Kind is builtin, executable, terraform or terraform package.
	Kind string
	// Where is the executable, or the builtin's name.
	Where   string
	Source  string
	Version string
	Range   source.Range
}

// Components resolves the deployment once, with no outputs known.
func (d *Deployment) Components(ctx context.Context) (*Components, error) {
	snap, err := d.Snapshot(ctx)
	if err != nil {
		return nil, err
	}
	c := &Components{}
	for _, r := range snap.Ready {
		c.Resources = append(c.Resources, Resource{Address: r.Address.String(), Provider: r.Provider, Type: r.Type, Stateful: r.Stateful(), Range: r.Range})
	}
	for _, b := range snap.Blocked {
		r := Resource{Address: b.Address.String(), Blocked: true}
		if b.Resource != nil {
			r.Provider, r.Type, r.Stateful, r.Range = b.Resource.Provider, b.Resource.Type, b.Resource.Stateful(), b.Resource.Range
		}
		c.Resources = append(c.Resources, r)
	}
	slices.SortFunc(c.Resources, func(a, b Resource) int { return strings.Compare(a.Address, b.Address) })
	for _, name := range sortedKeys(snap.Providers) {
		c.Providers = append(c.Providers, Describe(snap.Providers[name]))
	}
	if h, ok := d.hcl(); ok {
		c.Outputs = h
	}
	for _, o := range snap.Outputs {
		if !slices.Contains(c.Outputs, o.Name) {
			c.Outputs = append(c.Outputs, o.Name)
		}
	}
	slices.Sort(c.Outputs)
	return c, nil
}

// hcl lists an HCL deployment's output names, known before apply.
func (d *Deployment) hcl() ([]string, bool) {
	if d.opts.Flake != "" {
		return nil, false
	}
	src, err := hclsource.Load(d.dir, d.hclOptions())
	if err != nil {
		return nil, false
	}
	return src.OutputNames(), true
}

// Describe says what runs a provider declaration.
func Describe(p *source.Provider) ProviderInfo {
	info := ProviderInfo{Name: p.Name, Source: p.Source, Version: p.Version, Range: p.Range}
	switch {
	case p.Builtin != "":
		info.Kind, info.Where = "builtin", p.Builtin
	case p.Source != "":
		info.Kind, info.Where = "terraform package", p.Terraform
	case p.Terraform != "":
		info.Kind, info.Where = "terraform", p.Terraform
	default:
		info.Kind, info.Where = "executable", p.Executable
	}
	return info
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Inspector reads the deployment's recorded state (starting only its
// state handlers) and returns an inspector over it and the variables.
func (d *Deployment) Inspector(ctx context.Context) (*inspect.Inspector, error) {
	eng, err := d.engine(nil, true)
	if err != nil {
		return nil, err
	}
	defer eng.Close()
	states, err := eng.States(ctx)
	if err != nil {
		return nil, err
	}
	if d.opts.Flake != "" {
		return inspect.New(nil, states), nil
	}
	h, err := hclsource.Load(d.dir, d.hclOptions())
	if err != nil {
		return nil, err
	}
	return inspect.New(h.EvalContext(), states), nil
}

// Ref says where the deployment came from, for a saved plan: the
// absolute directory or the flake, the variables (NAME=VALUE, sorted) and
// the variable files (absolute).
type Ref struct {
	Dir      string
	Flake    string
	Vars     []string
	VarFiles []string
}

// Ref returns the deployment's [Ref].
func (d *Deployment) Ref() (Ref, error) {
	r := Ref{Flake: d.opts.Flake}
	if d.opts.Flake == "" {
		r.Dir = d.dir
	}
	for _, k := range sortedKeys(d.opts.Vars) {
		r.Vars = append(r.Vars, k+"="+d.opts.Vars[k])
	}
	for _, f := range d.opts.VarFiles {
		abs, err := filepath.Abs(f)
		if err != nil {
			return r, fmt.Errorf("variable file %s: %w", f, err)
		}
		r.VarFiles = append(r.VarFiles, abs)
	}
	return r, nil
}
