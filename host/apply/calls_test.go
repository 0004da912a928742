package apply

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pierhq/pier/adapters/builtin"
	"github.com/pierhq/pier/adapters/local"
	"github.com/pierhq/pier/host/engine"
	"github.com/pierhq/pier/host/plan"
	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/internal/testbin"
	"github.com/pierhq/pier/providersdk"
	"github.com/pierhq/pier/schema"
)

// gateEnv makes the test binary serve the gate provider instead of
// running tests; gateSocketEnv names the test's socket it reports to.
const (
	gateEnv       = "PIER_APPLY_TEST_GATE"
	gateSocketEnv = "PIER_APPLY_TEST_GATE_SOCKET"
)

func TestMain(m *testing.M) {
	if os.Getenv(gateEnv) != "" {
		if err := serveGate(); err != nil {
			fmt.Fprintln(os.Stderr, "gate:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// gate is a real provider process: the local adapter, whose state_file
// also reports each intent once it is durable ("intent ADDR"), and whose
// type "gated" reports its create ("create NAME"). Each report waits for
// the test's reply, so that the test sees them in the order they happen;
// a create is answered only when the test says "go". One process serves
// one request at a time, so a create held here holds its process.
type gate struct {
	*local.Provider
	conn *bufio.ReadWriter
}

func serveGate() error {
	c, err := net.Dial("unix", os.Getenv(gateSocketEnv))
	if err != nil {
		return err
	}
	defer c.Close()
	g := &gate{Provider: local.New(local.Options{}), conn: bufio.NewReadWriter(bufio.NewReader(c), bufio.NewWriter(c))}
	err = providersdk.Serve(context.Background(), g, providersdk.Options{})
	return errors.Join(err, g.Close())
}

// ask reports line and waits for the test's reply, want.
func (g *gate) ask(line, want string) error {
	if _, err := g.conn.WriteString(line + "\n"); err != nil {
		return err
	}
	if err := g.conn.Flush(); err != nil {
		return err
	}
	if reply, err := g.conn.ReadString('\n'); err != nil || reply != want+"\n" {
		return fmt.Errorf("gate: reply %q to %q, want %q: %v", reply, line, want, err)
	}
	return nil
}

func (g *gate) Create(ctx context.Context, req *schema.CreateResourceRequest) (*schema.CreateResourceResponse, error) {
	if req.Type != "gated" {
		return g.Provider.Create(ctx, req)
	}
	name, _ := req.InputProperties["name"].(string)
	if err := g.ask("create "+name, "go"); err != nil {
		return nil, err
	}
	return &schema.CreateResourceResponse{OutputProperties: schema.Properties{"name": name}}, nil
}

func (g *gate) StateEvent(ctx context.Context, req *schema.StateResourceEvent) (*schema.StateResourceEventResponse, error) {
	resp, err := g.Provider.StateEvent(ctx, req)
	if err != nil {
		return nil, err
	}
	for _, addr := range addedIntents(req.Patch) {
		if err := g.ask("intent "+addr, "ok"); err != nil {
			return nil, err
		}
	}
	return resp, nil
}

// addedIntents are the addresses whose pending operation patch adds.
func addedIntents(patch schema.Patch) []string {
	prefix := "/" + schema.PendingOperationsKey
	var out []string
	for _, op := range patch {
		if op.Op != "add" && op.Op != "replace" {
			continue
		}
		switch {
		case op.Path == prefix:
			var m map[string]any
			if err := json.Unmarshal(op.Value, &m); err == nil {
				out = append(out, slices.Sorted(maps.Keys(m))...)
			}
		case strings.HasPrefix(op.Path, prefix+"/"):
			key := strings.TrimPrefix(op.Path, prefix+"/")
			out = append(out, strings.NewReplacer("~1", "/", "~0", "~").Replace(key))
		}
	}
	return out
}

// gateMsg is one line a gate process said, and the connection to answer
// a create on.
type gateMsg struct {
	verb, name string
	conn       net.Conn
}

// listenGate accepts the gate processes' connections and forwards what
// they say, until the test ends.
func listenGate(t *testing.T) (socket string, msgs <-chan gateMsg) {
	t.Helper()
	dir, err := os.MkdirTemp("", "gate") // short: a socket's path is short
	if err != nil {
		t.Fatal(err)
	}
	socket = filepath.Join(dir, "s")
	l, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan gateMsg)
	done := make(chan struct{})
	var mu sync.Mutex
	var conns []net.Conn
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			wg.Go(func() {
				r := bufio.NewReader(c)
				for {
					line, err := r.ReadString('\n')
					if err != nil {
						return
					}
					verb, name, _ := strings.Cut(strings.TrimSuffix(line, "\n"), " ")
					select {
					case ch <- gateMsg{verb: verb, name: name, conn: c}:
					case <-done:
						return
					}
				}
			})
		}
	})
	t.Cleanup(func() {
		close(done)
		l.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
		os.RemoveAll(dir)
	})
	return socket, ch
}

// gateDeployment is n independent gated resources recorded in the gate
// provider's own state_file.
func gateDeployment(t *testing.T, socket string, n int) source.Source {
	t.Helper()
	s := newScripted(t)
	providers := map[string]*source.Provider{
		"gate": {Name: "gate", Executable: os.Args[0], Env: map[string]string{gateEnv: "1", gateSocketEnv: socket}},
	}
	return &scriptSource{providers: providers, answer: func(source.Outputs) *source.Snapshot {
		snap := &source.Snapshot{Ready: []*source.Resource{{Address: s.state, Provider: "gate", Type: "state_file", Inputs: map[string]any{"name": "state.json"}}}}
		for i := range n {
			a := fmt.Sprintf("g%d", i)
			snap.Ready = append(snap.Ready, &source.Resource{Address: addr(t, a), Provider: "gate", Type: "gated", State: &s.state, Inputs: map[string]any{"name": a}})
		}
		return snap
	}}
}

// gateRun is what the test saw of an apply through the gate.
type gateRun struct {
	// maxCalls is the most creates the provider held at once; maxAhead
	// the most intents recorded of creates not yet answered.
	maxCalls, maxAhead int
	order              []string // "intent ADDR" and "create ADDR", as said
	res                *Result
}

// applyGate applies a gate deployment of n resources at parallelism p.
// The gate holds the creates until p of them are held and ahead intents
// are recorded of creates not answered, then answers each as it comes;
// with stop set, it first closes the apply's stop channel. newEngine
// makes another engine on the same deployment.
func applyGate(t *testing.T, p, n, ahead int, stop bool) (run *gateRun, newEngine func() *engine.Engine) {
	t.Helper()
	socket, msgs := listenGate(t)
	dir := t.TempDir()
	src := gateDeployment(t, socket, n)
	newEngine = func() *engine.Engine {
		e := engine.New(engine.Config{Source: src, Dir: dir, PierExecutable: testbin.Pier(t), Builtins: builtin.Capabilities, Parallelism: p})
		t.Cleanup(func() { e.Close() })
		return e
	}
	e := newEngine()
	pl, err := plan.Make(t.Context(), e, plan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	stopc := make(chan struct{})
	type out struct {
		res *Result
		err error
	}
	done := make(chan out, 1)
	go func() {
		res, err := Run(t.Context(), e, plan.NewRunTimePlanner(e), stopc, pl)
		done <- out{res, err}
	}()
	run = &gateRun{}
	var held []net.Conn // creates at the provider, not answered
	intents, answered := 0, 0
	reply := func(c net.Conn, s string) {
		if _, err := c.Write([]byte(s + "\n")); err != nil {
			t.Error(err)
		}
	}
	release := func(c net.Conn) {
		answered++
		reply(c, "go")
	}
	holding := true
	deadline := time.After(60 * time.Second)
	for {
		select {
		case m := <-msgs:
			run.order = append(run.order, m.verb+" "+m.name)
			switch m.verb {
			case "intent":
				intents++
				run.maxAhead = max(run.maxAhead, intents-answered)
				reply(m.conn, "ok")
			case "create":
				held = append(held, m.conn)
				run.maxCalls = max(run.maxCalls, len(held))
				if !holding {
					release(m.conn)
					held = nil
				}
			}
			if holding && len(held) == p && intents-answered == ahead {
				// p creates at the provider, and the intents of the
				// next ones recorded meanwhile.
				holding = false
				if stop {
					close(stopc)
				}
				for _, c := range held {
					release(c)
				}
				held = nil
			}
		case o := <-done:
			if o.err != nil {
				t.Fatal(o.err)
			}
			if holding {
				t.Fatalf("apply returned while the gate held %d creates with %d intents ahead; want %d and %d", len(held), intents-answered, p, ahead)
			}
			run.res = o.res
			e.Close()
			return run, newEngine
		case <-deadline:
			t.Fatalf("the gate held %d creates with %d intents recorded and not answered, want %d and %d; said so far:\n%s",
				len(held), intents-answered, p, ahead, strings.Join(run.order, "\n"))
		}
	}
}

// TestCallSlots: a node holds a provider process only for its request,
// so that while the provider serves p creates the state handler records
// the intents of the next p; the provider never serves more than p at
// once, and at parallelism 1 nothing is recorded ahead.
func TestCallSlots(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		parallelism int
		// ahead is how many intents are recorded of creates not answered
		// when parallelism creates are held.
		ahead int
	}{
		"parallelism 1 runs nothing ahead":        {parallelism: 1, ahead: 1},
		"parallelism 2 records two intents ahead": {parallelism: 2, ahead: 4},
		"parallelism 3 records three ahead":       {parallelism: 3, ahead: 6},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			const n = 12
			run, _ := applyGate(t, tc.parallelism, n, tc.ahead, false)
			if err := run.res.Err(); err != nil || run.res.Created != n {
				t.Fatalf("created %d of %d: %v", run.res.Created, n, err)
			}
			if run.maxCalls > tc.parallelism {
				t.Errorf("the provider served %d creates at once, want at most %d", run.maxCalls, tc.parallelism)
			}
			if run.maxAhead > tc.ahead {
				t.Errorf("%d intents were recorded of creates not answered, want at most %d", run.maxAhead, tc.ahead)
			}
			if tc.parallelism == 1 {
				// Serial: each create follows its own intent.
				for i := 0; i+1 < len(run.order); i += 2 {
					in, cr := run.order[i], run.order[i+1]
					if strings.TrimPrefix(in, "intent ") != strings.TrimPrefix(cr, "create ") {
						t.Fatalf("at parallelism 1, %q then %q; said:\n%s", in, cr, strings.Join(run.order, "\n"))
					}
				}
			}
		})
	}
}

// TestStopRefusesRecordedAhead: a stop while intents are recorded ahead
// of their creates sends none of those creates; their intents are
// cleared, and only the creates the provider was serving are recorded.
func TestStopRefusesRecordedAhead(t *testing.T) {
	t.Parallel()
	const p, n = 2, 8
	run, newEngine := applyGate(t, p, n, 2*p, true)
	if !run.res.Interrupted || run.res.Created != p || len(run.res.Errors) != 0 {
		t.Fatalf("interrupted %v, created %d, errors %v; want interrupted, %d created, no errors", run.res.Interrupted, run.res.Created, run.res.Errors, p)
	}
	if len(run.res.Skipped) != n-p {
		t.Errorf("skipped %v, want the %d others", run.res.Skipped, n-p)
	}
	var creates []string
	for _, s := range run.order {
		if name, ok := strings.CutPrefix(s, "create "); ok {
			creates = append(creates, name)
		}
	}
	if len(creates) != p {
		t.Errorf("the provider was sent creates of %v, want only the %d it held at the stop", creates, p)
	}
	states, err := newEngine().States(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	st := states["state"]
	if diff := cmp.Diff(slices.Sorted(slices.Values(creates)), slices.Sorted(maps.Keys(st.Entries))); diff != "" {
		t.Errorf("recorded (-sent +recorded):\n%s", diff)
	}
	if len(st.Pending) != 0 {
		t.Errorf("pending operations left: %v", slices.Sorted(maps.Keys(st.Pending)))
	}
}

// TestGrantCalls follows the scheduler's call slots through scripted
// steps: the engine's parallelism bounds the requests in flight across
// providers, a provider's pool size bounds its own, first requests are
// granted in the order the nodes started (a node that has not asked yet
// keeps its place), and a stopped run refuses a node that has sent
// nothing. The providers' pools are real; no process starts.
func TestGrantCalls(t *testing.T) {
	t.Parallel()
	// A step is "start NODE PROVIDER" (the node is started: in line for
	// its first request), "want NODE PROVIDER" (its worker asks; a node
	// not started yet is started first), "free NODE", "sent NODE" (the
	// node has had a request granted before: its next is not in line) or
	// "stop".
	tests := map[string]struct {
		limit int
		steps []string
		want  []string
	}{
		"the engine's parallelism bounds every provider's requests": {
			limit: 2,
			steps: []string{"want a1 a", "want b1 b", "want a2 a", "free a1", "free b1"},
			want:  []string{"a1 granted", "b1 granted", "a2 granted"},
		},
		"a provider's pool size bounds its requests": {
			limit: 10,
			steps: []string{"want c1 c", "want c2 c", "want b1 b", "free c1"},
			want:  []string{"c1 granted", "b1 granted", "c2 granted"},
		},
		"a stopped run refuses what has sent nothing": {
			limit: 1,
			steps: []string{"want a1 a", "sent a2", "want a2 a", "want a3 a", "stop", "free a1"},
			want:  []string{"a1 granted", "a3 refused", "a2 granted"},
		},
		"a node started first is granted first, though it asks last": {
			limit: 10,
			steps: []string{"start a1 a", "start a2 a", "start a3 a", "want a2 a", "want a3 a", "want a1 a"},
			want:  []string{"a1 granted", "a2 granted"},
		},
		"a freed slot goes to the next started, not the next asking": {
			limit: 10,
			steps: []string{"want a1 a", "want a2 a", "start a3 a", "want a4 a", "free a1", "want a3 a"},
			want:  []string{"a1 granted", "a2 granted", "a3 granted"},
		},
		"a node that has not asked keeps its slot of the parallelism": {
			limit: 2,
			steps: []string{"want a1 a", "start a2 a", "want b1 b", "want a2 a", "free a1"},
			want:  []string{"a1 granted", "a2 granted", "b1 granted"},
		},
		"a full provider does not hold up another": {
			limit: 10,
			steps: []string{"want c1 c", "start c2 c", "want b1 b"},
			want:  []string{"c1 granted", "b1 granted"},
		},
		"a node that finishes unsent leaves its place": {
			limit: 10,
			steps: []string{"start a1 a", "want a2 a", "finish a1"},
			want:  []string{"a2 granted"},
		},
		"a stopped run refuses a node in line once it asks": {
			limit: 10,
			steps: []string{"want a1 a", "start a2 a", "stop", "want a2 a"},
			want:  []string{"a1 granted", "a2 refused"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := engine.New(engine.Config{Dir: t.TempDir(), Parallelism: tc.limit})
			defer e.Close()
			e.Providers().Declare(map[string]*source.Provider{
				"a": {Name: "a", Executable: "/bin/true", Parallelism: 2},
				"b": {Name: "b", Executable: "/bin/true", Parallelism: 2},
				"c": {Name: "c", Executable: "/bin/true", Parallelism: 1},
			})
			a := &applier{e: e, calls: newCallSlots(tc.limit)}
			nodes := map[string]*node{}
			wants := map[string]*callWant{}
			nodeOf := func(name, provider string) *node {
				if nodes[name] == nil {
					nodes[name] = &node{change: &plan.Change{Address: addr(t, name), Resource: &source.Resource{Provider: provider}}}
				}
				return nodes[name]
			}
			started := map[string]bool{}
			start := func(n *node, name string) {
				if !started[name] && n.requests == 0 {
					started[name] = true
					a.startAhead(n)
				}
			}
			var got []string
			for _, step := range tc.steps {
				f := strings.Fields(step)
				switch f[0] {
				case "start":
					start(nodeOf(f[1], f[2]), f[1])
				case "want":
					n := nodeOf(f[1], f[2])
					start(n, f[1])
					w := &callWant{n: n, provider: f[2], resource: f[1], grant: make(chan callGrant, 1)}
					wants[f[1]] = w
					a.wantCall(w)
				case "free":
					a.freeCall(wants[f[1]])
				case "finish":
					a.endAhead(nodes[f[1]])
					a.leaveLine(nodes[f[1]])
				case "sent":
					nodeOf(f[1], "").requests++
				case "stop":
					a.stopped = true
				}
				a.grantCalls()
				for _, name := range slices.Sorted(maps.Keys(wants)) {
					select {
					case g := <-wants[name].grant:
						if g.refused {
							got = append(got, name+" refused")
							continue
						}
						got = append(got, name+" granted")
						g.slot.Release()
					default:
					}
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("grants (-want +got):\n%s", diff)
			}
		})
	}
}
