package providersdk

import (
	"context"
	"io"
	"log/slog"
	"os"
	"strings"
)

// LogLevelEnv names the environment variable [Logger] reads its level from:
// debug, info, warn or error. pier passes its own log level to the providers
// it starts through this variable.
const LogLevelEnv = "PIER_LOG"

// Logger returns a logger that writes JSON lines to stderr, at the level
// named by $PIER_LOG (default info). JSON keeps each record's level intact
// when the host forwards a provider's stderr into its own log. Never log
// property values: inputs and outputs may hold secrets.
func Logger() *slog.Logger {
	return NewLogger(os.Stderr, LevelFromEnv())
}

// NewLogger returns a logger that writes JSON lines to w at level and above.
func NewLogger(w io.Writer, level slog.Leveler) *slog.Logger {
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level}))
}

// LevelFromEnv parses $PIER_LOG; an empty or unknown value means info.
func LevelFromEnv() slog.Level {
	return parseLevel(os.Getenv(LogLevelEnv))
}

func parseLevel(s string) slog.Level {
	var l slog.Level
	if err := l.UnmarshalText([]byte(strings.TrimSpace(s))); err != nil {
		return slog.LevelInfo
	}
	return l
}

// requestIDKey carries the number of the request a handler serves.
type requestIDKey struct{}

// RequestID returns the number of the request whose handler ctx was given
// to: the requests of one serving loop are numbered from 1, as pier numbers
// those it sends one provider process, and the serving loop logs each
// under [github.com/pierhq/pier/schema/logkey.RequestID]. A handler that logs, or calls another service,
// adds it so that its lines can be matched with pier's. It is 0 outside a
// request.
func RequestID(ctx context.Context) int {
	id, _ := ctx.Value(requestIDKey{}).(int)
	return id
}
