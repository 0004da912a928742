package webview

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"

	"github.com/pierhq/pier/host/apply"
	"github.com/pierhq/pier/host/engine"
	"github.com/pierhq/pier/host/execgraph"
	"github.com/pierhq/pier/host/plan"
	"github.com/pierhq/pier/schema/logkey"
)

// A run is one apply (or destroy), from its plan to its summary. The
// page learns of it only through its events: the plan object that starts
// it, the engine's progress events and the closing summary, each exactly
// as pier apply --json prints it. Every event stream replays the current
// run from its start, so a page opened late still sees it whole.
type run struct {
	id     int
	events [][]byte
	done   bool
	// stop starts nothing new (a first Ctrl-C); cancel stops what runs
	// (a second).
	stop    chan struct{}
	stopped bool
	cancel  context.CancelFunc
}

// runs holds the current run and wakes the event streams.
type runs struct {
	mu      sync.Mutex
	current *run
	nextID  int
	busy    bool
	closed  bool
	// changed is closed, and replaced, whenever there is news.
	changed chan struct{}
	plans   map[string]planned
	// landed are the latest state events others recorded (follow.go);
	// landedBase counts those dropped before them.
	landed     [][]byte
	landedBase int
}

// planned is a plan the page was shown: what it was asked, and its
// fingerprint, so that the apply carries out what was reviewed.
type planned struct {
	req         planRequest
	fingerprint string
	destructive []string
}

func newRuns() *runs {
	return &runs{changed: make(chan struct{}), plans: map[string]planned{}}
}

func (rs *runs) notify() {
	close(rs.changed)
	rs.changed = make(chan struct{})
}

func (rs *runs) close() {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if !rs.closed {
		rs.closed = true
		rs.notify()
	}
}

// begin starts a new run; it fails while another one is under way.
func (rs *runs) begin(cancel context.CancelFunc) (*run, error) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.busy {
		return nil, errors.New("an apply is already running; watch it, or wait until it ends")
	}
	rs.busy = true
	rs.nextID++
	r := &run{id: rs.nextID, stop: make(chan struct{}), cancel: cancel}
	rs.current = r
	rs.notify()
	return r, nil
}

func (rs *runs) publish(r *run, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(map[string]string{"message_type": "error", "error": err.Error()})
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if r.done {
		return
	}
	r.events = append(r.events, b)
	rs.notify()
}

func (rs *runs) end(r *run) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	r.done = true
	if rs.current == r {
		rs.busy = false
	}
	rs.notify()
}

// handleEvents streams the current run's events as Server-Sent Events:
// each message's data is one --json object.
func (s *Server) handleEvents(w http.ResponseWriter, r *http.Request) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "pier ui: streaming is not supported here", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	flusher.Flush()
	defer s.watchLogs()()
	rs := s.runs
	var seen *run
	sent := 0
	rs.mu.Lock()
	// State events are sent from the stream's start on: the page reads
	// what was before.
	landed := rs.landedBase + len(rs.landed)
	rs.mu.Unlock()
	for {
		rs.mu.Lock()
		closed := rs.closed
		cur, changed := rs.current, rs.changed
		if cur != seen {
			seen, sent = cur, 0
		}
		var batch [][]byte
		if cur != nil {
			batch = cur.events[sent:len(cur.events):len(cur.events)]
		}
		from := max(landed-rs.landedBase, 0)
		others := rs.landed[from:len(rs.landed):len(rs.landed)]
		landed = rs.landedBase + len(rs.landed)
		rs.mu.Unlock()
		batch = append(batch, others...)
		for _, b := range batch {
			if _, err := fmt.Fprintf(w, "data: %s\n\n", b); err != nil {
				return
			}
		}
		if closed {
			// The server is shutting down: what is sent is the whole run,
			// and the response ends properly.
			return
		}
		if len(batch) > 0 {
			flusher.Flush()
			sent += len(batch) - len(others)
			continue
		}
		select {
		case <-changed:
		case <-r.Context().Done():
			return
		}
	}
}

// planRequest is what the page asks to plan, as pier plan's flags.
type planRequest struct {
	Destroy     bool     `json:"destroy"`
	Refresh     bool     `json:"refresh"`
	RefreshOnly bool     `json:"refresh_only"`
	Targets     []string `json:"targets"`
	Replace     []string `json:"replace"`
}

func (p planRequest) options() plan.Options {
	return plan.Options{Targets: p.Targets, Replace: p.Replace, Refresh: p.Refresh, RefreshOnly: p.RefreshOnly}
}

// planJSON is the plan view: pier plan --json's object and pier plan's
// text, with each resource's status for the graph and what the apply
// would destroy or replace, which the page confirms by name.
type planJSON struct {
	ID          string            `json:"id"`
	Plan        any               `json:"plan"`
	Text        string            `json:"text"`
	Statuses    map[string]string `json:"statuses"`
	Destructive []string          `json:"destructive"`
	HasChanges  bool              `json:"has_changes"`
}

func makePlan(ctx context.Context, eng *engine.Engine, req planRequest) (*plan.Plan, error) {
	if req.Destroy {
		return plan.MakeDestroy(ctx, eng)
	}
	return plan.Make(ctx, eng, req.options())
}

// describe turns a plan into the page's view of it.
func (s *Server) describe(p *plan.Plan) (*planJSON, error) {
	obj, err := s.vocab.Plan(p)
	if err != nil {
		return nil, err
	}
	out := &planJSON{Plan: obj, Text: s.vocab.PlanText(p), Statuses: statuses(p), Destructive: []string{}, HasChanges: p.HasChanges()}
	for _, c := range p.Shown() {
		if (c.Action == execgraph.ActionDestroy || c.Action == execgraph.ActionReplace) && !c.OfReplace && !c.StateHandler {
			out.Destructive = append(out.Destructive, c.Addr())
		}
	}
	b, err := json.Marshal(struct {
		Plan any
		Text string
	}{obj, out.Text})
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(b)
	out.ID = hex.EncodeToString(sum[:])
	return out, nil
}

// statuses colours the graph: each planned resource's action, or pending
// (an interrupted run left an operation unfinished in state) or drifted.
func statuses(p *plan.Plan) map[string]string {
	out := map[string]string{}
	for _, c := range p.Shown() {
		if c.StateHandler || c.Structural || c.OfReplace {
			continue
		}
		st := c.Action.String()
		if c.Action == execgraph.ActionNoOp {
			st = "unchanged"
		}
		out[c.Addr()] = st
	}
	for _, v := range p.States {
		for addr := range v.Pending {
			out[addr] = "pending"
		}
	}
	for _, d := range p.Drift {
		if out[d.Address.String()] == "unchanged" || out[d.Address.String()] == "" {
			out[d.Address.String()] = "drifted"
		}
	}
	return out
}

func (s *Server) handlePlan(w http.ResponseWriter, r *http.Request) {
	var req planRequest
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&req); err != nil {
		s.failCode(w, http.StatusBadRequest, fmt.Errorf("read the plan request: %w", err))
		return
	}
	eng, err := s.dep.ReadOnlyEngine(nil)
	if err != nil {
		s.fail(w, err)
		return
	}
	defer eng.Close()
	p, err := makePlan(r.Context(), eng, req)
	if err != nil {
		s.failCode(w, http.StatusUnprocessableEntity, err)
		return
	}
	out, err := s.describe(p)
	if err != nil {
		s.fail(w, err)
		return
	}
	s.runs.mu.Lock()
	if len(s.runs.plans) > 100 {
		clear(s.runs.plans)
	}
	s.runs.plans[out.ID] = planned{req: req, fingerprint: out.ID, destructive: out.Destructive}
	s.runs.mu.Unlock()
	writeJSON(w, out)
}

// applyRequest applies a plan the page was shown; Confirm names what it
// destroys or replaces, as the page's confirmation listed it.
type applyRequest struct {
	Plan    string   `json:"plan"`
	Confirm []string `json:"confirm"`
}

// handleApply plans again under the state lock, as pier apply does, and
// applies only if that plan is the one the page showed; the run's events
// then go to every event stream.
func (s *Server) handleApply(w http.ResponseWriter, r *http.Request) {
	if s.opts.Watch {
		s.failCode(w, http.StatusForbidden, errors.New("this view watches a run started in the terminal; it cannot start one"))
		return
	}
	var req applyRequest
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&req); err != nil {
		s.failCode(w, http.StatusBadRequest, fmt.Errorf("read the apply request: %w", err))
		return
	}
	s.runs.mu.Lock()
	pl, ok := s.runs.plans[req.Plan]
	s.runs.mu.Unlock()
	if !ok {
		s.failCode(w, http.StatusConflict, errors.New("that plan is not known (pier ui restarted?); plan again"))
		return
	}
	if !sameList(req.Confirm, pl.destructive) {
		s.failCode(w, http.StatusBadRequest, fmt.Errorf("confirm what the plan destroys or replaces: %v", pl.destructive))
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	run, err := s.runs.begin(cancel)
	if err != nil {
		cancel()
		s.failCode(w, http.StatusConflict, err)
		return
	}
	publish := func(ev engine.Event) { s.runs.publish(run, s.vocab.Event(ev)) }
	fail := func(code int, err error) {
		s.runs.end(run)
		cancel()
		s.failCode(w, code, err)
	}
	eng, err := s.dep.Engine(publish)
	if err != nil {
		fail(http.StatusInternalServerError, err)
		return
	}
	p, err := makePlan(ctx, eng, pl.req)
	if err != nil {
		eng.Close()
		fail(http.StatusUnprocessableEntity, err)
		return
	}
	now, err := s.describe(p)
	if err == nil && now.ID != pl.fingerprint {
		err = errors.New("the plan changed since the page showed it (the deployment or its state moved); plan again and review it")
	}
	if err != nil {
		eng.Close()
		fail(http.StatusConflict, err)
		return
	}
	s.runs.publish(run, now.Plan)
	go func() {
		defer cancel()
		defer eng.Close()
		s.log.Info("pier ui: apply started", logkey.Plan, now.ID[:12])
		res, err := apply.Run(ctx, eng, plan.NewRunTimePlanner(eng), run.stop, p)
		if res != nil {
			s.runs.publish(run, s.vocab.Summary(res, p.Destroy, err))
		} else if err != nil {
			s.runs.publish(run, map[string]any{"message_type": "diagnostic", "severity": "error", "summary": err.Error()})
		}
		s.runs.end(run)
	}()
	w.WriteHeader(http.StatusAccepted)
	writeJSON(w, map[string]int{"run": run.id})
}

func sameList(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	m := map[string]int{}
	for _, x := range a {
		m[x]++
	}
	for _, x := range b {
		if m[x] == 0 {
			return false
		}
		m[x]--
	}
	return true
}

// handleInterrupt acts as Ctrl-C does in the CLI: the first starts
// nothing new and lets running operations finish and be recorded, the
// second stops them.
func (s *Server) handleInterrupt(w http.ResponseWriter, r *http.Request) {
	rs := s.runs
	rs.mu.Lock()
	cur := rs.current
	if cur == nil || cur.done || s.opts.Watch {
		rs.mu.Unlock()
		s.failCode(w, http.StatusConflict, errors.New("no apply of this page's is running"))
		return
	}
	second := cur.stopped
	if !second {
		cur.stopped = true
		close(cur.stop)
	}
	rs.mu.Unlock()
	if second {
		cur.cancel()
	}
	writeJSON(w, map[string]bool{"stopping": !second, "cancelled": second})
}

// Watch is a run that pier apply --ui drives from the terminal and the
// page watches.
type Watch struct {
	s   *Server
	run *run
}

// Begin starts watching a run the CLI drives: plan is what it applies.
func (s *Server) Begin(p *plan.Plan) (*Watch, error) {
	run, err := s.runs.begin(func() {})
	if err != nil {
		return nil, err
	}
	wt := &Watch{s: s, run: run}
	obj, err := s.vocab.Plan(p)
	if err != nil {
		// A saved plan's changes have no execution graph to show; the
		// summary still says what the run does.
		s.log.Warn("pier ui: show the plan", logkey.Error, err)
		obj = map[string]any{"message_type": "plan", "summary": p.Summary()}
	}
	s.runs.publish(run, obj)
	return wt, nil
}

// Event sends one engine event to the watching pages.
func (w *Watch) Event(ev engine.Event) { w.s.runs.publish(w.run, w.s.vocab.Event(ev)) }

// End sends the summary and ends the run.
func (w *Watch) End(res *apply.Result, destroy bool, err error) {
	if res != nil {
		w.s.runs.publish(w.run, w.s.vocab.Summary(res, destroy, err))
	}
	w.s.runs.end(w.run)
}
