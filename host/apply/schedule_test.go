package apply

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pierhq/pier/adapters/builtin"
	"github.com/pierhq/pier/host/engine"
	"github.com/pierhq/pier/host/plan"
	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/internal/testbin"
)

func addr(t *testing.T, s string) source.Address {
	t.Helper()
	a, err := source.ParseAddress(s)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// scriptSource answers Resolve from a function of the known outputs. It
// stands in for a lazy source (Nix) whose blocked members name only the
// first output they tripped over, so that the blockers of one member
// change from round to round; the providers it declares are real.
type scriptSource struct {
	mu        sync.Mutex
	calls     int
	providers map[string]*source.Provider
	answer    func(known source.Outputs) *source.Snapshot
}

func (s *scriptSource) Resolve(_ context.Context, known source.Outputs) (*source.Snapshot, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	snap := s.answer(known)
	snap.Providers = s.providers
	return snap, nil
}

// scripted builds the resources of a scripted deployment with the local
// adapter and one state_file handler.
type scripted struct {
	t     *testing.T
	state source.Address
}

func newScripted(t *testing.T) *scripted {
	return &scripted{t: t, state: addr(t, "state")}
}

func (s *scripted) handler() *source.Resource {
	return &source.Resource{Address: s.state, Provider: "local", Type: "state_file", Inputs: map[string]any{"name": "state.json"}}
}

// memo is a stateful resource that always succeeds.
func (s *scripted) memo(a string, deps ...string) *source.Resource {
	r := &source.Resource{Address: addr(s.t, a), Provider: "local", Type: "memo", State: &s.state, Inputs: map[string]any{"initialize_with": a}}
	for _, d := range deps {
		r.DependsOn = append(r.DependsOn, addr(s.t, d))
	}
	return r
}

// run is a stateless resource that runs a program: "false" fails.
func (s *scripted) run(a string, argv []any, deps ...string) *source.Resource {
	r := &source.Resource{Address: addr(s.t, a), Provider: "local", Type: "exec", Inputs: map[string]any{"executable": argv[0], "args": argv[1:]}}
	for _, d := range deps {
		r.DependsOn = append(r.DependsOn, addr(s.t, d))
	}
	return r
}

func (s *scripted) blocked(a string, structural bool, waits ...string) *source.Blocked {
	b := &source.Blocked{Address: addr(s.t, a), Structural: structural}
	for _, w := range waits {
		b.WaitsOn = append(b.WaitsOn, addr(s.t, w))
	}
	return b
}

// applyScript plans and applies a scripted deployment, failing the test
// if apply does not return within a generous bound. It returns the result
// and the status events in the order they happened, as "ADDR STATUS".
func applyScript(t *testing.T, dir string, answer func(known source.Outputs) *source.Snapshot) (*Result, []string) {
	t.Helper()
	var mu sync.Mutex
	var events []string
	record := func(ev engine.Event) {
		if ev.Type != engine.EventStatus {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		events = append(events, ev.Address+" "+ev.Status.String())
	}
	providers := map[string]*source.Provider{
		"local": {Name: "local", Builtin: "local"},
		// The local adapter declared as a third-party executable: its
		// state_file is not known to pier as a state type.
		"plain": {Name: "plain", Executable: testbin.Pier(t), Args: []string{"adapter", "local"}, Operations: []string{"destroy"}},
	}
	e := engine.New(engine.Config{Source: &scriptSource{answer: answer, providers: providers}, Dir: dir, PierExecutable: testbin.Pier(t), Builtins: builtin.Capabilities, Parallelism: 4, Events: record})
	defer e.Close()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	p, err := plan.Make(ctx, e, plan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	type out struct {
		res *Result
		err error
	}
	done := make(chan out, 1)
	go func() {
		res, err := Run(ctx, e, plan.NewRunTimePlanner(e), nil, p)
		done <- out{res, err}
	}()
	select {
	case o := <-done:
		if o.err != nil {
			t.Fatal(o.err)
		}
		mu.Lock()
		defer mu.Unlock()
		return o.res, events
	case <-time.After(60 * time.Second):
		t.Fatal("apply did not return: the scheduler hangs")
		return nil, nil
	}
}

func has(known source.Outputs, a string) bool { _, ok := known[a]; return ok }

func TestScheduling(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		answer      func(s *scripted, known source.Outputs) *source.Snapshot
		wantErrors  []string
		wantSkipped []string
		wantCreated int
		// wantBefore pairs events that must happen in this order.
		wantBefore [][2]string
		// wantAbsent are files no resource may have made.
		wantAbsent []string
	}{
		// c first waits on a; once a is known it turns out to wait on b,
		// which fails. c must be skipped, not resolved forever.
		"blockers change and the new one fails": {
			answer: func(s *scripted, known source.Outputs) *source.Snapshot {
				snap := &source.Snapshot{Ready: []*source.Resource{s.handler(), s.memo("a")}}
				if !has(known, "a") {
					snap.Blocked = append(snap.Blocked, s.blocked("b", false, "a"), s.blocked("c", false, "a"))
					return snap
				}
				snap.Ready = append(snap.Ready, s.run("b", []any{"false"}, "a"))
				snap.Blocked = append(snap.Blocked, s.blocked("c", false, "b"))
				return snap
			},
			wantErrors:  []string{"b"},
			wantSkipped: []string{"c"},
			wantCreated: 1,
		},
		// The source keeps c blocked on a although a is applied: c fails
		// with its blockers named, instead of resolving forever.
		"source never unblocks": {
			answer: func(s *scripted, known source.Outputs) *source.Snapshot {
				return &source.Snapshot{Ready: []*source.Resource{s.handler(), s.memo("a")}, Blocked: []*source.Blocked{s.blocked("c", false, "a")}}
			},
			wantErrors:  []string{"c"},
			wantCreated: 1,
		},
		// Members revealed after x failed: z depends on x and y on z. y
		// sorts first, so it is linked while z is still pending; z's skip
		// must reach y.
		"revealed members behind a failure": {
			answer: func(s *scripted, known source.Outputs) *source.Snapshot {
				snap := &source.Snapshot{Ready: []*source.Resource{s.handler(), s.memo("a"), s.run("x", []any{"false"})}}
				if !has(known, "a") {
					snap.Blocked = append(snap.Blocked, s.blocked("g", true, "a"))
					return snap
				}
				snap.Ready = append(snap.Ready, s.run("slow", []any{"sleep", "1"}, "a"))
				if !has(known, "slow") {
					snap.Blocked = append(snap.Blocked, s.blocked("g", true, "slow"))
					return snap
				}
				snap.Ready = append(snap.Ready, s.memo("g.y", "g.z"), s.memo("g.z", "x"))
				return snap
			},
			wantErrors:  []string{"x"},
			wantSkipped: []string{"g.y", "g.z"},
			wantCreated: 2,
		},
		// c's blocked form names no resource (a lazy source cannot tell
		// its dependencies); resolved, it depends on the slow z too, and
		// must wait for it.
		"resolved resource depends on more than it waited on": {
			answer: func(s *scripted, known source.Outputs) *source.Snapshot {
				snap := &source.Snapshot{Ready: []*source.Resource{s.handler(), s.memo("a"), s.run("z", []any{"sleep", "1"})}}
				if !has(known, "a") {
					snap.Blocked = append(snap.Blocked, s.blocked("c", false, "a"))
					return snap
				}
				snap.Ready = append(snap.Ready, s.memo("c", "a", "z"))
				return snap
			},
			wantCreated: 3,
			wantBefore:  [][2]string{{"z APPLIED", "c APPLYING"}},
		},
		// A member revealed during apply names a state handler the plan
		// did not read: it must fail before its provider makes anything
		// that could then not be recorded.
		"revealed member's state handler was not read": {
			answer: func(s *scripted, known source.Outputs) *source.Snapshot {
				other := &source.Resource{Address: addr(s.t, "other"), Provider: "plain", Type: "state_file", Inputs: map[string]any{"name": "other.json"}}
				snap := &source.Snapshot{Ready: []*source.Resource{s.handler(), s.memo("a"), other}}
				if !has(known, "a") {
					snap.Blocked = append(snap.Blocked, s.blocked("g", true, "a"))
					return snap
				}
				f := &source.Resource{Address: addr(s.t, "g.f"), Provider: "local", Type: "file", State: &other.Address, Inputs: map[string]any{"name": "f.txt", "contents": "x"}}
				snap.Ready = append(snap.Ready, f)
				return snap
			},
			wantErrors:  []string{"g.f"},
			wantCreated: 2,
			wantAbsent:  []string{"f.txt"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := newScripted(t)
			dir := t.TempDir()
			res, events := applyScript(t, dir, func(known source.Outputs) *source.Snapshot { return tc.answer(s, known) })
			for _, f := range tc.wantAbsent {
				if _, err := os.Stat(filepath.Join(dir, f)); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("%s exists (%v): a change was made that could not be recorded", f, err)
				}
			}
			for _, pair := range tc.wantBefore {
				first, second := slices.Index(events, pair[0]), slices.Index(events, pair[1])
				if first < 0 || second < 0 || first > second {
					t.Errorf("want %q before %q; events:\n%s", pair[0], pair[1], strings.Join(events, "\n"))
				}
			}
			var errs []string
			for _, e := range res.Errors {
				errs = append(errs, e.Address)
			}
			if diff := cmp.Diff(tc.wantErrors, errs); diff != "" {
				t.Errorf("errors (-want +got):\n%s\n%v", diff, res.Err())
			}
			if diff := cmp.Diff(tc.wantSkipped, res.Skipped); diff != "" {
				t.Errorf("skipped (-want +got):\n%s", diff)
			}
			if res.Created != tc.wantCreated {
				t.Errorf("created %d, want %d", res.Created, tc.wantCreated)
			}
		})
	}
}

func TestPlanErrorsNamePositions(t *testing.T) {
	t.Parallel()
	at := func(file string, line int) source.Range { return source.Range{Filename: file, Line: line, Column: 1} }
	tests := map[string]struct {
		answer func(s *scripted) *source.Snapshot
		want   string
	}{
		"missing handler": {
			answer: func(s *scripted) *source.Snapshot {
				r := s.memo("a")
				r.State = &source.Address{{Name: "nowhere"}}
				r.Range = at("main.nix", 7)
				return &source.Snapshot{Ready: []*source.Resource{s.handler(), r}}
			},
			want: "main.nix:7:1: a names state handler nowhere, which is not a resource of the deployment",
		},
		"handler waits on outputs": {
			answer: func(s *scripted) *source.Snapshot {
				h := s.handler()
				h.Range = at("main.nix", 3)
				return &source.Snapshot{
					Ready:   []*source.Resource{s.memo("a"), s.memo("b")},
					Blocked: []*source.Blocked{{Address: s.state, WaitsOn: []source.Address{addr(t, "a")}, Resource: h}},
				}
			},
			want: "main.nix:3:1: state handler state depends on outputs of a",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := newScripted(t)
			src := &scriptSource{providers: map[string]*source.Provider{"local": {Name: "local", Builtin: "local"}},
				answer: func(source.Outputs) *source.Snapshot { return tc.answer(s) }}
			e := engine.New(engine.Config{Source: src, Dir: t.TempDir(), PierExecutable: testbin.Pier(t), Builtins: builtin.Capabilities})
			defer e.Close()
			_, err := plan.Make(t.Context(), e, plan.Options{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("plan error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

// TestDeferredDestroy checks that a member recorded under a composite
// whose members are known only during apply is destroyed then, once the
// composite turns out not to include it any more.
func TestDeferredDestroy(t *testing.T) {
	t.Parallel()
	s := newScripted(t)
	dir := t.TempDir()
	members := []string{"g.keep", "g.old"}
	answer := func(known source.Outputs) *source.Snapshot {
		// run is stateless, so its outputs are never known when planning.
		snap := &source.Snapshot{Ready: []*source.Resource{s.handler(), s.run("run", []any{"true"})}}
		if !has(known, "run") {
			snap.Blocked = append(snap.Blocked, s.blocked("g", true, "run"))
			return snap
		}
		for _, m := range members {
			snap.Ready = append(snap.Ready, s.memo(m, "run"))
		}
		return snap
	}
	if res, _ := applyScript(t, dir, answer); res.Err() != nil || res.Created != 3 {
		t.Fatalf("first apply: %d created, %v", res.Created, res.Err())
	}
	members = []string{"g.keep"}
	res, _ := applyScript(t, dir, answer)
	if res.Err() != nil || res.Destroyed != 1 || res.Created != 1 {
		t.Fatalf("second apply: %d created, %d destroyed, %v", res.Created, res.Destroyed, res.Err())
	}
	e := engine.New(engine.Config{Source: &scriptSource{answer: answer, providers: map[string]*source.Provider{"local": {Name: "local", Builtin: "local"}}}, Dir: dir, PierExecutable: testbin.Pier(t), Builtins: builtin.Capabilities})
	defer e.Close()
	states, err := e.States(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"g.keep"}, slices.Sorted(maps.Keys(states["state"].Entries))); diff != "" {
		t.Errorf("recorded (-want +got):\n%s", diff)
	}
}

// TestGraphRunsOnAnotherEngine: a plan's graph carries all apply needs, so
// it runs on an engine that did not plan it, which reads the states again
// through the read-state operations: a saved and loaded graph applies, and
// once a state moved, the same graph is refused before anything runs.
func TestGraphRunsOnAnotherEngine(t *testing.T) {
	t.Parallel()
	s := newScripted(t)
	dir := t.TempDir()
	answer := func(known source.Outputs) *source.Snapshot {
		snap := &source.Snapshot{Ready: []*source.Resource{s.handler(), s.memo("a")}}
		if has(known, "a") {
			snap.Ready = append(snap.Ready, s.memo("b", "a"))
		} else {
			snap.Blocked = append(snap.Blocked, &source.Blocked{Address: addr(t, "b"), WaitsOn: []source.Address{addr(t, "a")}, Resource: s.memo("b", "a")})
		}
		return snap
	}
	newEngine := func() *engine.Engine {
		return engine.New(engine.Config{Source: &scriptSource{answer: answer, providers: map[string]*source.Provider{"local": {Name: "local", Builtin: "local"}}},
			Dir: dir, PierExecutable: testbin.Pier(t), Builtins: builtin.Capabilities})
	}
	planner := newEngine()
	p, err := plan.Make(t.Context(), planner, plan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g, err := p.Graph()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := plan.EncodeGraph(g)
	if err != nil {
		t.Fatal(err)
	}
	// The planning engine's state handler holds the state's lock.
	planner.Close()
	loaded, err := plan.DecodeGraph(raw)
	if err != nil {
		t.Fatal(err)
	}
	e := newEngine()
	res, err := RunGraph(t.Context(), e, plan.NewRunTimePlanner(e), nil, loaded)
	e.Close()
	if err != nil || res.Err() != nil || res.Created != 2 {
		t.Fatalf("apply of the loaded graph: %+v, %v", res, err)
	}
	e = newEngine()
	defer e.Close()
	_, err = RunGraph(t.Context(), e, plan.NewRunTimePlanner(e), nil, loaded)
	var stale *StaleStateError
	if !errors.As(err, &stale) || fmt.Sprint(stale.Handlers) != "[state]" {
		t.Fatalf("second apply of the graph: %v, want the moved state refused", err)
	}
}
