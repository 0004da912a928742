package engine

import (
	"log/slog"

	"github.com/pierhq/pier/host/redact"
)

// This file is what host/apply reads of the engine that planned: the
// providers it started, the logger, the parallelism, and the state
// handlers the plan read. Applying executes a plan on the engine that
// made it, or on another (a saved plan).

// Providers are the deployment's providers, started lazily.
func (e *Engine) Providers() *Providers { return e.providers }

// Secrets are the sensitive texts redacted from what providers log.
func (e *Engine) Secrets() *redact.Secrets { return e.secrets }

// Parallelism is how many operations may run at once.
func (e *Engine) Parallelism() int { return e.cfg.parallelism() }

// Logger is the engine's logger, which redacts what it is given.
func (e *Engine) Logger() *slog.Logger { return e.cfg.logger() }

// MadeBy reports whether e planned p: its state handlers still run, and
// the states it read are the ones p's graph reads.
func (p *Plan) MadeBy(e *Engine) bool { return p.madeBy == e }

// HandlerRef is the state handler h as read while planning, or nil.
func (p *Plan) HandlerRef(h string) *HandlerRef { return p.handlers[h] }
