package tfclient

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/hashicorp/go-hclog"
	"github.com/pierhq/pier/schema/logkey"
)

// stderrTail is how many of the provider's last log lines an error about
// its failure quotes: enough for a panic's message and first frames.
const stderrTail = 30

// logSink receives go-plugin's hclog output (JSON, one entry a line), which
// includes every line the provider wrote to stderr, and re-emits each entry
// on a slog logger at its level. It keeps the last lines for error messages.
type logSink struct {
	log *slog.Logger
	// module is go-plugin's logger name for lines from the provider itself
	// ("provider.<binary>"). Its plain stderr lines arrive at debug level;
	// they are raised to info so that they reach the user, as are all the
	// provider's log lines when provider logs were asked for.
	module       string
	providerLogs bool

	mu   sync.Mutex
	buf  []byte
	tail []string
}

func newHCLogger(sink *logSink) hclog.Logger {
	return hclog.New(&hclog.LoggerOptions{
		Name:       "provider",
		Level:      hclog.Trace, // slog's handler filters; go-plugin logs plain stderr at debug
		Output:     sink,
		JSONFormat: true,
	})
}

func (s *logSink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.buf = append(s.buf, p...)
	for {
		i := bytes.IndexByte(s.buf, '\n')
		if i < 0 {
			break
		}
		s.emit(s.buf[:i])
		s.buf = s.buf[i+1:]
	}
	return len(p), nil
}

func (s *logSink) emit(line []byte) {
	var entry map[string]any
	if err := json.Unmarshal(line, &entry); err != nil {
		s.remember(string(line))
		s.log.Info(string(line))
		return
	}
	msg, _ := entry["@message"].(string)
	lvl, _ := entry["@level"].(string)
	level := slogLevel(lvl)
	level = s.adjust(entry, level)
	if level >= slog.LevelInfo || strings.HasPrefix(msg, "panic: ") {
		s.remember(msg)
	}
	var attrs []slog.Attr
	keys := slices.Sorted(maps.Keys(entry))
	for _, k := range keys {
		if strings.HasPrefix(k, "@") {
			continue
		}
		attrs = append(attrs, slog.Any(k, entry[k]))
	}
	if m, ok := entry["@module"].(string); ok {
		attrs = append(attrs, slog.String(logkey.Module, m))
	}
	s.log.LogAttrs(context.Background(), level, msg, attrs...)
}

// remember keeps a line for [logSink.lastLines]; called with mu held.
func (s *logSink) remember(line string) {
	s.tail = append(s.tail, line)
	if len(s.tail) > stderrTail {
		s.tail = s.tail[len(s.tail)-stderrTail:]
	}
}

// lastLines returns the remembered lines, oldest first.
func (s *logSink) lastLines() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.tail...)
}

func slogLevel(l string) slog.Level {
	switch strings.ToLower(l) {
	case "trace", "debug":
		return slog.LevelDebug
	case "warn":
		return slog.LevelWarn
	case "error":
		return slog.LevelError
	}
	return slog.LevelInfo
}

// adjust decides what the user sees at the default info level: the
// provider's plain stderr (panics included) and, when asked for, its logs;
// not the handshake chatter of go-plugin and the provider's plugin server.
// go-plugin marks lines it parsed from the provider's JSON logs with a
// "timestamp" key; plain stderr lines have none.
func (s *logSink) adjust(entry map[string]any, level slog.Level) slog.Level {
	mod, _ := entry["@module"].(string)
	_, fromJSON := entry["timestamp"]
	switch {
	case mod == s.module && (!fromJSON || s.providerLogs):
		return max(level, slog.LevelInfo)
	case level == slog.LevelInfo:
		return slog.LevelDebug
	}
	return level
}
