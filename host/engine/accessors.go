package engine

import (
	"log/slog"

	"github.com/pierhq/pier/host/redact"
	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/host/tfschema"
)

// This file is what planning and applying read of the engine they run on:
// the providers it started, the logger, the parallelism, the deployment
// and its directory.

// Providers are the deployment's providers, started lazily.
func (e *Engine) Providers() *Providers { return e.providers }

// Secrets are the sensitive texts redacted from what providers log.
func (e *Engine) Secrets() *redact.Secrets { return e.secrets }

// Parallelism is how many operations may run at once.
func (e *Engine) Parallelism() int { return e.cfg.parallelism() }

// Logger is the engine's logger, which redacts what it is given.
func (e *Engine) Logger() *slog.Logger { return e.cfg.logger() }

// Source is the deployment.
func (e *Engine) Source() source.Source { return e.cfg.Source }

// Dir is the working directory of provider processes: the deployment's
// directory.
func (e *Engine) Dir() string { return e.cfg.Dir }

// Locator places Terraform input errors in the configuration. The engine
// keeps one for its life, so that each file is parsed once across plans;
// it is nil until the first [Engine.UseLocator].
func (e *Engine) Locator() *tfschema.Locator { return e.locator }

// UseLocator returns the engine's locator, making it first. Planning runs
// on one goroutine, which is the only one to call it.
func (e *Engine) UseLocator() *tfschema.Locator {
	if e.locator == nil {
		e.locator = &tfschema.Locator{}
	}
	return e.locator
}
