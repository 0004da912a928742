package rpcapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/pierhq/pier/adapters/builtin"
	"github.com/pierhq/pier/adapters/terraform"
	"github.com/pierhq/pier/host/apply"
	"github.com/pierhq/pier/host/engine"
	"github.com/pierhq/pier/host/execgraph"
	"github.com/pierhq/pier/host/inspect"
	"github.com/pierhq/pier/host/lockfile"
	"github.com/pierhq/pier/host/plan"
	"github.com/pierhq/pier/host/planfile"
	"github.com/pierhq/pier/host/session"
	"github.com/pierhq/pier/rpcapi/pier1"
	"github.com/pierhq/pier/schema"
)

// Config holds a [Server]'s settings.
type Config struct {
	// PierExecutable runs the built-in adapters.
	PierExecutable string
	// Version is pier's version, for the handshake.
	Version string
	// Logger receives the server's own logs; nil discards them.
	Logger *slog.Logger
}

// Server implements pier's RPC services. One server serves one client:
// the handshake is per server.
type Server struct {
	pier1.UnimplementedSetupServer
	pier1.UnimplementedDependenciesServer
	pier1.UnimplementedDeploymentsServer
	pier1.UnimplementedInspectorServer

	cfg     Config
	handles *handles

	handshakeMu sync.Mutex
	shaken      atomic.Bool
	client      *pier1.ClientCapabilities

	// stopped is closed by Setup.Stop.
	stopped  chan struct{}
	stopOnce sync.Once
}

// NewServer returns a server with no open handles.
func NewServer(cfg Config) *Server {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Server{cfg: cfg, handles: newHandles(), stopped: make(chan struct{})}
}

// Stop implements Setup.Stop.
func (s *Server) Stop(ctx context.Context, req *pier1.Stop_Request) (*pier1.Stop_Response, error) {
	s.stopOnce.Do(func() { close(s.stopped) })
	return &pier1.Stop_Response{}, nil
}

// untilStopped is ctx, cancelled as well once Setup.Stop is called; the
// caller calls cancel.
func (s *Server) untilStopped(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		select {
		case <-s.stopped:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}

// Register adds the services to a gRPC server.
func (s *Server) Register(g *grpc.Server) {
	pier1.RegisterSetupServer(g, s)
	pier1.RegisterDependenciesServer(g, s)
	pier1.RegisterDeploymentsServer(g, s)
	pier1.RegisterInspectorServer(g, s)
}

// Close closes every open handle, stopping every provider the server
// started, and waits for them.
func (s *Server) Close() error { return s.handles.closeAll() }

// ServerOptions are the interceptors that make every call but the first
// Handshake wait for it.
func (s *Server) ServerOptions() []grpc.ServerOption {
	return []grpc.ServerOption{
		grpc.ChainUnaryInterceptor(func(ctx context.Context, req any, info *grpc.UnaryServerInfo, next grpc.UnaryHandler) (any, error) {
			if err := s.gate(info.FullMethod); err != nil {
				return nil, err
			}
			return next(ctx, req)
		}),
		grpc.ChainStreamInterceptor(func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, next grpc.StreamHandler) error {
			if err := s.gate(info.FullMethod); err != nil {
				return err
			}
			return next(srv, ss)
		}),
	}
}

// gate refuses pier's own services before the handshake. go-plugin's
// services (health, broker, controller, stdio) are not gated: go-plugin
// clients call them before any of ours.
func (s *Server) gate(method string) error {
	if method == pier1.Setup_Handshake_FullMethodName || !isPierMethod(method) || s.shaken.Load() {
		return nil
	}
	return status.Errorf(codes.FailedPrecondition, "%s called before Setup.Handshake: the handshake must come first", method)
}

func isPierMethod(m string) bool { return len(m) > 7 && m[:7] == "/pier1." }

// Handshake implements Setup.Handshake.
func (s *Server) Handshake(ctx context.Context, req *pier1.Handshake_Request) (*pier1.Handshake_Response, error) {
	s.handshakeMu.Lock()
	defer s.handshakeMu.Unlock()
	if s.shaken.Load() {
		return nil, status.Error(codes.FailedPrecondition, "Setup.Handshake was already called: it may be called only once per server")
	}
	client := req.GetCapabilities()
	if client == nil {
		client = &pier1.ClientCapabilities{}
	}
	s.client = client
	s.shaken.Store(true)
	_, nixErr := exec.LookPath("nix")
	return &pier1.Handshake_Response{
		ServerVersion: s.cfg.Version,
		Capabilities: &pier1.ServerCapabilities{
			ProviderLogs:             client.ProviderLogs,
			SavedPlans:               true,
			FlakeDeployments:         nixErr == nil,
			LockVerification:         true,
			TerraformProviderSchemas: true,
		},
	}, nil
}

func (s *Server) providerLogs() bool { return s.client != nil && s.client.ProviderLogs }

// --- Dependencies -------------------------------------------------------

func (s *Server) OpenDependencyLockFile(ctx context.Context, req *pier1.OpenDependencyLockFile_Request) (*pier1.OpenDependencyLockFile_Response, error) {
	path := req.GetPath()
	if info, err := os.Stat(path); err == nil && info.IsDir() {
		path = filepath.Join(path, lockfile.Name)
	}
	f, _, err := lockfile.Read(path)
	if err != nil {
		return &pier1.OpenDependencyLockFile_Response{Diagnostics: diagnostics(err)}, nil
	}
	return &pier1.OpenDependencyLockFile_Response{DependencyLocksHandle: s.handles.add(kindLocks, f)}, nil
}

func (s *Server) CreateDependencyLocks(ctx context.Context, req *pier1.CreateDependencyLocks_Request) (*pier1.CreateDependencyLocks_Response, error) {
	f := lockfile.New()
	for _, p := range req.GetProviderSelections() {
		e := &lockfile.Entry{Key: p.Key, Version: p.Version, Hashes: slices.Clone(p.Hashes), Executable: p.Executable, Terraform: p.Terraform, StorePath: p.StorePath}
		switch {
		case p.StorePath != "":
			e.Kind = lockfile.KindStorePath
		case p.Executable != "":
			e.Kind = lockfile.KindExecutable
		default:
			e.Kind = lockfile.KindPackage
		}
		if p.Key == "" {
			return nil, status.Error(codes.InvalidArgument, "a provider selection has no key")
		}
		f.Entries[p.Key] = e
	}
	return &pier1.CreateDependencyLocks_Response{DependencyLocksHandle: s.handles.add(kindLocks, f)}, nil
}

func (s *Server) CloseDependencyLocks(ctx context.Context, req *pier1.CloseDependencyLocks_Request) (*pier1.CloseDependencyLocks_Response, error) {
	if _, err := s.handles.remove(kindLocks, req.GetDependencyLocksHandle()); err != nil {
		return nil, err
	}
	return &pier1.CloseDependencyLocks_Response{}, nil
}

func (s *Server) GetLockedProviderDependencies(ctx context.Context, req *pier1.GetLockedProviderDependencies_Request) (*pier1.GetLockedProviderDependencies_Response, error) {
	obj, err := s.handles.get(kindLocks, req.GetDependencyLocksHandle())
	if err != nil {
		return nil, err
	}
	f := obj.(*lockfile.File)
	resp := &pier1.GetLockedProviderDependencies_Response{}
	keys := slices.Sorted(maps.Keys(f.Entries))
	for _, k := range keys {
		e := f.Entries[k]
		resp.SelectedProviders = append(resp.SelectedProviders, &pier1.ProviderLock{Key: e.Key, Version: e.Version, Hashes: slices.Clone(e.Hashes), Executable: e.Executable, Terraform: e.Terraform, StorePath: e.StorePath})
	}
	return resp, nil
}

func (s *Server) GetProviderSchema(ctx context.Context, req *pier1.GetProviderSchema_Request) (*pier1.GetProviderSchema_Response, error) {
	dep, err := s.deployment(req.GetDeploymentHandle())
	if err != nil {
		return nil, err
	}
	snap, err := dep.d.Snapshot(ctx)
	if err != nil {
		return &pier1.GetProviderSchema_Response{Diagnostics: diagnostics(err)}, nil
	}
	p := snap.Providers[req.GetProviderName()]
	if p == nil {
		return &pier1.GetProviderSchema_Response{Diagnostics: []*pier1.Diagnostic{{Severity: pier1.Diagnostic_ERROR,
			Summary: fmt.Sprintf("the deployment declares no provider %q", req.GetProviderName())}}}, nil
	}
	if p.Terraform == "" {
		why := "a v0 provider cannot describe itself: the protocol has no schema request, so its resource types and inputs are unknown until it answers a request"
		if p.Builtin != "" {
			why = "pier's built-in " + p.Builtin + " provider has no machine-readable schema; GetBuiltInProviders lists its resource types"
		}
		return &pier1.GetProviderSchema_Response{Status: pier1.GetProviderSchema_Response_UNKNOWN, Reason: why}, nil
	}
	// Starting a provider runs its code: check it against the locks first.
	if dep.lockMode != lockfile.ModeOff {
		if _, err := dep.locks().Verify(p, dep.d.Dir()); err != nil {
			var ue *lockfile.UnlockedError
			if !errors.As(err, &ue) || dep.lockMode == lockfile.ModeStrict {
				return &pier1.GetProviderSchema_Response{Diagnostics: diagnostics(err)}, nil
			}
		}
	}
	info, err := terraform.DescribeSchema(ctx, terraform.Options{Plugin: p.Terraform, Config: p.Config, Logger: s.cfg.Logger})
	if err != nil {
		return &pier1.GetProviderSchema_Response{Diagnostics: diagnostics(err)}, nil
	}
	b, err := json.Marshal(info)
	if err != nil {
		return nil, status.Errorf(codes.Internal, "encode schema: %v", err)
	}
	return &pier1.GetProviderSchema_Response{Status: pier1.GetProviderSchema_Response_KNOWN, SchemaJson: b}, nil
}

// GetBuiltInProviders lists the adapters a deployment names with builtin =
// NAME, each as it describes itself.
func (s *Server) GetBuiltInProviders(ctx context.Context, req *pier1.GetBuiltInProviders_Request) (*pier1.GetBuiltInProviders_Response, error) {
	resp := &pier1.GetBuiltInProviders_Response{}
	for _, name := range schema.BuiltinNames(builtin.Capabilities) {
		c := builtin.Capabilities[name]
		p := &pier1.BuiltInProvider{Name: name, ResourceTypes: c.ResourceTypes, StateTypes: c.StateTypes}
		for _, op := range c.Operations {
			p.Operations = append(p.Operations, string(op))
		}
		resp.Providers = append(resp.Providers, p)
	}
	return resp, nil
}

// --- Deployments ----------------------------------------------------------

// deployment is an open deployment handle's object.
type deployment struct {
	d        *session.Deployment
	lockMode lockfile.Mode
	lockFile *lockfile.File // from a locks handle, or nil for the file

	mu   sync.Mutex
	warn func(string) // where lock warnings go now
}

func (d *deployment) locks() *lockfile.File {
	if d.lockFile != nil {
		return d.lockFile
	}
	f, _, err := lockfile.Read(d.d.LockPath())
	if err != nil {
		return lockfile.New()
	}
	return f
}

func (d *deployment) onWarn(msg string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.warn != nil {
		d.warn(msg)
	}
}

func (d *deployment) setWarn(f func(string)) {
	d.mu.Lock()
	d.warn = f
	d.mu.Unlock()
}

func (s *Server) deployment(h int64) (*deployment, error) {
	obj, err := s.handles.get(kindDeployment, h)
	if err != nil {
		return nil, err
	}
	return obj.(*deployment), nil
}

func (s *Server) OpenDeployment(ctx context.Context, req *pier1.OpenDeployment_Request) (*pier1.OpenDeployment_Response, error) {
	dep := &deployment{}
	opts := session.Options{
		Dir:            req.GetDir(),
		Flake:          req.GetFlake(),
		Vars:           req.GetVars(),
		VarFiles:       req.GetVarFiles(),
		PierExecutable: s.cfg.PierExecutable,
		Logger:         s.cfg.Logger,
		NixopsVersion:  "pier " + s.cfg.Version,
		Warn:           dep.onWarn,
		Builtins:       builtin.Capabilities,
	}
	switch req.GetLockMode() {
	case pier1.LockMode_LOCK_STRICT:
		opts.Lock = lockfile.ModeStrict
	case pier1.LockMode_LOCK_OFF:
		opts.Lock = lockfile.ModeOff
	}
	dep.lockMode = opts.Lock
	if lh := req.GetDependencyLocksHandle(); lh != 0 {
		obj, err := s.handles.get(kindLocks, lh)
		if err != nil {
			return nil, err
		}
		dep.lockFile = obj.(*lockfile.File)
		opts.Locks = dep.lockFile
	}
	if opts.Dir == "" && opts.Flake == "" {
		return nil, status.Error(codes.InvalidArgument, "OpenDeployment needs dir or flake")
	}
	// A relative var file is the deployment's, as a state file's name is:
	// this server's working directory means nothing to its client.
	if opts.Dir != "" {
		opts.VarFiles = slices.Clone(opts.VarFiles)
		for i, f := range opts.VarFiles {
			if !filepath.IsAbs(f) {
				opts.VarFiles[i] = filepath.Join(opts.Dir, f)
			}
		}
	}
	d, err := session.Open(opts)
	if err != nil {
		return &pier1.OpenDeployment_Response{Diagnostics: diagnostics(err)}, nil
	}
	dep.d = d
	return &pier1.OpenDeployment_Response{DeploymentHandle: s.handles.add(kindDeployment, dep, req.GetDependencyLocksHandle())}, nil
}

func (s *Server) CloseDeployment(ctx context.Context, req *pier1.CloseDeployment_Request) (*pier1.CloseDeployment_Response, error) {
	if _, err := s.handles.remove(kindDeployment, req.GetDeploymentHandle()); err != nil {
		return nil, err
	}
	return &pier1.CloseDeployment_Response{}, nil
}

func (s *Server) ValidateDeployment(ctx context.Context, req *pier1.ValidateDeployment_Request) (*pier1.ValidateDeployment_Response, error) {
	dep, err := s.deployment(req.GetDeploymentHandle())
	if err != nil {
		return nil, err
	}
	var warnings []*pier1.Diagnostic
	var mu sync.Mutex
	dep.setWarn(func(m string) { mu.Lock(); warnings = append(warnings, warning(m)); mu.Unlock() })
	defer dep.setWarn(nil)
	err = dep.d.Validate(ctx)
	return &pier1.ValidateDeployment_Response{Diagnostics: append(warnings, diagnostics(err)...)}, nil
}

func (s *Server) ListComponents(ctx context.Context, req *pier1.ListComponents_Request) (*pier1.ListComponents_Response, error) {
	dep, err := s.deployment(req.GetDeploymentHandle())
	if err != nil {
		return nil, err
	}
	c, err := dep.d.Components(ctx)
	if err != nil {
		return nil, status.Errorf(codes.FailedPrecondition, "list components: %v", err)
	}
	resp := &pier1.ListComponents_Response{Outputs: c.Outputs}
	for _, r := range c.Resources {
		resp.Resources = append(resp.Resources, &pier1.ListComponents_Resource{Address: r.Address, Provider: r.Provider, Type: r.Type, Stateful: r.Stateful, Blocked: r.Blocked, Range: sourceRange(r.Range)})
	}
	for _, p := range c.Providers {
		resp.Providers = append(resp.Providers, &pier1.ListComponents_Provider{Name: p.Name, Kind: p.Kind, Location: p.Where, Source: p.Source, Version: p.Version, Range: sourceRange(p.Range)})
	}
	return resp, nil
}

// sink forwards engine events to whichever stream is active. The engine
// calls it from several goroutines; gRPC streams allow one sender.
type sink struct {
	mu   sync.Mutex
	send func(*pier1.Progress)
	logs bool
}

func (k *sink) event(ev engine.Event) {
	p := progress(ev, k.logs)
	if p == nil {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.send != nil {
		k.send(p)
	}
}

func (k *sink) attach(f func(*pier1.Progress)) {
	k.mu.Lock()
	k.send = f
	k.mu.Unlock()
}

// planHandle is an open plan handle's object: the engine that made it keeps its
// providers until the plan is applied or discarded.
type planHandle struct {
	eng  *engine.Engine
	plan *plan.Plan
	sink *sink
	// graph is set instead of plan for a saved plan (OpenSavedPlan):
	// applying it runs its execution graph and plans nothing again.
	graph *execgraph.Graph
}

func (p *planHandle) Close() error { return p.eng.Close() }

// lockedSender serialises Send on a server stream.
type lockedSender[T any] struct {
	mu   sync.Mutex
	send func(T) error
	err  error
}

func (l *lockedSender[T]) Send(m T) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err == nil {
		l.err = l.send(m)
	}
}

func (s *Server) PlanDeployment(req *pier1.PlanDeployment_Request, stream grpc.ServerStreamingServer[pier1.PlanDeployment_Event]) error {
	if req.GetDestroy() && req.GetRefreshOnly() {
		return status.Error(codes.InvalidArgument, "refresh_only cannot be combined with destroy")
	}
	// The options pier plan's flags make, checked as it checks them.
	opts := plan.Options{
		RefreshOnly: req.GetRefreshOnly(), Refresh: req.GetRefresh(), RefreshTargets: req.GetRefreshTargets(), NoRefresh: req.GetNoRefresh(),
		Targets: req.GetTargets(), Replace: req.GetReplace(),
	}
	if req.GetDestroy() && (opts.Refresh || len(opts.RefreshTargets) > 0 || len(opts.Targets) > 0 || len(opts.Replace) > 0) {
		return status.Error(codes.InvalidArgument, "destroy plans the destruction of everything in state: it cannot be combined with refresh, refresh_targets, targets or replace")
	}
	if err := opts.Validate(); err != nil {
		return status.Error(codes.InvalidArgument, err.Error())
	}
	dep, err := s.deployment(req.GetDeploymentHandle())
	if err != nil {
		return err
	}
	out := &lockedSender[*pier1.PlanDeployment_Event]{send: stream.Send}
	k := &sink{logs: s.providerLogs()}
	k.attach(func(p *pier1.Progress) {
		out.Send(&pier1.PlanDeployment_Event{Event: &pier1.PlanDeployment_Event_Progress{Progress: p}})
	})
	diag := func(d *pier1.Diagnostic) {
		out.Send(&pier1.PlanDeployment_Event{Event: &pier1.PlanDeployment_Event_Diagnostic{Diagnostic: d}})
	}
	dep.setWarn(func(m string) { diag(warning(m)) })
	defer dep.setWarn(nil)
	complete := func(c *pier1.PlanDeployment_Complete) error {
		k.attach(nil)
		out.Send(&pier1.PlanDeployment_Event{Event: &pier1.PlanDeployment_Event_Complete{Complete: c}})
		return out.err
	}
	eng, err := dep.d.Engine(k.event)
	if err != nil {
		for _, d := range diagnostics(err) {
			diag(d)
		}
		return complete(&pier1.PlanDeployment_Complete{})
	}
	ctx, cancel := s.untilStopped(stream.Context())
	defer cancel()
	var p *plan.Plan
	if req.GetDestroy() {
		p, err = plan.MakeDestroy(ctx, eng)
	} else {
		p, err = plan.Make(ctx, eng, opts)
	}
	if err != nil {
		eng.Close()
		for _, d := range diagnostics(err) {
			diag(d)
		}
		return complete(&pier1.PlanDeployment_Complete{})
	}
	for _, w := range p.Warnings {
		diag(warning(w))
	}
	refreshed := 0
	for _, pc := range plannedChanges(p) {
		if pc.Action == pier1.Action_REFRESH {
			refreshed++
		}
		out.Send(&pier1.PlanDeployment_Event{Event: &pier1.PlanDeployment_Event_PlannedChange{PlannedChange: pc}})
	}
	var saved []byte
	if req.GetSavedPlan() {
		if saved, err = savedPlanBytes(s.cfg.Version, dep.d, eng, p, opts); err != nil {
			eng.Close()
			for _, d := range diagnostics(err) {
				diag(d)
			}
			return complete(&pier1.PlanDeployment_Complete{})
		}
	}
	sum := p.Summary()
	pl := &planHandle{eng: eng, plan: p, sink: k}
	h := s.handles.add(kindPlan, pl, req.GetDeploymentHandle())
	return complete(&pier1.PlanDeployment_Complete{PlanHandle: h, SavedPlan: saved, Summary: &pier1.Summary{
		Create: int32(sum.Create), Update: int32(sum.Update), Destroy: int32(sum.Destroy), Replace: int32(sum.Replace), NoOp: int32(sum.NoOp),
		Forget: int32(sum.Forget), Imports: int32(sum.Import), Refresh: int32(refreshed),
	}})
}

func (s *Server) ApplyPlan(req *pier1.ApplyPlan_Request, stream grpc.ServerStreamingServer[pier1.ApplyPlan_Event]) error {
	obj, err := s.handles.remove(kindPlan, req.GetPlanHandle())
	if err != nil {
		return err
	}
	pl := obj.(*planHandle)
	defer pl.Close()
	out := &lockedSender[*pier1.ApplyPlan_Event]{send: stream.Send}
	pl.sink.attach(func(p *pier1.Progress) {
		out.Send(&pier1.ApplyPlan_Event{Event: &pier1.ApplyPlan_Event_Progress{Progress: p}})
		if rs := p.GetResourceStatus(); rs != nil && rs.Status == pier1.Progress_ResourceStatus_APPLIED {
			out.Send(&pier1.ApplyPlan_Event{Event: &pier1.ApplyPlan_Event_AppliedChange{AppliedChange: &pier1.AppliedChange{Address: rs.Address, DeposedKey: rs.DeposedKey, Action: rs.Action, Provider: rs.Provider}}})
		}
	})
	var res *apply.Result
	if pl.graph != nil {
		res, err = apply.RunGraph(stream.Context(), pl.eng, plan.NewRunTimePlanner(pl.eng), s.stopped, pl.graph)
	} else {
		res, err = apply.Run(stream.Context(), pl.eng, plan.NewRunTimePlanner(pl.eng), s.stopped, pl.plan)
	}
	pl.sink.attach(nil)
	diag := func(d *pier1.Diagnostic) {
		out.Send(&pier1.ApplyPlan_Event{Event: &pier1.ApplyPlan_Event_Diagnostic{Diagnostic: d}})
	}
	for _, d := range diagnostics(err) {
		diag(d)
	}
	c := &pier1.ApplyPlan_Complete{}
	if res != nil {
		for _, re := range res.Errors {
			for _, d := range diagnostics(re) {
				diag(d)
			}
		}
		c.Created, c.Updated, c.Destroyed = int32(res.Created), int32(res.Updated), int32(res.Destroyed)
		c.Skipped, c.Interrupted = res.Skipped, res.Interrupted
		c.Recorded, c.Forgotten, c.Imported = int32(res.Recorded), int32(res.Forgotten), int32(res.Imported)
		for _, o := range res.Outputs {
			ov := &pier1.OutputValue{Name: o.Name, Sensitive: o.Sensitive}
			if !o.Sensitive {
				if b, err := json.Marshal(o.Value); err == nil {
					ov.ValueJson = b
				}
			}
			c.Outputs = append(c.Outputs, ov)
		}
	}
	out.Send(&pier1.ApplyPlan_Event{Event: &pier1.ApplyPlan_Event_Complete{Complete: c}})
	return out.err
}

func (s *Server) OpenSavedPlan(ctx context.Context, req *pier1.OpenSavedPlan_Request) (*pier1.OpenSavedPlan_Response, error) {
	fail := func(err error) (*pier1.OpenSavedPlan_Response, error) {
		return &pier1.OpenSavedPlan_Response{Diagnostics: diagnostics(err)}, nil
	}
	sp, err := planfile.Decode(req.GetSavedPlan())
	if err != nil {
		return fail(fmt.Errorf("read saved plan: %w", err))
	}
	// The checks of pier apply FILE, in its order: the source files
	// before anything loads, the providers before any starts.
	if err := sp.CheckSource("(bytes)"); err != nil {
		return fail(err)
	}
	g, err := sp.ExecGraph()
	if err != nil {
		return fail(fmt.Errorf("read saved plan: %w", err))
	}
	dep, err := s.openDeployment(sp.Deployment, req.GetLockMode(), req.GetDependencyLocksHandle())
	if err != nil {
		return nil, err
	}
	if dep.d == nil {
		return fail(dep.err)
	}
	k := &sink{logs: s.providerLogs()}
	eng, err := dep.d.Engine(k.event)
	if err != nil {
		return fail(err)
	}
	if err := sp.CheckProviders("(bytes)", eng, g); err != nil {
		eng.Close()
		return fail(err)
	}
	resp := &pier1.OpenSavedPlan_Response{PlannedChanges: plannedChanges(plan.Showable(sp.Changes, sp.Warnings, sp.Destroy))}
	for _, w := range sp.Warnings {
		resp.Diagnostics = append(resp.Diagnostics, warning(w))
	}
	var deps []int64
	if lh := req.GetDependencyLocksHandle(); lh != 0 {
		deps = append(deps, lh)
	}
	resp.PlanHandle = s.handles.add(kindPlan, &planHandle{eng: eng, sink: k, graph: g}, deps...)
	return resp, nil
}

// openedSaved is the deployment a saved plan names, or why it did not
// load.
type openedSaved struct {
	d   *session.Deployment
	err error
}

// openDeployment loads the deployment a saved plan names, with the
// variables it was planned with, as pier apply FILE does.
func (s *Server) openDeployment(ref planfile.Ref, mode pier1.LockMode, locksHandle int64) (openedSaved, error) {
	opts := session.Options{
		Dir: ref.Dir, Flake: ref.Flake, Vars: map[string]string{}, VarFiles: ref.VarFiles, EnvVars: ref.EnvVars,
		PierExecutable: s.cfg.PierExecutable, Logger: s.cfg.Logger, NixopsVersion: "pier " + s.cfg.Version, Builtins: builtin.Capabilities,
	}
	for _, v := range ref.Vars {
		name, value, _ := strings.Cut(v, "=")
		opts.Vars[name] = value
	}
	switch mode {
	case pier1.LockMode_LOCK_STRICT:
		opts.Lock = lockfile.ModeStrict
	case pier1.LockMode_LOCK_OFF:
		opts.Lock = lockfile.ModeOff
	}
	if locksHandle != 0 {
		obj, err := s.handles.get(kindLocks, locksHandle)
		if err != nil {
			return openedSaved{}, err
		}
		opts.Locks = obj.(*lockfile.File)
	}
	d, err := session.Open(opts)
	return openedSaved{d: d, err: err}, nil
}

func (s *Server) DiscardPlan(ctx context.Context, req *pier1.DiscardPlan_Request) (*pier1.DiscardPlan_Response, error) {
	obj, err := s.handles.remove(kindPlan, req.GetPlanHandle())
	if err != nil {
		return nil, err
	}
	if err := obj.(*planHandle).Close(); err != nil {
		return nil, status.Errorf(codes.Internal, "stop the plan's providers: %v", err)
	}
	return &pier1.DiscardPlan_Response{}, nil
}

// --- Inspector -----------------------------------------------------------

func (s *Server) OpenInspector(ctx context.Context, req *pier1.OpenInspector_Request) (*pier1.OpenInspector_Response, error) {
	dep, err := s.deployment(req.GetDeploymentHandle())
	if err != nil {
		return nil, err
	}
	in, err := dep.d.Inspector(ctx)
	if err != nil {
		return &pier1.OpenInspector_Response{Diagnostics: diagnostics(err)}, nil
	}
	return &pier1.OpenInspector_Response{InspectorHandle: s.handles.add(kindInspector, in, req.GetDeploymentHandle())}, nil
}

func (s *Server) InspectExpression(ctx context.Context, req *pier1.InspectExpression_Request) (*pier1.InspectExpression_Response, error) {
	obj, err := s.handles.get(kindInspector, req.GetInspectorHandle())
	if err != nil {
		return nil, err
	}
	r := obj.(*inspect.Inspector).Eval(req.GetExpression())
	resp := &pier1.InspectExpression_Response{Type: r.Type, Sensitive: r.Sensitive, Diagnostics: hclDiagnostics(r.Diagnostics)}
	if !r.Sensitive && !r.Diagnostics.HasErrors() {
		resp.ValueJson = r.JSON
	}
	return resp, nil
}

func (s *Server) CloseInspector(ctx context.Context, req *pier1.CloseInspector_Request) (*pier1.CloseInspector_Response, error) {
	if _, err := s.handles.remove(kindInspector, req.GetInspectorHandle()); err != nil {
		return nil, err
	}
	return &pier1.CloseInspector_Response{}, nil
}
