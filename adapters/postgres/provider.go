package postgres

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/pierhq/pier/providersdk"
	"github.com/pierhq/pier/schema"
	"github.com/pierhq/pier/schema/logkey"
	"github.com/pierhq/pier/statefile"
)

// Operations are the optional operations the postgres provider implements.
var Operations = []schema.Operation{schema.OperationDestroy}

// StateType is the resource type of a PostgreSQL state.
const StateType = "pg_state"

// Capabilities is what the postgres provider publishes to the host that
// runs it as a builtin: its operations, its one state type, and the libpq
// settings it inherits from pier's environment.
var Capabilities = schema.Capabilities{
	ResourceTypes: []string{StateType},
	Operations:    Operations,
	StateTypes:    []string{StateType},
	Env:           libpqEnv,
}

// libpqEnv are the libpq settings the adapter inherits from pier's
// environment, so that a team's usual PGHOST, PGUSER, PGPASSFILE … work.
// PGPASSWORD and PGSSLPASSWORD are left out on purpose: a secret in a
// child's environment is readable in /proc; the password file is the way.
var libpqEnv = []string{
	"PGHOST", "PGHOSTADDR", "PGPORT", "PGDATABASE", "PGUSER", "PGPASSFILE",
	"PGSERVICE", "PGSERVICEFILE", "PGOPTIONS", "PGAPPNAME", "PGCONNECT_TIMEOUT",
	"PGSSLMODE", "PGSSLCERT", "PGSSLKEY", "PGSSLROOTCERT", "PGSSLCRL", "PGSSLSNI",
	"PGSSLNEGOTIATION", "PGSSLCERTMODE", "PGREQUIREAUTH", "PGCHANNELBINDING",
	"PGTARGETSESSIONATTRS", "PGTZ", "PGMINPROTOCOLVERSION", "PGMAXPROTOCOLVERSION",
	// pier's own: how long a writer cut off from the server keeps a lock.
	SessionTimeoutEnv,
}

// ReadOnlyEnv names the environment variable that opens every pg_state
// read-only: no lock, no events. pier sets it for the commands that only
// read state (plan without -out, state list/show/history, output), so they
// answer while an apply holds the lock.
const ReadOnlyEnv = "PIER_STATE_READ_ONLY"

// Options configures a [Provider].
type Options struct {
	// ReadOnly opens every state without its lock; events are refused.
	ReadOnly bool
	// Logger receives the provider's logs; nil discards them.
	Logger *slog.Logger
	// Now stamps state events; nil means time.Now.
	Now func() time.Time
	// SessionTimeout bounds how long a writer cut off from the server
	// keeps a lock (see [Config.SessionTimeout]); 0 means the default.
	SessionTimeout time.Duration
}

// Provider serves pg_state. Close it when serving ends: it holds the
// connections, and with them the locks, until then.
type Provider struct {
	opts Options
	log  *slog.Logger

	mu     sync.Mutex
	stores map[Inputs]*Store
}

var (
	_ providersdk.Handler       = (*Provider)(nil)
	_ providersdk.Destroyer     = (*Provider)(nil)
	_ providersdk.StateProvider = (*Provider)(nil)

	_ providersdk.EncodedStateReader = (*Provider)(nil)
)

// New returns a postgres provider.
func New(opts Options) *Provider {
	p := &Provider{opts: opts, log: opts.Logger, stores: map[Inputs]*Store{}}
	if p.log == nil {
		p.log = slog.New(slog.DiscardHandler)
	}
	if p.opts.Now == nil {
		p.opts.Now = time.Now
	}
	return p
}

// Inputs are a pg_state's inputs.
type Inputs struct {
	// Key names the deployment's state; several deployments share one
	// database under different keys.
	Key string `json:"key"`
	// Conninfo adds to libpq's environment; no password.
	Conninfo string `json:"conninfo,omitempty"`
	// Schema holds pier's tables ("pier" when empty).
	Schema string `json:"schema,omitempty"`
}

func (p *Provider) store(ctx context.Context, typ string, props schema.Properties) (*Store, error) {
	if typ != StateType {
		return nil, fmt.Errorf("unknown resource type %q (supported: %s)", typ, StateType)
	}
	var in Inputs
	if err := providersdk.DecodeInputs(props, &in); err != nil {
		return nil, err
	}
	if in.Key == "" {
		return nil, errors.New("input key must name the state (e.g. the deployment's name)")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if s, ok := p.stores[in]; ok {
		return s, nil
	}
	s, err := Open(ctx, Config{Conninfo: in.Conninfo, Schema: in.Schema, Key: in.Key, ReadOnly: p.opts.ReadOnly, Logger: p.log, SessionTimeout: p.opts.SessionTimeout})
	if err != nil {
		return nil, fmt.Errorf("open PostgreSQL state %q: %w", in.Key, err)
	}
	p.log.Debug("state opened", logkey.Key, in.Key, logkey.ReadOnly, p.opts.ReadOnly)
	p.stores[in] = s
	return s, nil
}

// Create implements [providersdk.Handler]: it opens the state, so that an
// unreachable server or a held lock is reported before any planning.
func (p *Provider) Create(ctx context.Context, req *schema.CreateResourceRequest) (*schema.CreateResourceResponse, error) {
	if _, err := p.store(ctx, req.Type, req.InputProperties); err != nil {
		return nil, err
	}
	return &schema.CreateResourceResponse{OutputProperties: schema.Properties{}}, nil
}

// Update implements [providersdk.Handler]: new inputs open the state they
// name, which starts empty if nothing was recorded under it. Moving the
// records is the engine's job (or pier state push), not the provider's.
func (p *Provider) Update(ctx context.Context, req *schema.UpdateResourceRequest) (*schema.UpdateResourceResponse, error) {
	if _, err := p.store(ctx, req.Resource.Type, req.InputProperties); err != nil {
		return nil, err
	}
	return &schema.UpdateResourceResponse{OutputProperties: schema.Properties{}}, nil
}

// Destroy implements [providersdk.Destroyer]. It refuses while the state
// records resources, and otherwise leaves the rows alone: they are the
// deployment's history.
func (p *Provider) Destroy(ctx context.Context, req *schema.DestroyResourceRequest) (*schema.DestroyResourceResponse, error) {
	s, err := p.store(ctx, req.Resource.Type, req.Resource.InputProperties)
	if err != nil {
		return nil, err
	}
	if addrs := slices.Sorted(schema.StateResources(s.State())); len(addrs) > 0 {
		shown := addrs
		if len(shown) > 5 {
			shown = append(slices.Clone(shown[:5]), "…")
		}
		return nil, fmt.Errorf("the state still records %d resource(s) (%s); destroy them before the pg_state that stores them", len(addrs), strings.Join(shown, ", "))
	}
	return &schema.DestroyResourceResponse{}, nil
}

// StateRead implements [providersdk.StateProvider].
func (p *Provider) StateRead(ctx context.Context, req *schema.StateResourceReadRequest) (*schema.StateResourceReadResponse, error) {
	s, err := p.store(ctx, req.Resource.Type, req.Resource.InputProperties)
	if err != nil {
		return nil, err
	}
	st := s.State()
	if h := s.HeldBy(); h != nil && st[schema.PendingOperationsKey] != nil {
		// The pending operations are the live holder's work in progress:
		// say whose, as state_file does (schema.LockHolderKey).
		st[schema.LockHolderKey] = h.Record()
	}
	return &schema.StateResourceReadResponse{State: st}, nil
}

// StateReadEncoded implements [providersdk.EncodedStateReader]: the
// state is sent as its encoding (see [Store.Encoded]), not copied and
// encoded again. A reader that found the lock held leaves the read to
// StateRead, which adds the holder to the document.
func (p *Provider) StateReadEncoded(ctx context.Context, req *schema.StateResourceReadRequest) ([]byte, bool, error) {
	s, err := p.store(ctx, req.Resource.Type, req.Resource.InputProperties)
	if err != nil {
		return nil, false, err
	}
	if s.HeldBy() != nil {
		return nil, false, nil
	}
	b, err := s.Encoded()
	if err != nil {
		return nil, false, fmt.Errorf("encode PostgreSQL state %q: %w", s.key, err)
	}
	return b, true, nil
}

// StateEvent implements [providersdk.StateProvider]: the event is
// committed before the response tells the engine it may go on.
func (p *Provider) StateEvent(ctx context.Context, req *schema.StateResourceEvent) (*schema.StateResourceEventResponse, error) {
	s, err := p.store(ctx, req.Resource.Type, req.Resource.InputProperties)
	if err != nil {
		return nil, err
	}
	meta := statefile.Meta{
		Time:          p.opts.Now().UTC().Format(time.RFC3339Nano),
		Event:         req.Event,
		NixopsVersion: req.NixopsVersion,
	}
	if _, err := s.Append(ctx, meta, req.Patch); err != nil {
		return nil, fmt.Errorf("record %s event in PostgreSQL state %q: %w", req.Event, s.key, err)
	}
	return &schema.StateResourceEventResponse{}, nil
}

// Close closes every state, releasing the locks.
func (p *Provider) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	var errs []error
	for in, s := range p.stores {
		ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
		if err := s.Close(ctx); err != nil {
			errs = append(errs, fmt.Errorf("close PostgreSQL state %q: %w", in.Key, err))
		}
		cancel()
		delete(p.stores, in)
	}
	return errors.Join(errs...)
}

// closeTimeout bounds the snapshot and goodbye at Close: a server that
// went away must not hold up pier's exit; the session's end (and so the
// lock's release) does not depend on it.
const closeTimeout = 10 * time.Second
