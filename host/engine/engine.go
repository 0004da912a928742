package engine

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/pierhq/pier/host/redact"
	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/host/tfschema"
)

// Engine plans and applies one deployment. Plan and Apply are called from
// one goroutine; Close stops every provider the engine started.
type Engine struct {
	cfg       Config
	providers *Providers
	// secrets redacts what providers write to stderr about a resource;
	// see redact_log.go.
	secrets *redact.Secrets
	// locator places Terraform input errors; see [Engine.Locator].
	locator *tfschema.Locator
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

// ReleaseTerraform starts stopping the Terraform providers and their
// bridges in the background, for a command that will ask them nothing
// more (pier plan, once planned), so that they exit while it does the
// rest of its work; [Engine.Close] waits for them, and reports what
// failed. A request to one of them afterwards fails.
func (e *Engine) ReleaseTerraform() { e.providers.releaseTerraform() }

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
