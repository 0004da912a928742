package provider

import (
	"log/slog"
	"path/filepath"
	"time"

	"github.com/pierhq/pier/host/internal/proc"
	"github.com/pierhq/pier/schema"
	"github.com/pierhq/pier/schema/jsonl"
)

// DefaultTimeout bounds one request when Config.Timeout is zero. Creating
// real infrastructure (a database, a VM) can legitimately take minutes;
// ten minutes is long enough for that and still ends a hung provider
// within one coffee break.
const DefaultTimeout = 10 * time.Minute

// DefaultCloseGrace is how long Close waits, after closing stdin, for a
// provider to exit by itself before killing its process group. Providers
// normally exit at once on end of input; five seconds lets one flush files
// or release a lock without stalling pier's exit noticeably.
const DefaultCloseGrace = 5 * time.Second

// DefaultMaxFrame is the default maximum response line; see
// [jsonl.DefaultMaxFrame] for why it is 64 MiB.
const DefaultMaxFrame = jsonl.DefaultMaxFrame

// DefaultMaxStateFrame is the default maximum of a stateResourceReadResponse
// line: [schema.MaxStateSize], since that response carries a whole state
// document, which pier lets grow to that size.
const DefaultMaxStateFrame = schema.MaxStateSize

// Config describes how to run one provider.
type Config struct {
	// Name is the provider declaration's name, for messages and logs.
	Name string
	// Executable is the program to run; a name without a slash is looked
	// up in PATH.
	Executable string
	// Args are the program's arguments.
	Args []string
	// Env holds environment variables added to the allow-listed ones
	// inherited from pier (see package proc).
	Env map[string]string
	// Dir is the working directory; empty means pier's.
	Dir string
	// ConfigData is the provider configuration (e.g. Terraform provider
	// credentials), given to the process on file descriptor 3 with
	// PIER_PROVIDER_CONFIG_FD=3. It is never logged.
	ConfigData []byte
	// Operations are the optional operations the provider declared.
	Operations []schema.Operation
	// Timeout bounds each request; zero means [DefaultTimeout].
	Timeout time.Duration
	// MaxFrame is the largest response line in bytes; zero means
	// [DefaultMaxFrame].
	MaxFrame int
	// MaxStateFrame is the largest stateResourceReadResponse line in
	// bytes; zero means [DefaultMaxStateFrame].
	MaxStateFrame int
	// CloseGrace is how long Close waits for the process to exit after
	// closing its stdin; zero means [DefaultCloseGrace].
	CloseGrace time.Duration
	// Logger receives the provider's stderr, one record per line, with
	// provider= and resource= attributes. Nil discards.
	Logger *slog.Logger
	// ReceiverValidates says the provider is one of pier's own adapters,
	// which validates every request against the v0 schema as it receives
	// it (providersdk does), and answers an invalid one with an
	// errorResponse saying so. The host then skips its own check of the
	// requests it sends, so that each frame is validated once, by its
	// receiver: a bridged create carries the resource's whole inputs, and
	// a state event its patch. Responses are validated by the host
	// whatever this says. Leave it false for every other provider: a
	// third-party provider may not validate what it receives.
	ReceiverValidates bool

	// noExitFile makes a process ask waitid whether it has exited, as on a
	// kernel without pidfds (see [proc.Process.ExitFile]), for the tests
	// of that path.
	noExitFile bool
	// configLater, set by [StartEarly] in place of ConfigData, gives the
	// process its configuration once it is known.
	configLater *proc.Later
}

func (c Config) withDefaults() Config {
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	if c.MaxFrame <= 0 {
		c.MaxFrame = DefaultMaxFrame
	}
	if c.MaxStateFrame <= 0 {
		c.MaxStateFrame = DefaultMaxStateFrame
	}
	if c.CloseGrace <= 0 {
		c.CloseGrace = DefaultCloseGrace
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Name == "" {
		c.Name = filepath.Base(c.Executable)
	}
	return c
}

// responseLimit is the largest response line to a request of kind: a state
// read answers with the whole state, every other response with one
// resource.
func (c Config) responseLimit(kind string) int {
	if kind == "stateResourceReadRequest" {
		return c.MaxStateFrame
	}
	return c.MaxFrame
}
