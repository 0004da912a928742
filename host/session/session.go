// Package session is the one way to open a deployment (an HCL directory
// or a Nix flake): the CLI's commands, the RPC service and the web view
// all open theirs here. It is a small layer over [engine.Engine] so that
// those programs do not follow the engine's API changes one by one: each
// operation loads the deployment afresh, checks its providers against the
// lock file and builds its own engine.
//
// It owns loading, lock checking and the inspector's wiring; planning
// stays in host/plan and applying in host/apply. It knows no adapter: the caller passes
// the shipped ones ([Options.Builtins], from adapters/builtin). Start at
// [Open].
package session

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/zclconf/go-cty/cty"

	"github.com/pierhq/pier/host/engine"
	"github.com/pierhq/pier/host/hclsource"
	"github.com/pierhq/pier/host/inspect"
	"github.com/pierhq/pier/host/lockfile"
	"github.com/pierhq/pier/host/modsource"
	"github.com/pierhq/pier/host/nixsource"
	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/schema"
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
	// UnsetUnknown lets variables without a value be unknown
	// (hclsource.Options.UnsetUnknown): for commands that need none.
	UnsetUnknown bool
	// Values are variable values given as values, over every other
	// source, and Asserts a test run's asserts (pier test's;
	// hclsource.Options.Values and Asserts).
	Values  map[string]cty.Value
	Asserts *hclsource.Asserts
	// PinModules writes the commit each git module source was fetched
	// at to the lock file, the first time (the CLI's plan, apply and
	// the commands that load as they do); otherwise pins are only read,
	// and a moved ref is refused. UpgradeModules (--upgrade) fetches a
	// source whose ref moved at the new commit and pins that. Pinned
	// receives a line for each pin written.
	PinModules     bool
	UpgradeModules bool
	Pinned         func(msg string)
	// WorkDir, when set, is the working directory of provider processes
	// instead of the deployment's (pier test's): relative paths (a
	// state_file's name) land there. The lock file is still the
	// deployment's.
	WorkDir string
	// PierExecutable runs the built-in adapters.
	PierExecutable string
	Parallelism    int
	Timeout        time.Duration
	// CloseGrace is the engines' [engine.Config.CloseGrace].
	CloseGrace time.Duration
	Logger     *slog.Logger
	// Lock says how providers are checked against the lock file; Warn
	// receives the warnings of lockfile.ModeWarn and the source's own (a
	// Nix deployment's old export shape, say).
	Lock lockfile.Mode
	Warn func(string)
	// Locks, when set, are checked instead of the deployment's lock file
	// (the RPC service's in-memory locks).
	Locks *lockfile.File
	// NixopsVersion is sent with state events.
	NixopsVersion string
	// Builtins are the adapters PierExecutable ships, as the engine's
	// Config.Builtins.
	Builtins schema.Adapters
	// Once says the deployment serves one command (the CLI's): the
	// source Open loaded serves its first operation rather than being
	// loaded again. Programs that keep a deployment open (the RPC
	// service, the web view) leave it unset, so that each operation sees
	// the files as they are then.
	Once bool
}

// Deployment is an opened deployment. Its methods may be called from
// several goroutines: each loads its own copy of the source.
type Deployment struct {
	opts Options
	dir  string

	// opened is the source Open loaded, kept for the first operation
	// under Options.Once.
	mu     sync.Mutex
	opened source.Source
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
		src, err := d.nix()
		if err != nil {
			return nil, err
		}
		if d.dir = src.Dir(); d.dir == "" {
			if d.dir, err = os.Getwd(); err != nil {
				return nil, err
			}
		}
	}
	src, err := d.load()
	if err != nil {
		return nil, err
	}
	if opts.Once {
		d.opened = src
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

// Source loads the deployment's source afresh, unchecked against the lock
// file: for commands that start no provider (pier validate, pier members).
func (d *Deployment) Source() (source.Source, error) { return d.take() }

// take hands out the source Open loaded, once, and loads afresh after.
func (d *Deployment) take() (source.Source, error) {
	d.mu.Lock()
	src := d.opened
	d.opened = nil
	d.mu.Unlock()
	if src != nil {
		return src, nil
	}
	return d.load()
}

func (d *Deployment) load() (source.Source, error) {
	if d.opts.Flake != "" {
		return d.nix()
	}
	h, err := d.loadHCL()
	if err != nil {
		return nil, err
	}
	return h, nil
}

func (d *Deployment) nix() (*nixsource.Source, error) {
	return nixsource.New(d.opts.Flake, nixsource.Options{Logger: d.opts.Logger, Warn: d.opts.Warn})
}

// hclOptions are the options an HCL deployment loads with. Version
// constraints choose the locked version while it fits; a lock file that
// does not parse is reported by the lock check. Git module sources are
// fetched at their pinned commits, through the returned fetcher.
func (d *Deployment) hclOptions() (hclsource.Options, *modsource.Fetcher) {
	o := hclsource.Options{Vars: d.opts.Vars, VarFiles: d.opts.VarFiles, EnvVars: d.opts.EnvVars, UnsetUnknown: d.opts.UnsetUnknown, Builtins: d.opts.Builtins, Values: d.opts.Values, Asserts: d.opts.Asserts}
	var pins map[string]string
	if lock, _, err := lockfile.Read(d.LockPath()); err == nil {
		o.LockedVersions, pins = lock.Versions(), lock.Modules
	}
	fetch := &modsource.Fetcher{Pins: pins, Upgrade: d.opts.UpgradeModules && d.opts.PinModules}
	o.FetchModule = fetch.Fetch
	return o, fetch
}

// loadHCL loads the HCL deployment, and under PinModules pins the git
// module sources it fetched: the first time, and moved only by
// --upgrade or pier modules update.
func (d *Deployment) loadHCL() (*hclsource.Deployment, error) {
	o, fetch := d.hclOptions()
	h, err := hclsource.Load(d.dir, o)
	if err != nil {
		return nil, err
	}
	if !d.opts.PinModules {
		return h, nil
	}
	changed, err := modsource.Pin(d.LockPath(), fetch.Resolved())
	if err != nil {
		return nil, err
	}
	for _, src := range changed {
		old := ""
		if c, ok := fetch.Pins[src]; ok {
			old = " (was " + c + ")"
		}
		if d.opts.Pinned != nil {
			d.opts.Pinned(fmt.Sprintf("pinned module %s to commit %s%s in %s", modsource.Redact(src), fetch.Resolved()[src], old, lockfile.Name))
		}
	}
	return h, nil
}

// locked wraps a freshly loaded source in the lock check.
func (d *Deployment) locked(warn bool) (source.Source, error) {
	src, err := d.take()
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
	return d.NewEngine(EngineOptions{Events: events})
}

// EngineOptions say how to build one operation's engine.
type EngineOptions struct {
	// Events receive its progress; nil discards them.
	Events func(engine.Event)
	// ReadOnlyState opens the state handlers that can without their
	// write lock, for an operation that only reads state.
	ReadOnlyState bool
	// Quiet leaves the lock check's warnings unsaid: for an operation
	// that starts only state handlers, whose unlocked providers will not
	// run (a mismatch still refuses).
	Quiet bool
}

// NewEngine builds an engine for one operation. The caller closes it,
// which stops every provider it started.
func (d *Deployment) NewEngine(o EngineOptions) (*engine.Engine, error) {
	src, err := d.locked(!o.Quiet)
	if err != nil {
		return nil, err
	}
	exe := d.opts.PierExecutable
	if exe == "" {
		if exe, err = os.Executable(); err != nil {
			return nil, fmt.Errorf("find pier's own executable for built-in adapters: %w", err)
		}
	}
	dir := d.dir
	if d.opts.WorkDir != "" {
		dir = d.opts.WorkDir
	}
	return engine.New(engine.Config{
		Source:         src,
		Dir:            dir,
		PierExecutable: exe,
		Parallelism:    d.opts.Parallelism,
		Timeout:        d.opts.Timeout,
		CloseGrace:     d.opts.CloseGrace,
		Logger:         d.opts.Logger,
		Events:         o.Events,
		NixopsVersion:  d.opts.NixopsVersion,
		ReadOnlyState:  o.ReadOnlyState,
		Builtins:       d.opts.Builtins,
	}), nil
}

// Snapshot is the source's first answer, with no outputs known: every
// provider, the resources whose inputs are static, and the rest blocked.
// It starts no provider (a Nix source runs nix eval).
func (d *Deployment) Snapshot(ctx context.Context) (*source.Snapshot, error) {
	src, err := d.take()
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
	for _, name := range slices.Sorted(maps.Keys(snap.Providers)) {
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
	src, err := d.loadHCL()
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

// Inspector reads the deployment's recorded state (starting only its
// state handlers) and returns an inspector over it and the variables.
func (d *Deployment) Inspector(ctx context.Context) (*inspect.Inspector, error) {
	eng, err := d.readOnly()
	if err != nil {
		return nil, err
	}
	defer eng.Close()
	states, err := eng.States(ctx)
	if err != nil {
		return nil, err
	}
	if d.opts.Flake != "" {
		return inspect.New(nil, states, nil), nil
	}
	h, err := d.loadHCL()
	if err != nil {
		return nil, err
	}
	// Module outputs are not recorded: they are evaluated against the
	// recorded outputs, as a plan would see them.
	known := source.Outputs{}
	for _, h := range slices.Sorted(maps.Keys(states)) {
		for addr, rec := range states[h].Entries {
			if _, ok := known[addr]; !ok && rec.Entry.OutputProperties != nil {
				known[addr] = rec.Entry.OutputProperties
			}
		}
	}
	modules, err := h.ModuleOutputs(ctx, known)
	if err != nil {
		return nil, err
	}
	return inspect.New(h.EvalContext(), states, modules), nil
}

// readOnly builds a quiet engine that only reads state.
func (d *Deployment) readOnly() (*engine.Engine, error) {
	return d.NewEngine(EngineOptions{ReadOnlyState: true, Quiet: true})
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
	for _, k := range slices.Sorted(maps.Keys(d.opts.Vars)) {
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
