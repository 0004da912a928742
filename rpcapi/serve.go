package rpcapi

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"github.com/pierhq/pier/schema/logkey"
	"google.golang.org/grpc"
	"google.golang.org/grpc/stats"
)

// The go-plugin handshake a client starts pier rpcapi with. The cookie
// only tells pier it was started by a client rather than by hand, as in
// every go-plugin program; it is no secret.
const (
	MagicCookieKey   = "PIER_RPCAPI_MAGIC_COOKIE"
	MagicCookieValue = "f3c2a1d4-pier-rpcapi-7b9e"
	// ProtocolVersion is the app protocol version in the handshake line:
	// the version of pier1.proto.
	ProtocolVersion = 1
	// PluginName is the name in the go-plugin plugin set.
	PluginName = "pier"
)

// HandshakeConfig is the go-plugin handshake of pier rpcapi.
var HandshakeConfig = plugin.HandshakeConfig{
	ProtocolVersion:  ProtocolVersion,
	MagicCookieKey:   MagicCookieKey,
	MagicCookieValue: MagicCookieValue,
}

// FirstConnectionTimeout bounds how long a server waits for its client to
// connect. A client connects right after reading the handshake line, so
// this only ends servers whose client died before connecting; it is long
// enough for a loaded CI machine.
const FirstConnectionTimeout = 2 * time.Minute

// Plugin is the go-plugin plugin that serves (with Server set) or
// connects to (for clients) pier's services.
type Plugin struct {
	plugin.NetRPCUnsupportedPlugin
	Impl *Server
}

var _ plugin.GRPCPlugin = (*Plugin)(nil)

// GRPCServer registers the services.
func (p *Plugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	p.Impl.Register(s)
	return nil
}

// GRPCClient returns the connection; rpcapi/client wraps it.
func (p *Plugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return c, nil
}

// Serve runs pier rpcapi: it writes go-plugin's handshake line to stdout
// and serves one client on a Unix socket in a new directory only the user
// can read. It returns after its client has gone (its last connection
// closed, or a go-plugin client asked it to stop), after stop is closed
// or ctx is done, having closed every handle and so stopped every
// provider it started.
func Serve(ctx context.Context, stop <-chan struct{}, cfg Config) error {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if os.Getenv(MagicCookieKey) != MagicCookieValue {
		return fmt.Errorf("pier rpcapi is started by an RPC client, with %s set (see docs/rpcapi.md)", MagicCookieKey)
	}
	// go-plugin makes the socket in PLUGIN_UNIX_SOCKET_DIR, or in $TMPDIR.
	// A directory of its own, 0700, keeps other users from connecting
	// whatever the parent's mode.
	dir, err := os.MkdirTemp(os.Getenv(plugin.EnvUnixSocketDir), "pier-rpcapi-")
	if err != nil {
		return fmt.Errorf("rpcapi: make socket directory: %w", err)
	}
	defer os.RemoveAll(dir)
	if err := os.Chmod(dir, 0o700); err != nil {
		return fmt.Errorf("rpcapi: %w", err)
	}
	if err := os.Setenv(plugin.EnvUnixSocketDir, dir); err != nil {
		return err
	}

	srv := NewServer(cfg)
	conns := &connTracker{gone: make(chan struct{})}
	var handlers sync.WaitGroup
	var grpcMu sync.Mutex
	var grpcSrv *grpc.Server
	done := make(chan struct{})
	go func() {
		defer close(done)
		plugin.Serve(&plugin.ServeConfig{
			HandshakeConfig:  HandshakeConfig,
			VersionedPlugins: map[int]plugin.PluginSet{ProtocolVersion: {PluginName: &Plugin{Impl: srv}}},
			GRPCServer: func(opts []grpc.ServerOption) *grpc.Server {
				opts = append(opts, srv.ServerOptions()...)
				// handlers counts the running calls, so that Serve returns
				// only after every plan and apply has returned and stopped
				// its providers. grpc.WaitForHandlers would do that inside
				// Stop, but go-plugin's Shutdown calls Stop from a handler,
				// which then waits for itself until the client kills the
				// process (and its socket directory stays behind).
				opts = append(opts, grpc.StatsHandler(conns))
				opts = append(opts, trackHandlers(&handlers)...)
				g := grpc.NewServer(opts...)
				grpcMu.Lock()
				grpcSrv = g
				grpcMu.Unlock()
				return g
			},
			Logger: hclog.New(&hclog.LoggerOptions{Level: hclog.Warn, Output: os.Stderr}),
		})
	}()
	first := time.NewTimer(FirstConnectionTimeout)
	defer first.Stop()
wait:
	for {
		select {
		case <-done: // a go-plugin client called Shutdown
		case <-conns.gone:
		case <-stop:
		case <-ctx.Done():
		case <-first.C:
			if conns.seen() {
				continue
			}
			cfg.Logger.Warn("no client connected; stopping", logkey.Timeout, FirstConnectionTimeout)
		}
		break wait
	}
	// Stop every provider before going: the client is gone. Stopping the
	// gRPC server cancels the calls still running and waits for them.
	grpcMu.Lock()
	g := grpcSrv
	grpcMu.Unlock()
	if g != nil {
		g.Stop()
	}
	handlers.Wait()
	return srv.Close()
}

// trackHandlers counts every running unary and streaming call in wg.
func trackHandlers(wg *sync.WaitGroup) []grpc.ServerOption {
	return []grpc.ServerOption{
		grpc.ChainUnaryInterceptor(func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, next grpc.UnaryHandler) (any, error) {
			wg.Add(1)
			defer wg.Done()
			return next(ctx, req)
		}),
		grpc.ChainStreamInterceptor(func(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, next grpc.StreamHandler) error {
			wg.Add(1)
			defer wg.Done()
			return next(srv, ss)
		}),
	}
}

// connTracker notices when the client has gone: its last connection
// closed. A client holds one connection for its session.
type connTracker struct {
	mu    sync.Mutex
	open  int
	ever  bool
	gone  chan struct{}
	ended bool
}

func (c *connTracker) seen() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ever
}

func (c *connTracker) TagRPC(ctx context.Context, _ *stats.RPCTagInfo) context.Context   { return ctx }
func (c *connTracker) HandleRPC(context.Context, stats.RPCStats)                         {}
func (c *connTracker) TagConn(ctx context.Context, _ *stats.ConnTagInfo) context.Context { return ctx }

func (c *connTracker) HandleConn(_ context.Context, s stats.ConnStats) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch s.(type) {
	case *stats.ConnBegin:
		c.open++
		c.ever = true
	case *stats.ConnEnd:
		c.open--
		if c.open == 0 && !c.ended {
			c.ended = true
			close(c.gone)
		}
	}
}
