package statefile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pierhq/pier/schema"
)

func mustJSON(tb testing.TB, v any) []byte {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func TestSpliceEncoding(t *testing.T) {
	t.Parallel()
	before := map[string]any{
		"_type":     "nixopsState",
		"resources": map[string]any{"a": map[string]any{"v": "1"}, "b<": "x", "m\"q": []any{json.Number("1")}, "z": nil},
		"list":      []any{"x"},
	}
	tests := map[string]struct {
		after map[string]any
		paths []string
	}{
		"nothing": {after: before},
		"replace one": {
			after: map[string]any{"_type": "nixopsState", "resources": map[string]any{"a": map[string]any{"v": "2"}, "b<": "x", "m\"q": []any{json.Number("1")}, "z": nil}, "list": []any{"x"}},
			paths: []string{"/resources/a/v"},
		},
		"add first, middle, last; remove one": {
			after: map[string]any{"_type": "nixopsState", "resources": map[string]any{"0": true, "a": map[string]any{"v": "1"}, "b<": "x", "c&": "new", "zz": "last"}, "list": []any{"x"}},
			paths: []string{"/resources/0", "/resources/c&", "/resources/zz", "/resources/m\"q", "/resources/z"},
		},
		"top-level member whole": {
			after: map[string]any{"_type": "nixopsState", "resources": before["resources"], "pending": map[string]any{"k": "v"}},
			paths: []string{"/pending", "/list"},
		},
		"array element": {
			after: map[string]any{"_type": "nixopsState", "resources": before["resources"], "list": []any{"y"}},
			paths: []string{"/list/0"},
		},
		"emptied": {
			after: map[string]any{"_type": "nixopsState", "resources": map[string]any{}, "list": []any{"x"}},
			paths: []string{"/resources/a", "/resources/b<", "/resources/m\"q", "/resources/z"},
		},
	}
	old := mustJSON(t, before)
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var ch changedMembers
			for _, p := range tt.paths {
				ch.mark(p)
			}
			got, ok := spliceEncoding(old, tt.after, &ch)
			if !ok {
				t.Fatal("splice refused")
			}
			if diff := cmp.Diff(string(mustJSON(t, tt.after)), string(got)); diff != "" {
				t.Errorf("spliced encoding (-json.Marshal +got):\n%s", diff)
			}
		})
	}
}

func TestSpliceEncodingRefuses(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		old   string
		paths []string
	}{
		"the root":       {old: `{"a":1}`, paths: []string{""}},
		"not an object":  {old: `[1]`, paths: []string{"/a"}},
		"cut short":      {old: `{"a":{"b":1}`, paths: []string{"/a/b"}},
		"not compact":    {old: `{"a": 1}`, paths: []string{"/b"}},
		"no encoding":    {paths: []string{"/a"}},
		"bad key string": {old: `{"a\":1}`, paths: []string{"/b"}},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var ch changedMembers
			for _, p := range tt.paths {
				ch.mark(p)
			}
			var old []byte
			if tt.old != "" {
				old = []byte(tt.old)
			}
			if got, ok := spliceEncoding(old, map[string]any{"a": json.Number("1"), "b": "x"}, &ch); ok {
				t.Errorf("spliced %q, want a refusal", got)
			}
		})
	}
}

// hasEncoded reports whether a document holds a value not decoded yet.
func hasEncoded(v any) bool {
	switch c := v.(type) {
	case json.RawMessage:
		return true
	case map[string]any:
		for _, e := range c {
			if hasEncoded(e) {
				return true
			}
		}
	case []any:
		for _, e := range c {
			if hasEncoded(e) {
				return true
			}
		}
	}
	return false
}

// TestCacheSplicedAcrossCommands opens, changes and closes a log again
// and again, as commands do, with random patches of resources, of their
// members and of other top-level members: each Close splices the cache
// from the one the log was opened from, and it must be exactly the
// encoding of the state, which must be the replay's. Each Open decodes
// the cached resources only as the patches reach them (see lazy.go).
func TestCacheSplicedAcrossCommands(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "state.json")
	r := rand.New(rand.NewPCG(1, 2))
	keys := []string{"a", "b[0]", "b[1]", "c<&>", "d\"q", "e/f", "g~h", "é", "z"}
	value := func() json.RawMessage {
		if r.IntN(2) == 0 {
			// Members out of order, as the engine writes a resource:
			// the log keeps the value encoded, put in order.
			return json.RawMessage(fmt.Sprintf(`{"type":"memo","output_properties":{"value":"%d","list":[{"z":1,"a":"x\\ny"}]},"n":%d}`, r.IntN(100), r.IntN(5)))
		}
		return mustJSON(t, map[string]any{"type": "memo", "output_properties": map[string]any{"value": fmt.Sprint(r.IntN(100))}, "n": r.IntN(5)})
	}
	for round := range 40 {
		// As the local adapter opens it (taking a read over), and as
		// Open alone does.
		var opts Options
		if round%2 == 0 {
			s, err := Read(path)
			if err != nil {
				t.Fatal(err)
			}
			opts.Snapshot = s
		}
		l, err := Open(path, opts)
		if err != nil {
			t.Fatal(err)
		}
		if round > 0 {
			if l.enc == nil {
				t.Fatalf("round %d: the log was not opened from its cache", round)
			}
			if !hasEncoded(l.doc.root) {
				t.Fatalf("round %d: the log opened from its cache decoded every resource", round)
			}
		}
		for range 1 + r.IntN(4) {
			// State decodes a copy; the log's own tree stays encoded.
			state := l.State()
			if hasEncoded(state) {
				t.Fatalf("round %d: State returned encoded values", round)
			}
			res, _ := state["resources"].(map[string]any)
			k := keys[r.IntN(len(keys))]
			ptr := schema.Pointer("resources", k)
			var p schema.Patch
			_, exists := res[k]
			switch n := r.IntN(6); {
			case !exists || n == 0:
				p = schema.Patch{{Op: "add", Path: ptr, Value: value()}}
			case n == 1:
				p = schema.Patch{{Op: "remove", Path: ptr}}
			case n == 2:
				p = schema.Patch{{Op: "replace", Path: ptr + "/n", Value: mustJSON(t, r.IntN(9))}}
			case n == 3:
				to := keys[r.IntN(len(keys))]
				if _, taken := res[to]; taken || to == k {
					continue
				}
				p = schema.Patch{{Op: "move", From: ptr, Path: schema.Pointer("resources", to)}}
			case n == 4 && r.IntN(2) == 0:
				// A test reads the encoded value; a copy duplicates it.
				to := keys[r.IntN(len(keys))]
				if _, taken := res[to]; taken || to == k {
					continue
				}
				p = schema.Patch{{Op: "test", Path: ptr, Value: mustJSON(t, res[k])}, {Op: "copy", From: ptr, Path: schema.Pointer("resources", to)}}
			case n == 4:
				p = schema.Patch{{Op: "add", Path: "/pierPendingOperations", Value: mustJSON(t, map[string]any{k: "create"})}}
			default:
				if _, ok := state["pierPendingOperations"]; !ok {
					continue
				}
				p = schema.Patch{{Op: "remove", Path: "/pierPendingOperations"}}
			}
			if _, err := l.Append(Meta{Event: "update"}, p); err != nil {
				t.Fatalf("round %d: append %v: %v", round, p, err)
			}
		}
		want := mustJSON(t, l.State())
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		raw, err := os.ReadFile(path + CacheSuffix)
		if err != nil {
			t.Fatal(err)
		}
		_, body, _ := bytes.Cut(raw, []byte{'\n'})
		if diff := cmp.Diff(string(want), string(bytes.TrimSuffix(body, []byte{'\n'}))); diff != "" {
			t.Fatalf("round %d: cache (-json.Marshal of the state +cached):\n%s", round, diff)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := Replay(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(want), string(mustJSON(t, rep.State))); diff != "" {
			t.Fatalf("round %d: state (-logged +replayed):\n%s", round, diff)
		}
	}
}
