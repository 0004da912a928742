package statefile

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// nixopsLog is a log as NixOps4's writer leaves it: every event index 0,
// which a replay reports as a warning that the cache must keep.
const nixopsLog = `{"index":0,"meta":{},"patch":[{"op":"add","path":"","value":{"_type":"nixopsState","resources":{},"deployments":{}}}]}
{"index":0,"meta":{},"patch":[{"op":"add","path":"/resources/a","value":{"type":"file","inputProperties":{"n":1.50},"outputProperties":{}}}]}
{"index":0,"meta":{},"patch":[{"op":"add","path":"/resources/b","value":{"type":"file","inputProperties":{"s":"\u00e9\n"},"outputProperties":{}}}]}
`

// replayed is what a full replay of the file reports, with no cache.
func replayed(t *testing.T, path string) *Snapshot {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	copyPath := filepath.Join(dir, filepath.Base(path))
	if err := os.WriteFile(copyPath, data, 0o600); err != nil {
		t.Fatal(err)
	}
	s := mustRead(t, copyPath)
	if s.Encoded() != nil {
		t.Fatal("a file without a cache read from a cache")
	}
	return s
}

// TestCache: a writer's Close leaves a cache of the state, which the next
// Read and Open use instead of replaying, reporting exactly what the
// replay does; a cache that does not match the log byte for byte, or is
// damaged, is ignored.
func TestCache(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		log string // the file before a writer opens it; "" for a new one
		// spoil changes the log or its cache after the writer closed it.
		spoil   func(t *testing.T, path string)
		wantHit bool
	}{
		"pier's log": {wantHit: true},
		"NixOps4's log, with warnings and exact numbers": {log: nixopsLog, wantHit: true},
		"another writer appended": {spoil: func(t *testing.T, path string) {
			f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.WriteString(`{"index":9,"meta":{},"patch":[{"op":"remove","path":"/resources/x"}]}` + "\n"); err != nil {
				t.Fatal(err)
			}
		}},
		"compacted, which leaves a cache of its own": {wantHit: true, spoil: func(t *testing.T, path string) {
			if err := Compact(path, Options{}); err != nil {
				t.Fatal(err)
			}
		}},
		// An event NixOps4 wrote has no checksum: an edit is read as it is.
		"log edited, same size": {log: nixopsLog, spoil: rewrite("", func(b []byte) []byte { return bytes.Replace(b, []byte(`"n":1.50`), []byte(`"n":2.50`), 1) })},
		"cache cut short":       {spoil: rewrite(CacheSuffix, func(b []byte) []byte { return b[:len(b)-10] })},
		"cache damaged":         {spoil: rewrite(CacheSuffix, func(b []byte) []byte { return bytes.Replace(b, []byte(`"id":"x"`), []byte(`"id":"z"`), 1) })},
		"cache of another version": {spoil: rewrite(CacheSuffix, func(b []byte) []byte {
			return bytes.Replace(b, fmt.Appendf(nil, `{"pierStateCache":%d,`, cacheVersion), fmt.Appendf(nil, `{"pierStateCache":%d,`, cacheVersion+1), 1)
		})},
		"cache without state": {spoil: rewrite(CacheSuffix, func(b []byte) []byte { return b[:bytes.IndexByte(b, '\n')] })},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "state.json")
			if tc.log != "" {
				if err := os.WriteFile(path, []byte(tc.log), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			l, err := Open(path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := l.Append(Meta{Event: "create"}, createPatch("x")); err != nil {
				t.Fatal(err)
			}
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			if m := fileMode(t, path+CacheSuffix); m != 0o600 {
				t.Errorf("cache has mode %v, want 0600: it holds the state's secrets", m)
			}
			if tc.spoil != nil {
				tc.spoil(t, path)
			}

			want := replayed(t, path)
			got := mustRead(t, path)
			if hit := got.Encoded() != nil; hit != tc.wantHit {
				t.Errorf("read from the cache: %v, want %v", hit, tc.wantHit)
			}
			if diff := cmp.Diff(mustState(t, want), mustState(t, got)); diff != "" {
				t.Errorf("state (-replay +read):\n%s", diff)
			}
			if got.Events != want.Events || got.LastIndex != want.LastIndex || got.Exists != want.Exists {
				t.Errorf("read: %d events, last index %d, exists %v; replay: %d, %d, %v", got.Events, got.LastIndex, got.Exists, want.Events, want.LastIndex, want.Exists)
			}
			if diff := cmp.Diff(want.warnings, got.warnings); diff != "" {
				t.Errorf("warnings (-replay +read):\n%s", diff)
			}
			if enc := got.Encoded(); enc != nil {
				if diff := cmp.Diff(mustState(t, want), any(mustDecode(t, string(enc)))); diff != "" {
					t.Errorf("encoded state (-replay +cache):\n%s", diff)
				}
			}

			// A writer continues from the same place, cache or not, and
			// leaves a cache of what it wrote.
			l, err = Open(path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if l.Events() != want.Events || l.LastIndex() != want.LastIndex {
				t.Errorf("writer: %d events, last index %d; replay: %d, %d", l.Events(), l.LastIndex(), want.Events, want.LastIndex)
			}
			if _, err := l.Append(Meta{Event: "create"}, createPatch("y")); err != nil {
				t.Fatal(err)
			}
			logState := l.State()
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			after := mustRead(t, path)
			if after.Encoded() == nil {
				t.Error("no cache after a writer closed")
			}
			if diff := cmp.Diff(mustState(t, replayed(t, path)), mustState(t, after)); diff != "" {
				t.Errorf("state after the second writer (-replay +read):\n%s", diff)
			}
			if diff := cmp.Diff(logState, mustState(t, after)); diff != "" {
				t.Errorf("state after the second writer (-log +read):\n%s", diff)
			}
		})
	}
}

// rewrite returns a step that changes the file at path+suffix in place.
func rewrite(suffix string, change func([]byte) []byte) func(*testing.T, string) {
	return func(t *testing.T, path string) {
		t.Helper()
		data, err := os.ReadFile(path + suffix)
		if err != nil {
			t.Fatal(err)
		}
		changed := change(bytes.Clone(data))
		if bytes.Equal(changed, data) {
			t.Fatal("the change changed nothing")
		}
		if err := os.WriteFile(path+suffix, changed, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// TestReadWritesNoCache: only a writer writes the cache; a read, which
// planning does, leaves the directory as it was.
func TestReadWritesNoCache(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	if err := os.WriteFile(path, []byte(nixopsLog), 0o600); err != nil {
		t.Fatal(err)
	}
	s := mustRead(t, path)
	if s.Encoded() != nil {
		t.Error("read from a cache that does not exist")
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if got := strings.Join(names, " "); got != "state.json" {
		t.Errorf("directory after a read: %s, want state.json alone", got)
	}
}

// TestSaveCache: a reader that holds the lock caches a read that had to
// replay, unless the file changed since or the read needs no cache.
func TestSaveCache(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		log     string                          // written before the read; "" for no file
		between func(t *testing.T, path string) // after the read
		cached  bool                            // a writer's Close left a cache before the read
		wantErr error
	}{
		"replayed":              {log: nixopsLog},
		"appended in between":   {log: nixopsLog, between: appendOne("c"), wantErr: ErrCacheNotNeeded},
		"read from the cache":   {log: nixopsLog, cached: true, wantErr: ErrCacheNotNeeded},
		"no file":               {wantErr: ErrCacheNotNeeded},
		"torn last event":       {log: nixopsLog + `{"index":0,"meta":{},"pa`, wantErr: ErrCacheNotNeeded},
		"no newline at the end": {log: strings.TrimSuffix(nixopsLog, "\n")},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "state.json")
			if tc.log != "" {
				if err := os.WriteFile(path, []byte(tc.log), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if tc.cached {
				l, err := Open(path, Options{})
				if err != nil {
					t.Fatal(err)
				}
				if err := l.Close(); err != nil {
					t.Fatal(err)
				}
			}
			s := mustRead(t, path)
			if tc.between != nil {
				tc.between(t, path)
				os.Remove(path + CacheSuffix) // the writer's own
			}
			err := s.SaveCache(path)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("SaveCache() = %v, want %v", err, tc.wantErr)
			}
			if err != nil {
				if _, serr := os.Stat(path + CacheSuffix); !tc.cached && !errors.Is(serr, os.ErrNotExist) {
					t.Errorf("a cache was written (%v)", serr)
				}
				return
			}
			if s.Encoded() == nil {
				t.Error("Encoded() = nil after SaveCache")
			}
			again := mustRead(t, path)
			if again.Encoded() == nil {
				t.Fatal("the next read replayed")
			}
			if diff := cmp.Diff(mustState(t, replayed(t, path)), mustState(t, again)); diff != "" {
				t.Errorf("state (-replay +cache):\n%s", diff)
			}
			if diff := cmp.Diff(mustState(t, s), any(mustDecode(t, string(s.Encoded())))); diff != "" {
				t.Errorf("encoded (-state +encoded):\n%s", diff)
			}
			// A writer that takes the cached read over appends after it.
			l, err := Open(path, Options{Snapshot: again})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := l.Append(Meta{Event: "create"}, createPatch("d")); err != nil {
				t.Fatal(err)
			}
			want := l.State()
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(mustState(t, replayed(t, path)), want); diff != "" {
				t.Errorf("state after the append (-replay +log):\n%s", diff)
			}
		})
	}
}
