package local_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pierhq/pier/adapters/local"
	"github.com/pierhq/pier/providersdk"
	"github.com/pierhq/pier/providersdk/sdktest"
)

// runClosed is run with the provider closed at the end of the steps, as
// the process exits at the end of a command: the state file's log writes
// its cache and releases its lock then.
func runClosed(t *testing.T, dir string, steps []step) {
	t.Helper()
	p := local.New(local.Options{Dir: dir, Now: func() time.Time { return time.Unix(0, 0) }})
	c := sdktest.Start(t, p, providersdk.Options{})
	for i, s := range steps {
		got, err := c.CallLine([]byte(s.req))
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		checkResponse(t, i, s, got)
	}
	if err := p.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}

// TestStateReadCache: a state_file read answers the same, byte for byte,
// whether the document comes from the state file's resolved-state cache
// (left by the last writer), from a replay (no cache, or one another
// write made stale), or from the log this provider holds open.
func TestStateReadCache(t *testing.T) {
	t.Parallel()
	const in = `{"name":"state.json"}`
	const doc = `{"stateResourceReadResponse":{"state":{"_type":"nixopsState","deployments":{},"resources":{"a":{"input_properties":{"n":9007199254740993},"output_properties":{"s":"é\u003c"},"type":"memo"}}}}}`
	write := step{req: stateEvent(in, "create", `[{"op":"add","path":"/resources/a","value":{"type":"memo","input_properties":{"n":9007199254740993},"output_properties":{"s":"é<"}}}]`), want: `{"stateResourceEventResponse":{}}`}
	cases := map[string]func(t *testing.T, dir string){
		"from the cache": func(*testing.T, string) {},
		"no cache": func(t *testing.T, dir string) {
			if err := os.Remove(filepath.Join(dir, "state.json.cache")); err != nil {
				t.Fatal(err)
			}
		},
		"stale cache": func(t *testing.T, dir string) {
			cache := filepath.Join(dir, "state.json.cache")
			old, err := os.ReadFile(cache)
			if err != nil {
				t.Fatal(err)
			}
			runClosed(t, dir, []step{{req: create("state_file", in, false), want: created}, {req: stateEvent(in, "destroy", `[{"op":"remove","path":"/resources/a"}]`), want: `{"stateResourceEventResponse":{}}`}, write})
			if err := os.WriteFile(cache, old, 0o600); err != nil {
				t.Fatal(err)
			}
		},
	}
	for name, between := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			runClosed(t, dir, []step{
				{req: create("state_file", in, false), want: created},
				write,
				{req: stateRead("state_file", in), want: doc}, // the open log
			})
			between(t, dir)
			runClosed(t, dir, []step{
				{req: create("state_file", in, false), want: created},
				{req: stateRead("state_file", in), want: doc},
			})
		})
	}
}
