package terraform

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"github.com/pierhq/pier/adapters/terraform/internal/tfclient"
	"github.com/pierhq/pier/adapters/terraform/internal/tfproto"
	"github.com/pierhq/pier/adapters/terraform/internal/tfvalue"
	"github.com/pierhq/pier/providersdk"
	"github.com/pierhq/pier/schema/logkey"
	"github.com/zclconf/go-cty/cty"
)

// DataSourcePrefix marks a v0 resource type as a Terraform data source:
// "data-source-fixture_echo" is the data source fixture_echo.
const DataSourcePrefix = "data-source-"

// Options configures a [Bridge].
type Options struct {
	// Plugin is the Terraform provider executable.
	Plugin string
	// Config is the provider configuration (the provider declaration's
	// config); nil is empty.
	Config map[string]any
	// Logger receives the bridge's logs and the provider's stderr; nil
	// discards them.
	Logger *slog.Logger
	// ProviderLogs turns on the Terraform provider SDK's own logging.
	ProviderLogs bool
	// ProtocolVersions restricts the plugin protocol versions offered;
	// nil offers 5 and 6. Tests use it.
	ProtocolVersions []int
	// Timeout bounds each operation; 0 means no bound. When it passes, the
	// provider is told to stop (StopProvider) and the operation fails.
	Timeout time.Duration
	// Attach, when set, uses the provider another process started and
	// configured (see [Hold]) instead of starting one; Config is then
	// ignored.
	Attach *Attachment
}

// Attachment is what a bridge needs to use a provider [Hold] started.
type Attachment = tfclient.Attachment

// Bridge serves one Terraform provider as a v0 provider. Its methods are
// called by [providersdk.Serve] one at a time; it is not safe for
// concurrent use.
type Bridge struct {
	client  *tfclient.Client
	log     *slog.Logger
	config  map[string]any
	timeout time.Duration

	// configured is set once ConfigureProvider succeeded; configureErr
	// keeps a failure so every later request reports the same cause.
	configured   bool
	configureErr error

	// types caches resolved resource types by v0 type name.
	types map[string]*resourceType
	// validated holds configurations the provider found valid, without
	// diagnostics, keyed by mode, type and msgpack (see resourceConfig).
	validated map[string]bool
	// plans holds the plans previews made, keyed by what the plan was
	// asked (see planKey), for the create or update that follows.
	plans planCache
}

var (
	_ providersdk.Handler   = (*Bridge)(nil)
	_ providersdk.Destroyer = (*Bridge)(nil)
	_ providersdk.Reader    = (*Bridge)(nil)
	_ providersdk.Importer  = (*Bridge)(nil)
	_ providersdk.Previewer = (*Bridge)(nil)
)

// New starts the provider and fetches its schema. Close the Bridge to stop
// the provider.
func New(ctx context.Context, opts Options) (*Bridge, error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if opts.Attach != nil {
		c, err := tfclient.Attach(opts.Attach, filepath.Base(opts.Plugin), log)
		if err != nil {
			return nil, err
		}
		// The holder configured the provider, once for every bridge:
		// configuring one process from several would race. A rejected
		// configuration fails what needs it, as if configured here.
		b := &Bridge{client: c, log: log.With(logkey.Provider, c.Name()), timeout: opts.Timeout, configured: true}
		if msg := opts.Attach.ConfigureError; msg != "" {
			b.configured, b.configureErr = false, errors.New(msg)
		}
		return b, nil
	}
	c, err := tfclient.Start(tfclient.Options{
		Path:             opts.Plugin,
		Logger:           log,
		ProviderLogs:     opts.ProviderLogs,
		ProtocolVersions: opts.ProtocolVersions,
	})
	if err != nil {
		return nil, err
	}
	if _, err := c.Schema(ctx); err != nil {
		c.Close()
		return nil, err
	}
	cfg := opts.Config
	if cfg == nil {
		cfg = map[string]any{}
	}
	return &Bridge{client: c, log: log.With(logkey.Provider, c.Name()), config: cfg, timeout: opts.Timeout}, nil
}

// Close stops the provider.
func (b *Bridge) Close() error { return b.client.Close() }

// providerSchema returns the provider's schema, fetched once at start.
func (b *Bridge) providerSchema(ctx context.Context) (*tfproto.ProviderSchema, error) {
	return b.client.Schema(ctx)
}

// op bounds one operation by the configured timeout.
func (b *Bridge) op(ctx context.Context) (context.Context, context.CancelFunc) {
	if b.timeout <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeoutCause(ctx, b.timeout, fmt.Errorf("operation took longer than the bridge's timeout of %s", b.timeout))
}

// timedOut puts the bridge's timeout first in an operation's error when the
// timeout is what ended it. The provider sees the deadline too (gRPC passes
// it on) and may answer with its own error a moment before ctx's timer
// fires; wait that moment out.
func (b *Bridge) timedOut(ctx context.Context, err error) error {
	deadline, ok := ctx.Deadline()
	if err == nil || !ok || time.Until(deadline) > deadlineSkew {
		return err
	}
	select {
	case <-ctx.Done():
	case <-time.After(deadlineSkew):
	}
	cause := context.Cause(ctx)
	if cause == nil || !errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, cause) {
		return err
	}
	return fmt.Errorf("%w: %w", cause, err)
}

// deadlineSkew bounds how long timedOut waits for ctx to catch up with a
// deadline the provider already hit: clocks on one machine differ by less.
const deadlineSkew = time.Second

// configure validates and sends the provider configuration, once.
func (b *Bridge) configure(ctx context.Context) error {
	if b.configured {
		return nil
	}
	if b.configureErr != nil {
		return b.configureErr
	}
	err := b.doConfigure(ctx)
	if err != nil && ctx.Err() == nil {
		b.configureErr = err // a cancelled attempt may be retried
	}
	return err
}

func (b *Bridge) doConfigure(ctx context.Context) error {
	s, err := b.client.Schema(ctx)
	if err != nil {
		return err
	}
	var block *tfproto.Block
	if s.Provider != nil {
		block = s.Provider.Block
	}
	cfg, err := tfvalue.Config(block, b.config)
	if err != nil {
		return fmt.Errorf("provider %s: configuration: %w", b.client.Name(), err)
	}
	ty := block.ImpliedType()
	data, err := tfvalue.Marshal(cfg, ty)
	if err != nil {
		return fmt.Errorf("provider %s: configuration: encode: %w", b.client.Name(), err)
	}
	prepared, diags, err := b.client.ValidateProviderConfig(ctx, data)
	if err != nil {
		return err
	}
	if err := b.diagnostics("validate provider configuration", "", diags); err != nil {
		return err
	}
	if len(prepared) > 0 {
		// Protocol 5 providers may fill in defaults; use what they return.
		data = prepared
	}
	diags, err = b.client.ConfigureProvider(ctx, data)
	if err != nil {
		return err
	}
	if err := b.diagnostics("configure provider", "", diags); err != nil {
		return err
	}
	b.configured = true
	return nil
}

// diagnostics logs warnings and turns error diagnostics into an error that
// names the provider and the step.
func (b *Bridge) diagnostics(step, typ string, diags tfproto.Diagnostics) error {
	for _, d := range diags.Warnings() {
		b.log.Warn(d.Summary, logkey.Type, typ, logkey.Step, step, logkey.Detail, d.Detail, logkey.Attribute, d.Attribute.String())
	}
	if err := diags.Err(); err != nil {
		return fmt.Errorf("provider %s: %s: %w", b.client.Name(), step, err)
	}
	return nil
}

// resourceType is a resolved v0 type: its Terraform name, schema and kind,
// with what every operation derives from the schema computed once.
type resourceType struct {
	name       string
	schema     *tfproto.Schema
	dataSource bool
	implied    cty.Type
	sensitive  []string
	// null is the msgpack of the null object, every create's prior;
	// nullData encodes it once.
	null []byte
}

func (rt *resourceType) nullData() ([]byte, error) {
	if rt.null == nil {
		data, err := tfvalue.Marshal(cty.NullVal(rt.implied), rt.implied)
		if err != nil {
			return nil, err
		}
		rt.null = data
	}
	return rt.null, nil
}

func newResourceType(name string, s *tfproto.Schema, dataSource bool) *resourceType {
	return &resourceType{
		name:       name,
		schema:     s,
		dataSource: dataSource,
		implied:    s.Block.ImpliedType(),
		sensitive:  s.Block.SensitivePaths(),
	}
}

func (rt *resourceType) ty() cty.Type { return rt.implied }

// lookup resolves a v0 type name against the schema, once per name.
func (b *Bridge) lookup(ctx context.Context, typ string) (*resourceType, error) {
	if rt := b.types[typ]; rt != nil {
		return rt, nil
	}
	s, err := b.client.Schema(ctx)
	if err != nil {
		return nil, err
	}
	var rt *resourceType
	if name, ok := strings.CutPrefix(typ, DataSourcePrefix); ok {
		ds := s.DataSources[name]
		if ds == nil {
			return nil, fmt.Errorf("provider %s has no data source %q", b.client.Name(), name)
		}
		rt = newResourceType(name, ds, true)
	} else if rs := s.ResourceTypes[typ]; rs != nil {
		rt = newResourceType(typ, rs, false)
	} else if s.DataSources[typ] != nil {
		return nil, fmt.Errorf("provider %s has no resource type %q; it has a data source of that name, use type %q", b.client.Name(), typ, DataSourcePrefix+typ)
	} else {
		return nil, fmt.Errorf("provider %s has no resource type %q", b.client.Name(), typ)
	}
	if b.types == nil {
		b.types = map[string]*resourceType{}
	}
	b.types[typ] = rt
	return rt, nil
}

// errNotStateful explains why a Terraform resource must be stateful.
var errNotStateful = errors.New("a Terraform resource is a real object that must be recorded to be updated or destroyed: give the resource a state handler (isStateful is false)")

func asErr[T error](err error, target *T) bool { return errors.As(err, target) }

// modeName says "data source" or "resource type" for messages.
func (rt *resourceType) modeName() string {
	if rt.dataSource {
		return "data source"
	}
	return "resource type"
}
