package provider

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/pierhq/pier/internal/testbin"
	"github.com/pierhq/pier/internal/testneed"
)

// testProvider returns the path of a test provider under the repository's
// testdata/providers, skipping the test when the interpreter it needs is
// missing.
func testProvider(tb testing.TB, rel string, tools ...string) string {
	tb.Helper()
	for _, tool := range tools {
		testneed.Tool(tb, tool)
	}
	return filepath.Join(testbin.ModuleRoot(), "testdata", "providers", rel)
}

// logBuffer collects JSON log records from a slog.JSONHandler.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// records returns the logged records whose message contains substr.
func (l *logBuffer) records(tb testing.TB, substr string) []map[string]any {
	tb.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(l.buf.String()), "\n") {
		if line == "" {
			continue
		}
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			tb.Fatalf("log line %q: %v", line, err)
		}
		if msg, _ := rec["msg"].(string); strings.Contains(msg, substr) {
			out = append(out, rec)
		}
	}
	return out
}
