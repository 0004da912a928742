package tfclient

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-plugin"
	"github.com/pierhq/pier/adapters/terraform/internal/tfproto"
	"github.com/pierhq/pier/adapters/terraform/internal/unarygrpc"
	"github.com/pierhq/pier/providersdk"
	"github.com/pierhq/pier/schema/logkey"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// The go-plugin handshake every Terraform provider expects. These are
// protocol facts, not secrets.
const (
	magicCookieKey   = "TF_PLUGIN_MAGIC_COOKIE"
	magicCookieValue = "d602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2"
)

// MaxRecvMsgSize bounds one gRPC message from the provider. Large schemas
// (cloud providers describe thousands of attributes) exceed gRPC's 4 MiB
// default; 64 MiB is ample and still fails cleanly before memory runs out.
const MaxRecvMsgSize = 64 << 20

// DefaultStartTimeout bounds the go-plugin handshake: long enough for a big
// provider binary to load on a busy machine.
const DefaultStartTimeout = time.Minute

// stopTimeout bounds the StopProvider call made on cancellation; a provider
// that does not answer is killed by Close anyway.
const stopTimeout = 10 * time.Second

// Options says which provider to start and how.
type Options struct {
	// Path is the provider executable.
	Path string
	// Logger receives the provider's stderr and go-plugin's own logs; nil
	// discards them.
	Logger *slog.Logger
	// ProviderLogs turns the provider SDK's logging on (TF_LOG_* are
	// otherwise set to "off").
	ProviderLogs bool
	// ProtocolVersions are the versions offered; nil offers 5 and 6.
	ProtocolVersions []int
	// StartTimeout bounds the handshake; 0 means DefaultStartTimeout.
	StartTimeout time.Duration
}

// Client is a running provider. It is safe for concurrent use by the
// gRPC rules, though the bridge calls it one request at a time. Close stops
// the provider and removes its socket directory.
type Client struct {
	name     string
	path     string
	version  int
	plugin   *plugin.Client
	proto    protocol
	sink     *logSink
	log      *slog.Logger
	sockDir  string
	schema   *tfproto.ProviderSchema
	closeErr error
	// stops counts the provider's stop requests sent, for tests.
	stops atomic.Int64

	// schemaMsg is the GetProviderSchema response schema came from, kept
	// for [Client.Attachment].
	schemaMsg proto.Message
	// tls authenticates both ends of the gRPC connection; clientCert and
	// clientKey are its client half as PEM, for [Client.Attachment].
	tls                   *tls.Config
	clientCert, clientKey []byte
	// sessions keeps the TLS session tls's connection got, for
	// [Client.Attachment].
	sessions *sessionCache
	// serverCert is the provider's certificate (DER), noted during the TLS
	// handshake; guarded by mu.
	mu         sync.Mutex
	serverCert []byte
	// attached is the connection of a client made by [Attach]: closing it
	// detaches without stopping a provider this process does not own.
	attached *unarygrpc.Conn
	// watch tells when an attached provider (pid) exits; nil where
	// pidfds are not available.
	watch *exitWatch
	pid   int
	// resumed says that an attached client's TLS handshake resumed the
	// session of its Attachment.
	resumed bool
}

// protocol is the per-version half of a Client: v5.go and v6.go.
type protocol interface {
	getSchema(ctx context.Context) (*tfproto.ProviderSchema, proto.Message, error)
	validateProviderConfig(ctx context.Context, cfg []byte) ([]byte, tfproto.Diagnostics, error)
	configure(ctx context.Context, cfg []byte) (tfproto.Diagnostics, error)
	validateResourceConfig(ctx context.Context, typ string, cfg []byte) (tfproto.Diagnostics, error)
	validateDataSourceConfig(ctx context.Context, typ string, cfg []byte) (tfproto.Diagnostics, error)
	upgradeResourceState(ctx context.Context, typ string, version int64, raw []byte) ([]byte, tfproto.Diagnostics, error)
	readResource(ctx context.Context, r *ReadRequest) (*ReadResponse, error)
	planResourceChange(ctx context.Context, r *PlanRequest) (*PlanResponse, error)
	applyResourceChange(ctx context.Context, r *ApplyRequest) (*ApplyResponse, error)
	importResourceState(ctx context.Context, typ, id string) ([]ImportedResource, tfproto.Diagnostics, error)
	readDataSource(ctx context.Context, typ string, cfg []byte) ([]byte, tfproto.Diagnostics, error)
	stop(ctx context.Context) (string, error)
}

// Start launches the provider and completes the go-plugin handshake. The
// provider lives until Close, or until this process dies.
func Start(opts Options) (*Client, error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	path, err := filepath.Abs(opts.Path)
	if err != nil {
		return nil, fmt.Errorf("provider %s: %w", opts.Path, err)
	}
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("provider %s: %w", opts.Path, err)
	}
	name := filepath.Base(path)
	c := &Client{name: name, path: path, log: log}
	c.sink = &logSink{log: log.With(logkey.Provider, name), module: "provider." + name, providerLogs: opts.ProviderLogs}

	c.sockDir, err = os.MkdirTemp(socketBase(), "pier-tf-")
	if err != nil {
		return nil, fmt.Errorf("provider %s: create socket directory: %w", name, err)
	}

	versions := opts.ProtocolVersions
	if len(versions) == 0 {
		versions = []int{5, 6}
	}
	sets := map[int]plugin.PluginSet{}
	for _, v := range versions {
		switch v {
		case 5:
			sets[5] = plugin.PluginSet{"provider": &grpcPlugin{version: 5}}
		case 6:
			sets[6] = plugin.PluginSet{"provider": &grpcPlugin{version: 6}}
		default:
			os.RemoveAll(c.sockDir)
			return nil, fmt.Errorf("provider %s: unsupported protocol version %d (pier speaks 5 and 6)", name, v)
		}
	}

	// go-plugin's AutoMTLS, done here so that the client half can be
	// handed to bridges that attach (see Attachment): a fresh certificate
	// the provider must see, and the provider's own, pinned from its
	// handshake line.
	cert, certPEM, keyPEM, err := newCertificate()
	if err != nil {
		os.RemoveAll(c.sockDir)
		return nil, fmt.Errorf("provider %s: %w", name, err)
	}
	c.clientCert, c.clientKey = certPEM, keyPEM
	c.sessions = &sessionCache{}
	c.tls = &tls.Config{
		Certificates:       []tls.Certificate{cert},
		ClientAuth:         tls.RequireAndVerifyClientCert,
		MinVersion:         tls.VersionTLS12,
		ServerName:         "localhost",
		VerifyConnection:   c.notePeer,
		ClientSessionCache: c.sessions,
	}

	cmd := exec.Command(path)
	cmd.Dir, _ = os.Getwd()
	cmd.Env = providerEnv(os.Environ(), opts.ProviderLogs)
	cmd.Env = append(cmd.Env, "PLUGIN_CLIENT_CERT="+string(certPEM))
	// go-plugin sets the socket directory only for custom runners; the
	// provider's plugin server reads it from here.
	cmd.Env = append(cmd.Env, plugin.EnvUnixSocketDir+"="+c.sockDir)
	cmd.SysProcAttr = sysProcAttr()

	timeout := opts.StartTimeout
	if timeout == 0 {
		timeout = DefaultStartTimeout
	}
	c.plugin = plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig: plugin.HandshakeConfig{
			MagicCookieKey:   magicCookieKey,
			MagicCookieValue: magicCookieValue,
		},
		VersionedPlugins: sets,
		Cmd:              cmd,
		SkipHostEnv:      true, // cmd.Env already holds the filtered host environment
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		TLSConfig:        c.tls, // go-plugin adds the provider's certificate to RootCAs
		Managed:          false,
		Logger:           newHCLogger(c.sink),
		StartTimeout:     timeout,
		UnixSocketConfig: &plugin.UnixSocketConfig{TempDir: c.sockDir},
		GRPCDialOptions:  dialOptions(),
	})
	rpc, err := c.plugin.Client()
	if err != nil {
		c.Close()
		return nil, c.startError(versions, err)
	}
	raw, err := rpc.Dispense("provider")
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("provider %s: %w", name, err)
	}
	proto, ok := raw.(protocol)
	if !ok {
		c.Close()
		return nil, fmt.Errorf("provider %s: dispensed %T: this is a bug in pier", name, raw)
	}
	c.proto = proto
	c.version = c.plugin.NegotiatedVersion()
	log.Debug("provider started", logkey.Provider, name, logkey.Protocol, c.version)
	return c, nil
}

// startError explains a failed handshake. go-plugin's message for a
// version mismatch names no one; say who speaks what.
func (c *Client) startError(offered []int, err error) error {
	msg := err.Error()
	if strings.Contains(strings.ToLower(msg), "incompatible api version") {
		vs := make([]string, len(offered))
		for i, v := range offered {
			vs[i] = strconv.Itoa(v)
		}
		return fmt.Errorf("provider %s (%s) speaks no plugin protocol version pier offered (%s): %w",
			c.name, c.path, strings.Join(vs, ", "), ErrProtocolVersion)
	}
	return c.wrap("start", err)
}

// ErrProtocolVersion is wrapped by errors about a protocol version that
// pier and the provider do not share.
var ErrProtocolVersion = errors.New("incompatible plugin protocol version")

// ErrProviderExited is wrapped by errors about a provider process that
// ended while it was in use (a crash or a kill).
var ErrProviderExited = errors.New("provider process exited")

// providerEnv is the host environment minus variables that must not leak
// to the provider (pier's own fd protocol, the user's TF_LOG* unless provider
// logs are wanted), plus the logging switches.
func providerEnv(host []string, logs bool) []string {
	var env []string
	for _, kv := range host {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "PIER_") || strings.HasPrefix(k, "PLUGIN_") || k == magicCookieKey {
			continue
		}
		if !logs && strings.HasPrefix(k, "TF_LOG") {
			continue
		}
		env = append(env, kv)
	}
	if !logs {
		env = append(env, "TF_LOG_SDK=off", "TF_LOG_SDK_PROTO=off", "TF_LOG_SDK_FRAMEWORK=off", "TF_LOG_PROVIDER=off")
	} else if !hasKey(env, "TF_LOG") && !hasKey(env, "TF_LOG_PROVIDER") {
		env = append(env, "TF_LOG=DEBUG")
	}
	return env
}

func hasKey(env []string, key string) bool {
	for _, kv := range env {
		if strings.HasPrefix(kv, key+"=") {
			return true
		}
	}
	return false
}

// Name is the provider executable's base name, for messages.
func (c *Client) Name() string { return c.name }

// ProtocolVersion is the negotiated plugin protocol version, 5 or 6.
func (c *Client) ProtocolVersion() int { return c.version }

// Close stops the provider (gracefully, then by kill after go-plugin's
// two-second grace) and removes the socket directory. A client made by
// [Attach] only closes its connection: the provider belongs to the process
// that started it. Close is idempotent.
func (c *Client) Close() error {
	if c.watch != nil {
		_ = c.watch.Close()
		c.watch = nil
	}
	if c.attached != nil {
		err := c.attached.Close()
		c.attached = nil
		if err != nil {
			return fmt.Errorf("provider %s: close connection: %w", c.name, err)
		}
		return nil
	}
	if c.plugin != nil {
		c.plugin.Kill()
		c.plugin = nil
	}
	if c.sockDir != "" {
		if err := os.RemoveAll(c.sockDir); err != nil && c.closeErr == nil {
			c.closeErr = fmt.Errorf("provider %s: remove socket directory: %w", c.name, err)
		}
		c.sockDir = ""
	}
	return c.closeErr
}

// wrap turns a transport error into one that names the provider and the
// call and, when the process died, says so and quotes its last output.
func (c *Client) wrap(method string, err error) error {
	if err == nil {
		return nil
	}
	if c.exited() {
		tail := c.sink.lastLines()
		if len(tail) > 0 {
			return fmt.Errorf("provider %s: %s: %w; last output:\n  %s", c.name, method, ErrProviderExited, strings.Join(tail, "\n  "))
		}
		return fmt.Errorf("provider %s: %s: %w (%v)", c.name, method, ErrProviderExited, err)
	}
	return fmt.Errorf("provider %s: %s: %w", c.name, method, err)
}

// exitNoticeWait bounds how long an error path waits for go-plugin to reap
// a provider whose connection just broke: the gRPC error usually arrives a
// moment before the reaper does, and half a second is plenty for that.
const exitNoticeWait = 500 * time.Millisecond

// exited reports whether the provider process has ended, waiting up to
// exitNoticeWait for go-plugin (or the exit watch) to notice.
func (c *Client) exited() bool {
	if c.plugin == nil {
		return c.pid > 0 && c.watch.exitedWithin(c.pid, exitNoticeWait)
	}
	deadline := time.Now().Add(exitNoticeWait)
	for !c.plugin.Exited() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(25 * time.Millisecond)
	}
	return true
}

// call runs f, and if ctx ends while it runs, asks the provider to stop
// (StopProvider / Stop), which cancels whatever it is doing.
func (c *Client) call(ctx context.Context, method string, f func(context.Context) error) error {
	// Each call names the v0 request it serves, so that it can be matched
	// with pier's log; a call made before any request (the schema, at
	// start) has none. The logger is made only when something is logged:
	// a bridge makes two calls a request, and With allocates.
	logger := func() *slog.Logger {
		log := c.log.With(logkey.Provider, c.name, logkey.Call, method)
		if id := providersdk.RequestID(ctx); id > 0 {
			log = log.With(logkey.RequestID, id)
		}
		return log
	}
	if c.log.Enabled(ctx, slog.LevelDebug) {
		logger().Debug("call")
	}
	// Ended already: send nothing. An apply would outlast ctx (see
	// ApplyResourceChange) and make what the caller has given up on.
	if ctx.Err() != nil {
		return fmt.Errorf("provider %s: %s: %w", c.name, method, context.Cause(ctx))
	}
	stopped := make(chan struct{})
	returned := make(chan struct{})
	done := context.AfterFunc(ctx, func() {
		defer close(stopped)
		c.stopUntil(ctx, returned, logger())
	})
	err := f(ctx)
	close(returned)
	if err != nil {
		// The provider enforces the deadline gRPC passed on and may report
		// it a moment before ctx's own timer fires; let ctx catch up so the
		// error gives the real cause.
		if code := status.Code(err); code == codes.DeadlineExceeded || code == codes.Canceled {
			select {
			case <-ctx.Done():
			case <-time.After(deadlineSkew):
			}
		}
	}
	if !done() {
		<-stopped
	}
	if err != nil && ctx.Err() != nil {
		return fmt.Errorf("provider %s: %s: %w", c.name, method, context.Cause(ctx))
	}
	return c.wrap(method, err)
}

// stopUntil asks the provider to stop, and asks again each restopEvery
// until returned is closed. A provider cancels only the calls it is
// running when asked (terraform-plugin-go renews its stop channel on each
// StopProvider), and ctx can end while the call is still on its way: a
// single ask can then reach the provider first and stop nothing.
func (c *Client) stopUntil(ctx context.Context, returned <-chan struct{}, log *slog.Logger) {
	deadline := time.Now().Add(stopTimeout)
	for {
		log.Debug("asking the provider to stop")
		sctx, cancel := context.WithDeadline(context.WithoutCancel(ctx), deadline)
		err := c.Stop(sctx)
		cancel()
		c.stops.Add(1)
		if err != nil {
			log.Warn("stop provider", logkey.Error, err)
			return
		}
		select {
		case <-returned:
			return
		case <-time.After(restopEvery):
		}
		if time.Now().After(deadline) {
			return
		}
	}
}

// restopEvery is how long a call may run on after the provider was asked
// to stop before it is asked again; a provider honouring the ask answers
// well within it.
const restopEvery = 500 * time.Millisecond

// deadlineSkew bounds the wait for ctx to notice a deadline the provider
// already reported: clocks in one machine differ by far less.
const deadlineSkew = time.Second

// Stop asks the provider to cancel all in-flight work.
func (c *Client) Stop(ctx context.Context) error {
	msg, err := c.proto.stop(ctx)
	if err != nil {
		return c.wrap("stop", err)
	}
	if msg != "" {
		return fmt.Errorf("provider %s: stop: %s", c.name, msg)
	}
	return nil
}

// Schema returns the provider's schema, fetching it on the first call only.
func (c *Client) Schema(ctx context.Context) (*tfproto.ProviderSchema, error) {
	if c.schema != nil {
		return c.schema, nil
	}
	var s *tfproto.ProviderSchema
	var msg proto.Message
	err := c.call(ctx, "get schema", func(ctx context.Context) (err error) {
		s, msg, err = c.proto.getSchema(ctx)
		return err
	})
	if err != nil {
		return nil, err
	}
	if err := s.Diagnostics.Err(); err != nil {
		return nil, fmt.Errorf("provider %s: get schema: %w", c.name, err)
	}
	c.schema, c.schemaMsg = s, msg
	return s, nil
}

// ValidateProviderConfig validates the provider configuration (msgpack).
// Protocol 5 may return a prepared configuration to use instead; nil when
// the provider returned none.
func (c *Client) ValidateProviderConfig(ctx context.Context, cfg []byte) (prepared []byte, diags tfproto.Diagnostics, err error) {
	err = c.call(ctx, "validate provider config", func(ctx context.Context) (err error) {
		prepared, diags, err = c.proto.validateProviderConfig(ctx, cfg)
		return err
	})
	return prepared, diags, err
}

// ConfigureProvider configures the provider (msgpack).
func (c *Client) ConfigureProvider(ctx context.Context, cfg []byte) (diags tfproto.Diagnostics, err error) {
	err = c.call(ctx, "configure provider", func(ctx context.Context) (err error) {
		diags, err = c.proto.configure(ctx, cfg)
		return err
	})
	return diags, err
}

// ValidateResourceConfig validates a resource configuration.
func (c *Client) ValidateResourceConfig(ctx context.Context, typ string, cfg []byte) (diags tfproto.Diagnostics, err error) {
	err = c.call(ctx, "validate resource config", func(ctx context.Context) (err error) {
		diags, err = c.proto.validateResourceConfig(ctx, typ, cfg)
		return err
	})
	return diags, err
}

// ValidateDataSourceConfig validates a data source configuration.
func (c *Client) ValidateDataSourceConfig(ctx context.Context, typ string, cfg []byte) (diags tfproto.Diagnostics, err error) {
	err = c.call(ctx, "validate data source config", func(ctx context.Context) (err error) {
		diags, err = c.proto.validateDataSourceConfig(ctx, typ, cfg)
		return err
	})
	return diags, err
}

// UpgradeResourceState turns stored JSON written under schema version
// version into a msgpack value of the current schema.
func (c *Client) UpgradeResourceState(ctx context.Context, typ string, version int64, rawJSON []byte) (state []byte, diags tfproto.Diagnostics, err error) {
	err = c.call(ctx, "upgrade resource state", func(ctx context.Context) (err error) {
		state, diags, err = c.proto.upgradeResourceState(ctx, typ, version, rawJSON)
		return err
	})
	return state, diags, err
}

// ReadRequest is ReadResource's input; values are msgpack.
type ReadRequest struct {
	TypeName string
	Current  []byte
	Private  []byte
}

// ReadResponse is ReadResource's result. NewState decodes to null when
// the object is gone.
type ReadResponse struct {
	NewState    []byte
	Private     []byte
	Deferred    bool
	Diagnostics tfproto.Diagnostics
}

// ReadResource refreshes a resource.
func (c *Client) ReadResource(ctx context.Context, r *ReadRequest) (resp *ReadResponse, err error) {
	err = c.call(ctx, "read resource", func(ctx context.Context) (err error) {
		resp, err = c.proto.readResource(ctx, r)
		return err
	})
	return resp, err
}

// PlanRequest is PlanResourceChange's input; values are msgpack.
type PlanRequest struct {
	TypeName     string
	Prior        []byte
	Proposed     []byte
	Config       []byte
	PriorPrivate []byte
}

// PlanResponse is PlanResourceChange's result.
type PlanResponse struct {
	Planned          []byte
	RequiresReplace  []tfproto.AttributePath
	PlannedPrivate   []byte
	LegacyTypeSystem bool
	Deferred         bool
	Diagnostics      tfproto.Diagnostics
}

// PlanResourceChange plans a change.
func (c *Client) PlanResourceChange(ctx context.Context, r *PlanRequest) (resp *PlanResponse, err error) {
	err = c.call(ctx, "plan resource change", func(ctx context.Context) (err error) {
		resp, err = c.proto.planResourceChange(ctx, r)
		return err
	})
	return resp, err
}

// ApplyRequest is ApplyResourceChange's input; values are msgpack.
type ApplyRequest struct {
	TypeName       string
	Prior          []byte
	Planned        []byte
	Config         []byte
	PlannedPrivate []byte
}

// ApplyResponse is ApplyResourceChange's result.
type ApplyResponse struct {
	NewState         []byte
	Private          []byte
	LegacyTypeSystem bool
	Diagnostics      tfproto.Diagnostics
}

// ApplyResourceChange applies a planned change.
//
// When ctx ends, the provider is told to stop, and the call waits up to
// applyGrace for its answer instead of abandoning it: only the answer says
// what the apply did (a stopped create may still return the object it
// made). Without one the outcome is unknown, and the error says the call
// got no response.
func (c *Client) ApplyResourceChange(ctx context.Context, r *ApplyRequest) (resp *ApplyResponse, err error) {
	err = c.call(ctx, "apply resource change", func(ctx context.Context) (err error) {
		actx, cancel := outlast(ctx, applyGrace)
		defer cancel()
		resp, err = c.proto.applyResourceChange(actx, r)
		return err
	})
	return resp, err
}

// applyGrace bounds how long a stopped ApplyResourceChange may take to
// answer: a provider honouring StopProvider returns within moments, and
// stopTimeout already lets the stop itself take as long.
const applyGrace = stopTimeout

// outlast returns a context that ends grace after ctx does, without
// ctx's deadline: gRPC would otherwise pass the deadline on and abandon
// the call the moment it passes.
func outlast(ctx context.Context, grace time.Duration) (context.Context, context.CancelFunc) {
	out, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	var timer *time.Timer
	var mu sync.Mutex
	stop := context.AfterFunc(ctx, func() {
		mu.Lock()
		defer mu.Unlock()
		timer = time.AfterFunc(grace, func() {
			cancel(fmt.Errorf("no answer %s after the provider was told to stop: %w", grace, context.Cause(ctx)))
		})
	})
	return out, func() {
		stop()
		mu.Lock()
		if timer != nil {
			timer.Stop()
		}
		mu.Unlock()
		cancel(context.Canceled)
	}
}

// ImportedResource is one object ImportResourceState returned.
type ImportedResource struct {
	TypeName string
	State    []byte
	Private  []byte
}

// ImportResourceState imports an existing object by id.
func (c *Client) ImportResourceState(ctx context.Context, typ, id string) (res []ImportedResource, diags tfproto.Diagnostics, err error) {
	err = c.call(ctx, "import resource state", func(ctx context.Context) (err error) {
		res, diags, err = c.proto.importResourceState(ctx, typ, id)
		return err
	})
	return res, diags, err
}

// ReadDataSource reads a data source; the result is msgpack.
func (c *Client) ReadDataSource(ctx context.Context, typ string, cfg []byte) (state []byte, diags tfproto.Diagnostics, err error) {
	err = c.call(ctx, "read data source", func(ctx context.Context) (err error) {
		state, diags, err = c.proto.readDataSource(ctx, typ, cfg)
		return err
	})
	return state, diags, err
}

// grpcPlugin is the go-plugin client side for one protocol version.
type grpcPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	version int
}

var _ plugin.GRPCPlugin = (*grpcPlugin)(nil)

func (p *grpcPlugin) GRPCServer(*plugin.GRPCBroker, *grpc.Server) error {
	return errors.New("pier is a Terraform plugin client only")
}

func (p *grpcPlugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, conn *grpc.ClientConn) (any, error) {
	if p.version == 5 {
		return newV5(conn), nil
	}
	return newV6(conn), nil
}

// terraformVersion is what Configure reports as the Terraform version.
// Providers use it only in messages and user agents; pier names itself.
const terraformVersion = "1.9.0 (pier)"

// dialOptions are the gRPC options of a connection to a provider.
//
// The receive windows are fixed, which turns off gRPC's bandwidth-delay
// estimation: on a connection to a process on the same machine it only
// adds a PING, and the provider's answer, to nearly every response.
func dialOptions() []grpc.DialOption {
	return []grpc.DialOption{
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(MaxRecvMsgSize)),
		grpc.WithInitialWindowSize(windowSize),
		grpc.WithInitialConnWindowSize(windowSize),
	}
}

// windowSize is a connection's and each call's receive window: responses
// up to it flow without waiting for a window update.
const windowSize = 4 << 20

// maxSocketPath is the longest unix socket path every platform pier runs on
// accepts: sun_path holds 108 bytes on Linux and 104 on the BSDs, NUL
// included.
const maxSocketPath = 103

// socketBase is where the provider's socket directory goes: the temporary
// directory, unless a long $TMPDIR would push the socket's path past
// maxSocketPath, when the provider could not listen at all. The socket's
// path is the base, "/pier-tf-" and MkdirTemp's up to ten digits, then
// go-plugin's "/plugin" and its own up to ten digits.
func socketBase() string {
	const suffix = len("/pier-tf-1234567890/plugin1234567890")
	base := os.TempDir()
	if len(base)+suffix <= maxSocketPath {
		return base
	}
	if fi, err := os.Stat("/tmp"); err == nil && fi.IsDir() {
		return "/tmp"
	}
	return base
}
