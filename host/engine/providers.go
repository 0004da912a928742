package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/pierhq/pier/host/provider"
	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/host/tfschema"
	"github.com/pierhq/pier/schema"
)

// terraformAdapter is the adapter (`pier adapter terraform`) that bridges
// a provider declared terraform = PLUGIN; what it implements is its own
// description's, in Config.Builtins.
const terraformAdapter = "terraform"

// Providers holds one lazily started pool per provider declaration. A pool
// starts processes only on first use, so a provider whose resources are all
// unchanged is never started.
type Providers struct {
	cfg   Config
	decls map[string]*source.Provider
	// tf runs the Terraform providers, one per declaration and command:
	// the plan's schema checks and every bridge share it.
	tf *tfschema.Fetcher

	mu    sync.Mutex
	pools map[string]*provider.Pool
	// early are the bridges [Providers.StartTerraform] started, by
	// provider name, until the provider's pool adopts them or close
	// discards them.
	early map[string]*provider.Early

	// released is the stop that releaseTerraform started, which close
	// waits for; releasedErr is its error, set before released is done.
	// releasedPools are the pools it stops, which started still counts.
	released      sync.WaitGroup
	releasedErr   error
	releasedPools []map[string]*provider.Pool
}

func newProviders(cfg Config) *Providers {
	return &Providers{cfg: cfg, decls: map[string]*source.Provider{}, pools: map[string]*provider.Pool{}, early: map[string]*provider.Early{},
		tf: &tfschema.Fetcher{Pier: cfg.PierExecutable, Dir: cfg.Dir, Logger: cfg.logger()}}
}

// tfConfig is a Terraform provider declaration's configuration as its
// holder reads it. It may hold credentials: it goes on a file descriptor,
// never on a command line or into state.
func tfConfig(d *source.Provider) ([]byte, error) {
	data, err := json.Marshal(d.Config)
	if err != nil {
		return nil, fmt.Errorf("provider %s: encode config: %w", d.Name, err)
	}
	return data, nil
}

// TerraformSchema returns the schema of a Terraform provider declaration,
// starting its provider process (shared with its bridges) on first use.
func (p *Providers) TerraformSchema(ctx context.Context, name string) (*tfschema.Schema, error) {
	d := p.Decl(name)
	if d == nil || d.Terraform == "" {
		return nil, fmt.Errorf("provider %q is not a Terraform provider declared in the deployment", name)
	}
	cfg, err := tfConfig(d)
	if err != nil {
		return nil, err
	}
	return p.tf.Schema(ctx, d.Terraform, cfg)
}

// StartTerraform starts, without waiting, the Terraform provider of a
// declaration (as [Providers.TerraformSchema] would) and, behind it,
// the first bridge of its pool, when the caller will ask the provider
// about n > 0 of its resources: so that the first preview need not wait
// for a bridge's own start-up (exec, the runtime's and the packages'
// initialisation) once the provider is configured. The bridge waits for
// its attachment, and the pool adopts it when its first request has it
// (see poolFor); the pool starts the others on demand, as before. Only
// one: each bridge started beside the provider competes with its start
// for the processors, and on a loaded two-core machine four of them
// delayed the provider's start by more than they saved. Only a plan
// that changes the provider's resources may call it: an unchanged
// deployment starts no provider.
func (p *Providers) StartTerraform(name string, n int) {
	d := p.Decl(name)
	if d == nil || d.Terraform == "" {
		return
	}
	cfg, err := tfConfig(d)
	if err != nil {
		return // TerraformSchema reports it
	}
	p.tf.Start(d.Terraform, cfg)
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.pools[name]; ok || p.early[name] != nil || n < 1 {
		return
	}
	pc, err := p.processConfig(d)
	if err != nil {
		return // the pool reports it
	}
	pc.Args = append(pc.Args, "--attach")
	p.early[name] = provider.StartEarly(pc, earlyBridges)
}

// earlyBridges is how many bridges StartTerraform starts: see there.
const earlyBridges = 1

// Declare records provider declarations seen in a snapshot. A later
// snapshot may add providers (a Nix source discovers them in rounds).
func (p *Providers) Declare(decls map[string]*source.Provider) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for name, d := range decls {
		if _, ok := p.decls[name]; !ok {
			p.decls[name] = d
		}
	}
}

// Operations returns the optional operations a provider declared.
func (p *Providers) Operations(name string) []schema.Operation {
	p.mu.Lock()
	d := p.decls[name]
	p.mu.Unlock()
	if d == nil {
		return nil
	}
	ops, _ := p.cfg.declaredOperations(d)
	return ops
}

// Declared reports whether the deployment declares a provider.
func (p *Providers) Declared(name string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.decls[name] != nil
}

func (p *Providers) Supports(name string, op schema.Operation) bool {
	return slices.Contains(p.Operations(name), op)
}

// declaredOperations returns the operations a declaration implies: the
// built-ins' own, or the ones it lists.
func (c Config) declaredOperations(d *source.Provider) ([]schema.Operation, error) {
	switch {
	case d.Builtin != "":
		caps, _ := schema.Builtin(c.Builtins, d.Builtin)
		return caps.Operations, nil
	case d.Terraform != "":
		return c.Builtins[terraformAdapter].Operations, nil
	}
	var ops []schema.Operation
	for _, name := range d.Operations {
		op, err := schema.ParseOperation(name)
		if err != nil {
			return nil, fmt.Errorf("provider %s: %w", d.Name, err)
		}
		ops = append(ops, op)
	}
	return ops, nil
}

// pool returns the pool of a provider, creating (not starting) it.
func (p *Providers) pool(name string) (*provider.Pool, error) {
	return p.poolFor(name, name, 0)
}

// HandlerPool returns a one-process pool dedicated to one state handler.
// A state provider may lock its storage on first use and hold the lock
// for its lifetime (state_file does), so every read and event of one
// handler must reach the same process, and no resource request may queue
// behind it. The process is never replaced (see
// [provider.NewHolderPool]): once it is lost, so is the lock.
func (p *Providers) HandlerPool(name, handler string) (*provider.Pool, error) {
	return p.poolFor(handlerKey(name, handler), name, holderPool)
}

func handlerKey(name, handler string) string { return name + " state " + handler }

// RetakeHandler replaces a state handler's lost pool with a new one,
// whose process takes the lock again on its first request: only for
// recording what was done under the lost one, once the caller has
// stopped everything else (see host/apply, handler_lost.go).
func (p *Providers) RetakeHandler(name, handler string) (*provider.Pool, error) {
	key := handlerKey(name, handler)
	p.mu.Lock()
	old := p.pools[key]
	delete(p.pools, key)
	p.mu.Unlock()
	if old != nil {
		_ = old.Close() // its process is gone; this reaps what is left
	}
	return p.HandlerPool(name, handler)
}

// holderPool is poolFor's size for a state handler's pool.
const holderPool = -1

// poolFor returns the pool under key for provider name, sized size (0:
// the declaration's parallelism; holderPool: a state handler's).
func (p *Providers) poolFor(key, name string, size int) (*provider.Pool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if pl, ok := p.pools[key]; ok {
		return pl, nil
	}
	d, ok := p.decls[name]
	if !ok {
		return nil, fmt.Errorf("provider %q is not declared in the deployment", name)
	}
	var attach []byte
	var early *provider.Early
	if d.Terraform != "" {
		// Start (or find) and configure the provider process the bridges
		// attach to, without holding the lock: it may take a while.
		p.mu.Unlock()
		cfg, err := tfConfig(d)
		if err == nil {
			attach, err = p.tf.Attachment(context.Background(), d.Terraform, cfg)
		}
		p.mu.Lock()
		if key == name {
			early = p.early[name]
			delete(p.early, name)
		}
		if err != nil {
			p.discard(early)
			return nil, fmt.Errorf("provider %s: %w", name, err)
		}
		if pl, ok := p.pools[key]; ok {
			p.adopt(pl, early, attach)
			return pl, nil
		}
	}
	pc, err := p.processConfig(d)
	if err != nil {
		p.discard(early)
		return nil, err
	}
	if attach != nil {
		pc.Args = append(pc.Args, "--attach")
		pc.ConfigData = attach
	}
	if size == holderPool {
		pl := provider.NewHolderPool(pc)
		p.pools[key] = pl
		return pl, nil
	}
	if size <= 0 {
		size = d.Parallelism
	}
	if size <= 0 {
		size = p.cfg.providerParallelism()
	}
	pl := provider.NewPool(pc, size)
	if early != nil {
		// Before any request can find the pool, under the lock: one that
		// found it empty would start a bridge of its own. A new pool has
		// room for them all, and their starts have returned long since
		// (the attachment they wait for took longer).
		pl.Adopt(early.Configure(attach))
	}
	p.pools[key] = pl
	return pl, nil
}

// discard stops the bridges StartTerraform started early, if any, which
// no pool adopts. The caller holds mu, which discard lets go of meanwhile.
func (p *Providers) discard(early *provider.Early) {
	if early == nil {
		return
	}
	p.mu.Unlock()
	defer p.mu.Lock()
	early.Discard()
}

// adopt gives pl, a pool made meanwhile, the bridges StartTerraform
// started early, if any, with their attachment. The caller holds mu,
// which adopt lets go of meanwhile: those the pool has no room for are
// stopped.
func (p *Providers) adopt(pl *provider.Pool, early *provider.Early, attach []byte) {
	if early == nil {
		return
	}
	p.mu.Unlock()
	defer p.mu.Lock()
	pl.Adopt(early.Configure(attach))
}

func (p *Providers) processConfig(d *source.Provider) (provider.Config, error) {
	ops, err := p.cfg.declaredOperations(d)
	if err != nil {
		return provider.Config{}, err
	}
	pc := provider.Config{
		Name:       d.Name,
		Env:        d.Env,
		Dir:        p.cfg.Dir,
		Operations: ops,
		Timeout:    p.cfg.Timeout,
		CloseGrace: p.cfg.CloseGrace,
		Logger:     p.cfg.logger(),
	}
	switch {
	case d.Builtin != "":
		caps, ok := schema.Builtin(p.cfg.Builtins, d.Builtin)
		if !ok {
			return provider.Config{}, fmt.Errorf("provider %s: unknown builtin %q (known: %s)", d.Name, d.Builtin, strings.Join(schema.BuiltinNames(p.cfg.Builtins), ", "))
		}
		pc.Executable = p.cfg.PierExecutable
		pc.Args = []string{"adapter", d.Builtin}
		pc.Env = BuiltinEnv(caps, d.Env, p.cfg.ReadOnlyState)
		pc.ReceiverValidates = true // pier's own adapter (providersdk)
		pc.CloseGrace = max(pc.CloseGrace, builtinCloseGrace)
	case d.Terraform != "":
		// The configuration may hold credentials: it goes to the bridge on
		// a file descriptor, never on its command line or into state.
		data, err := tfConfig(d)
		if err != nil {
			return provider.Config{}, err
		}
		pc.Executable = p.cfg.PierExecutable
		pc.Args = []string{"adapter", terraformAdapter, "--plugin", d.Terraform}
		pc.ConfigData = data
		pc.ReceiverValidates = true // the bridge serves with providersdk
	default:
		pc.Executable = d.Executable
		pc.Args = d.Args
	}
	return pc, nil
}

// builtinCloseGrace is how long pier's own adapters may take to exit once
// their stdin closes, where any other provider gets the provider
// package's default. They exit as soon as their shutdown work is done,
// and that work grows with the state: a state_file writes its
// resolved-state cache (at 100,000 resources, an encode of 16 MB and a
// hash of the 56 MB log), which on a loaded machine outlasted the default
// 5 s, so the handler was killed and the next command replayed the whole
// log instead of reading the cache. Killing one then saves nothing and
// costs the next command seconds.
const builtinCloseGrace = 30 * time.Second

// Call sends one request to a provider's pool, in the slot the
// scheduler reserved for it (see reserve) when ctx carries one.
func (p *Providers) Call(ctx context.Context, name, resource string, req *schema.Request) (*schema.Response, error) {
	if s, ok := ctx.Value(slotKey{}).(*Slot); ok && s.name == name && s.rv != nil {
		return s.rv.Call(ctx, resource, req)
	}
	pl, err := p.pool(name)
	if err != nil {
		return nil, err
	}
	return pl.Call(ctx, resource, req)
}

// Slot is a request slot of one provider's pool, reserved by the
// scheduler for one operation.
type Slot struct {
	name string
	rv   *provider.Reservation
}

type slotKey struct{}

// Reserve takes a free request slot of a provider's pool without waiting:
// the pool's size is the provider's parallelism, and a provider whose
// processes are all busy must not hold up the others. A provider without
// a pool (not declared) gets an empty slot: its call fails on its own.
func (p *Providers) Reserve(name, resource string) (*Slot, bool) {
	pl, err := p.pool(name)
	if err != nil {
		return &Slot{name: name}, true
	}
	rv, ok := pl.TryReserve(resource)
	if !ok {
		return nil, false
	}
	return &Slot{name: name, rv: rv}, true
}

// Parallelism is how many requests a provider's pool serves at once (its
// declared parallelism, or the engine's default for providers), or 0 for
// a provider that has none (not declared: its calls fail on their own).
func (p *Providers) Parallelism(name string) int {
	pl, err := p.pool(name)
	if err != nil {
		return 0
	}
	return pl.Size()
}

// WarmIndex is the index of the first of n queued resources (addr spells
// the ith's address) that the provider's pool would serve on the process
// that last served it (see
// [provider.Pool.FirstWarm]), or 0. Only a provider that previews keeps
// anything from one request of a resource to the next (the Terraform
// bridge keeps its plan), so only its queue is searched.
func (p *Providers) WarmIndex(name string, n int, addr func(i int) string) int {
	if n < 2 || !p.Supports(name, schema.OperationPreview) {
		return 0
	}
	pl, err := p.pool(name)
	if err != nil {
		return 0
	}
	return max(pl.FirstWarm(n, addr), 0)
}

// WithSlot makes the provider calls under ctx use s.
func WithSlot(ctx context.Context, s *Slot) context.Context {
	return context.WithValue(ctx, slotKey{}, s)
}

// Release gives back a slot no call used.
func (s *Slot) Release() {
	if s.rv != nil {
		s.rv.Release()
	}
}

// callHandler sends one request to a state handler's own process.
func (p *Providers) callHandler(ctx context.Context, name, handler string, req *schema.Request) (*schema.Response, error) {
	pl, err := p.HandlerPool(name, handler)
	if err != nil {
		return nil, err
	}
	return pl.Call(ctx, handler, req)
}

// callHandlerSized is callHandler that also returns the response line's
// length: for a state read, the size of the state.
func (p *Providers) callHandlerSized(ctx context.Context, name, handler string, req *schema.Request) (*schema.Response, int, error) {
	pl, err := p.HandlerPool(name, handler)
	if err != nil {
		return nil, 0, err
	}
	return pl.CallSized(ctx, handler, req)
}

// started counts provider processes started so far, by provider name.
func (p *Providers) started() map[string]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := map[string]int{}
	for _, pools := range append([]map[string]*provider.Pool{p.pools}, p.releasedPools...) {
		for key, pl := range pools {
			name, _, _ := strings.Cut(key, " state ")
			if n := pl.Started(); n > 0 {
				out[name] += n
			}
		}
	}
	return out
}

// releaseTerraform starts stopping, in the background, the Terraform
// providers and every pool that may use them (see mayUseTerraform), for
// a command that will ask them nothing more; close waits for the stop,
// and returns its error after its own. A later request to them fails
// as one after close does.
func (p *Providers) releaseTerraform() {
	p.mu.Lock()
	pools := map[string]*provider.Pool{}
	for key, pl := range p.pools {
		if p.mayUseTerraform(key) {
			pools[key] = pl
			delete(p.pools, key)
		}
	}
	early := p.early
	p.early = map[string]*provider.Early{}
	p.releasedPools = append(p.releasedPools, pools)
	p.mu.Unlock()
	p.released.Go(func() {
		errs, tfErr := p.stopTerraform(pools, early)
		err := firstError(errs, tfErr)
		p.mu.Lock()
		if p.releasedErr == nil {
			p.releasedErr = err
		}
		p.mu.Unlock()
	})
}

// stopTerraform closes pools, which may use the Terraform providers, and
// discards early, side by side, then stops the Terraform providers they
// used. It returns the pools' errors by key, and the providers'.
func (p *Providers) stopTerraform(pools map[string]*provider.Pool, early map[string]*provider.Early) (map[string]error, error) {
	errs := make(map[string]error, len(pools))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for key, pl := range pools {
		wg.Go(func() {
			err := pl.Close()
			mu.Lock()
			errs[key] = err
			mu.Unlock()
		})
	}
	// Bridges started early that no pool adopted (the plan failed before
	// it asked their provider anything) never attached: they are killed.
	for _, e := range early {
		wg.Go(e.Discard)
	}
	wg.Wait()
	return errs, p.tf.Close()
}

// firstError is the first of errs in key order, else last.
func firstError(errs map[string]error, last error) error {
	for _, key := range slices.Sorted(maps.Keys(errs)) {
		if errs[key] != nil {
			return errs[key]
		}
	}
	return last
}

// close stops every provider process and waits for them. The pools close
// side by side: a state handler's process may take a while to exit (a
// state_file writes its resolved-state cache), and the bridges, then the
// Terraform providers they used, need not wait for it. Each Terraform
// provider is stopped once every pool that could use it is closed. The
// error returned is the first in key order, then the Terraform
// providers', then that of a stop releaseTerraform started.
func (p *Providers) close() error {
	p.mu.Lock()
	pools := p.pools
	p.pools = map[string]*provider.Pool{}
	early := p.early
	p.early = map[string]*provider.Early{}
	tfPools := map[string]*provider.Pool{}
	for key, pl := range pools {
		if p.mayUseTerraform(key) {
			tfPools[key] = pl
			delete(pools, key)
		}
	}
	p.mu.Unlock()
	errs := make(map[string]error, len(pools))
	var mu sync.Mutex
	var all sync.WaitGroup
	for key, pl := range pools {
		all.Go(func() {
			err := pl.Close()
			mu.Lock()
			errs[key] = err
			mu.Unlock()
		})
	}
	tfErrs, tfErr := p.stopTerraform(tfPools, early)
	all.Wait()
	maps.Copy(errs, tfErrs)
	p.released.Wait()
	if err := firstError(errs, tfErr); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.releasedErr
}

// mayUseTerraform reports whether the pool under key may have bridges
// attached to a Terraform provider the Fetcher holds: a pool of a
// Terraform provider's declaration, or of one it cannot find (kept to be
// safe). The caller holds mu.
func (p *Providers) mayUseTerraform(key string) bool {
	name, _, _ := strings.Cut(key, " state ")
	d := p.decls[name]
	return d == nil || d.Terraform != ""
}

// Decl returns a provider's declaration, or nil.
func (p *Providers) Decl(name string) *source.Provider {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.decls[name]
}
