package engine

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/pierhq/pier/host/redact"
	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/host/statedoc"
)

// Engine plans and applies one deployment. Plan and Apply are called from
// one goroutine; Close stops every provider the engine started.
type Engine struct {
	cfg       Config
	providers *Providers
	// secrets redacts what providers write to stderr about a resource;
	// see redact_log.go.
	secrets *redact.Secrets
	// tf checks inputs against Terraform schemas; see tfcheck.go.
	tf *tfCheck
}

// HandlerRef is a state handler as run during planning.
type HandlerRef struct {
	Resource *source.Resource
	Outputs  map[string]any
	View     *statedoc.View
}

// New returns an engine for a deployment.
func New(cfg Config) *Engine {
	secrets := &redact.Secrets{}
	cfg.Logger = slog.New(redact.NewHandler(cfg.logger().Handler(), secrets))
	return &Engine{cfg: cfg, providers: newProviders(cfg), secrets: secrets}
}

// Close stops every provider process the engine started and waits for
// them to exit.
func (e *Engine) Close() error { return e.providers.close() }

// ProvidersStarted counts the provider processes started so far, by
// provider name.
func (e *Engine) ProvidersStarted() map[string]int { return e.providers.started() }

// Snapshot asks the source for a snapshot and declares its providers.
func (e *Engine) Snapshot(ctx context.Context, known source.Outputs) (*source.Snapshot, error) {
	snap, err := e.cfg.Source.Resolve(ctx, known)
	if err != nil {
		return nil, err
	}
	e.providers.Declare(snap.Providers)
	for _, d := range snap.Providers {
		if _, err := e.cfg.declaredOperations(d); err != nil {
			return nil, fmt.Errorf("%s: %w", d.Range, err)
		}
	}
	if snap.Evaluation != nil {
		e.Emit(Event{Type: EventEvaluation, Round: snap.Evaluation.Round, Elapsed: snap.Evaluation.Duration,
			Message: fmt.Sprintf("evaluation round %d: %d ready, %d blocked", snap.Evaluation.Round, len(snap.Ready), len(snap.Blocked))})
	}
	return snap, nil
}

func (e *Engine) Emit(ev Event) {
	if e.cfg.Events == nil {
		return
	}
	if ev.Time.IsZero() {
		ev.Time = time.Now()
	}
	e.cfg.Events(ev)
}

// States runs the deployment's state handlers and reads what they hold,
// without starting any other provider.
func (e *Engine) States(ctx context.Context) (map[string]*statedoc.View, error) {
	p, err := e.readOnly(ctx)
	if err != nil {
		return nil, err
	}
	return p.States, nil
}

// readOnly reads the states into a plan that changes nothing.
func (e *Engine) readOnly(ctx context.Context) (*Plan, error) {
	snap, err := e.Snapshot(ctx, source.Outputs{})
	if err != nil {
		return nil, err
	}
	pl := &planner{e: e, plan: &Plan{States: map[string]*statedoc.View{}, Known: source.Outputs{}, handlers: map[string]*HandlerRef{}}, recorded: map[string]*statedoc.Recorded{}}
	if err := pl.readStates(ctx, snap); err != nil {
		return nil, err
	}
	return pl.plan, nil
}

// Forget removes a resource from the state that records it, with a
// "forget" event. The real object is left alone. A resource recorded in
// more than one state is forgotten only from the one state names; state
// may be empty otherwise.
func (e *Engine) Forget(ctx context.Context, addr, state string) (handler string, err error) {
	p, err := e.readOnly(ctx)
	if err != nil {
		return "", err
	}
	states := p.States
	var in []string
	for _, h := range slices.Sorted(maps.Keys(states)) {
		if states[h].Entries[addr] != nil && (state == "" || state == h) {
			in = append(in, h)
		}
	}
	switch {
	case len(in) == 0 && state != "":
		return "", fmt.Errorf("%s is not recorded in state %s (see pier state list)", addr, state)
	case len(in) == 0:
		return "", fmt.Errorf("%s is not recorded in any state of this deployment (see pier state list)", addr)
	case len(in) > 1:
		return "", fmt.Errorf("%s is recorded in states %s; name the one to forget it from with --state", addr, strings.Join(in, ", "))
	}
	h := in[0]
	rec := states[h].Entries[addr]
	r := NewRecorder(e, h, p.handlers[h])
	defer r.Close()
	if err := r.Record(ctx, "forget", func(pb *statedoc.PatchBuilder) error {
		pb.Remove(rec.Address)
		return nil
	}); err != nil {
		ref := p.handlers[h]
		return "", fmt.Errorf("forget %s in state %s (provider %s): %w", addr, h, ref.Resource.Provider, err)
	}
	return h, nil
}
