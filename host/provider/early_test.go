package provider

import (
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pierhq/pier/schema"
)

// TestEarlyAdopt checks that processes started before their configuration
// is known get it once given, serve their pool's requests as processes the
// pool started, and that a pool adopts no more than its size.
func TestEarlyAdopt(t *testing.T) {
	t.Parallel()
	exe := testProvider(t, "python/provider.py", "python3")
	cases := map[string]struct {
		early, size, wantStarted int
	}{
		"fewer than the size": {early: 1, size: 2, wantStarted: 1},
		"the size":            {early: 2, size: 2, wantStarted: 2},
		"more than the size":  {early: 3, size: 2, wantStarted: 2},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			data := []byte(`{"token":"s3cret"}`)
			cfg := Config{Name: "py", Executable: exe, ConfigData: data}
			e := StartEarly(cfg, tc.early)
			pool := NewPool(cfg, tc.size)
			defer pool.Close()
			ps := e.Configure(data)
			if len(ps) != tc.early {
				t.Fatalf("StartEarly started %d processes, want %d", len(ps), tc.early)
			}
			pool.Adopt(ps)
			if got := pool.Started(); got != tc.wantStarted {
				t.Errorf("Started() = %d after Adopt, want %d", got, tc.wantStarted)
			}
			out, err := pool.Create(t.Context(), "cfg", &schema.CreateResourceRequest{Type: "config", InputProperties: schema.Properties{}})
			if err != nil {
				t.Fatal(err)
			}
			want := schema.Properties{"configured": true, "keys": []any{"token"}}
			if diff := cmp.Diff(want, out.OutputProperties); diff != "" {
				t.Errorf("outputs (-want +got):\n%s", diff)
			}
			if got := pool.Started(); got != tc.wantStarted {
				t.Errorf("Started() = %d after a request, want %d: the request started its own process", got, tc.wantStarted)
			}
			// Those past the size were stopped.
			for _, p := range ps[tc.wantStarted:] {
				if err := syscall.Kill(p.Pid(), 0); err == nil {
					t.Errorf("process %d past the pool's size still runs", p.Pid())
				}
			}
		})
	}
}

// TestEarlyDiscard checks that processes whose configuration never comes
// are stopped and reaped, and that a closed pool adopts none.
func TestEarlyDiscard(t *testing.T) {
	t.Parallel()
	exe := testProvider(t, "python/provider.py", "python3")
	cfg := Config{Name: "py", Executable: exe}

	e := StartEarly(cfg, 2)
	e.Discard()
	for _, p := range e.procs {
		if err := syscall.Kill(p.Pid(), 0); err == nil {
			t.Errorf("discarded process %d still runs", p.Pid())
		}
	}

	closed := NewPool(cfg, 2)
	if err := closed.Close(); err != nil {
		t.Fatal(err)
	}
	ps := StartEarly(cfg, 1).Configure([]byte(`{}`))
	closed.Adopt(ps)
	if got := closed.Started(); got != 0 {
		t.Errorf("Started() = %d: a closed pool adopted a process", got)
	}
	for _, p := range ps {
		if err := syscall.Kill(p.Pid(), 0); err == nil {
			t.Errorf("process %d a closed pool did not adopt still runs", p.Pid())
		}
	}
}
