package engine

import (
	"log/slog"
	"time"

	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/schema"
)

// Config holds the settings of an [Engine].
type Config struct {
	// Source is the deployment.
	Source source.Source
	// Dir is the working directory of provider processes: the deployment's
	// directory.
	Dir string
	// PierExecutable runs the built-in adapters (`pier adapter …`).
	PierExecutable string
	// Parallelism bounds the provider requests in flight at once (default
	// 10); apply starts up to twice as many operations, whose intents are
	// recorded meanwhile (see host/apply).
	Parallelism int
	// Timeout bounds one provider request (default: the provider
	// package's).
	Timeout time.Duration
	// CloseGrace is how long a provider may take to exit once its stdin
	// is closed before it is killed (default: the provider package's).
	CloseGrace time.Duration
	// Logger receives provider stderr and engine diagnostics.
	Logger *slog.Logger
	// Events receives progress events. It is called from several
	// goroutines at once (the scheduler, the source's resolves and, through
	// [LogHandler], provider stderr), so it must be safe for concurrent
	// use. Nil discards them.
	Events func(Event)
	// NixopsVersion is sent with state events.
	NixopsVersion string
	// ReadOnlyState tells the built-in state handlers to read without
	// taking their write lock and to refuse events: for commands that
	// only read state, so they answer while an apply runs.
	ReadOnlyState bool
	// Builtins are the adapters shipped inside PierExecutable (`pier
	// adapter NAME`), by name, with what each publishes about itself: the
	// engine knows nothing of them beyond this. A provider declared with
	// builtin = NAME must be one of them; one declared terraform = PLUGIN
	// runs the "terraform" bridge.
	Builtins schema.Adapters
}

const defaultParallelism = 10

func (c Config) parallelism() int {
	if c.Parallelism > 0 {
		return c.Parallelism
	}
	return defaultParallelism
}

// providerParallelism is a provider's pool size when its declaration does
// not say: no more processes than operations can run at once.
func (c Config) providerParallelism() int {
	return min(c.parallelism(), 4)
}

func (c Config) logger() *slog.Logger {
	if c.Logger != nil {
		return c.Logger
	}
	return slog.New(slog.DiscardHandler)
}

func (c Config) nixopsVersion() string {
	if c.NixopsVersion != "" {
		return c.NixopsVersion
	}
	return "pier"
}
