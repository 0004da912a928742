package statefile

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestOpenTakesSnapshotOver checks that a writer opened after a read of
// the same file takes the read's document over when the file is as read,
// and replays it when another writer appended in between: either way the
// log continues from what the file holds.
func TestOpenTakesSnapshotOver(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		before  func(t *testing.T, path string) // before the read
		between func(t *testing.T, path string) // after the read
		wantRes []string
	}{
		"file as read":          {wantRes: []string{"a", "b"}},
		"appended in between":   {between: appendOne("c"), wantRes: []string{"a", "b", "c"}},
		"no newline at the end": {before: trimNewline, wantRes: []string{"a", "b"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "state.json")
			appendOne("a")(t, path)
			if tc.before != nil {
				tc.before(t, path)
			}
			snap := mustRead(t, path)
			if !snap.Unchanged(path) {
				t.Fatal("Unchanged() = false for a file nobody touched")
			}
			if tc.between != nil {
				tc.between(t, path)
				// The adapter's cache of reads depends on this.
				if snap.Unchanged(path) {
					t.Fatal("Unchanged() = true after the file changed")
				}
			}
			l, err := Open(path, Options{Snapshot: snap})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := l.Append(Meta{Event: "create"}, createPatch("b")); err != nil {
				t.Fatal(err)
			}
			got := l.State()
			// A log that took the read over changed the read's document,
			// or, for a read of the resolved-state cache, decoded the same
			// cached bytes (lazy.go) instead of reading the file again.
			_, shared := mustState(t, snap)["resources"].(map[string]any)["b"]
			enc := snap.Encoded()
			fromRead := shared || len(enc) > 0 && len(l.enc) > 0 && &l.enc[0] == &enc[0]
			if want := tc.between == nil; fromRead != want {
				t.Errorf("the log took the read's document over: %v, want %v", fromRead, want)
			}
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			again := mustRead(t, path)
			if diff := cmp.Diff(mustState(t, again), got); diff != "" {
				t.Errorf("log's state differs from a replay of the file (-replay +log):\n%s", diff)
			}
			var names []string
			for _, n := range tc.wantRes {
				if _, ok := mustState(t, again)["resources"].(map[string]any)[n]; !ok {
					t.Errorf("resource %s missing after the append", n)
				}
				names = append(names, n)
			}
			if n := len(mustState(t, again)["resources"].(map[string]any)); n != len(names) {
				t.Errorf("state records %d resources, want %d", n, len(names))
			}
		})
	}
}

func TestUnchangedAbsentFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "state.json")
	snap := mustRead(t, path)
	if !snap.Unchanged(path) {
		t.Error("Unchanged() = false for a file that still does not exist")
	}
	appendOne("a")(t, path)
	if snap.Unchanged(path) {
		t.Error("Unchanged() = true after the file was created")
	}
}

// mustState is the snapshot's document.
func mustState(t *testing.T, s *Snapshot) map[string]any {
	t.Helper()
	state, err := s.State()
	if err != nil {
		t.Fatal(err)
	}
	return state
}

func mustRead(t *testing.T, path string) *Snapshot {
	t.Helper()
	s, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// appendOne returns a step that records a resource through its own log.
func appendOne(name string) func(*testing.T, string) {
	return func(t *testing.T, path string) {
		t.Helper()
		l, err := Open(path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		if _, err := l.Append(Meta{Event: "create"}, createPatch(name)); err != nil {
			t.Fatal(err)
		}
	}
}

// trimNewline cuts the file's final newline, as another tool may leave
// it; the next event must still start on a line of its own.
func trimNewline(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data[:len(data)-1], 0o600); err != nil {
		t.Fatal(err)
	}
}
