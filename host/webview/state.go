package webview

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/pierhq/pier/host/redact"
	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/host/statedoc"
	"github.com/pierhq/pier/schema"
)

// StateLogs reads state handlers' event logs (pier state history and
// state show --at); the CLI knows pier's own state types' logs.
type StateLogs interface {
	// History lists the events of each state handler's log, oldest
	// first, by handler address.
	History(ctx context.Context) (map[string][]HistoryEvent, error)
	// StateAt is a handler's state document as it was after event index,
	// unredacted: the web view redacts it.
	StateAt(ctx context.Context, handler string, index int64) (map[string]any, error)
}

// HistoryEvent is one event of a state log, as pier state history --json
// prints it.
type HistoryEvent struct {
	Index   int64    `json:"index"`
	Time    string   `json:"time"`
	Event   string   `json:"event"`
	Touched []string `json:"touched"`
}

// instanceJSON is one recorded instance of a resource, redacted.
type instanceJSON struct {
	Address string         `json:"address"`
	State   string         `json:"state"`
	Type    string         `json:"type"`
	Inputs  map[string]any `json:"inputs"`
	Outputs map[string]any `json:"outputs"`
	// Deposed are objects a create-before-destroy replacement left, by
	// deposed key, not destroyed yet.
	Deposed map[string]deposedJSON `json:"deposed,omitempty"`
	Pending *pendingJSON           `json:"pending,omitempty"`
}

type deposedJSON struct {
	Inputs  map[string]any `json:"inputs"`
	Outputs map[string]any `json:"outputs"`
}

type pendingJSON struct {
	Operation string         `json:"operation"`
	Started   string         `json:"started"`
	Inputs    map[string]any `json:"inputs,omitempty"`
}

// resourceJSON is the resource view of one resource block: what the graph
// knows, its recorded instances and the state events that touched them.
type resourceJSON struct {
	Address      string         `json:"address"`
	Type         string         `json:"type"`
	Provider     string         `json:"provider"`
	Dependencies []graphEdge    `json:"dependencies"`
	Dependents   []graphEdge    `json:"dependents"`
	Instances    []instanceJSON `json:"instances"`
	// History is, per state handler, the events that touched it.
	History map[string][]HistoryEvent `json:"history"`
}

// block is the resource block an instance address belongs to: the graph's
// nodes are blocks.
func block(a source.Address) string {
	b := make(source.Address, len(a))
	for i, s := range a {
		b[i] = source.Step{Name: s.Name}
	}
	return b.String()
}

func (s *Server) handleResource(w http.ResponseWriter, r *http.Request) {
	addr := r.URL.Query().Get("address")
	g, err := s.graph(r.Context())
	if err != nil {
		s.fail(w, err)
		return
	}
	i := slices.IndexFunc(g.Nodes, func(n graphNode) bool { return n.Address == addr })
	if i < 0 {
		s.failCode(w, http.StatusNotFound, fmt.Errorf("%s is not a resource of this deployment", addr))
		return
	}
	n := g.Nodes[i]
	out := resourceJSON{Address: addr, Type: n.Type, Provider: n.Provider, Dependencies: []graphEdge{}, Dependents: []graphEdge{}, Instances: []instanceJSON{}, History: map[string][]HistoryEvent{}}
	for _, e := range g.Edges {
		if e.To == addr {
			out.Dependencies = append(out.Dependencies, e)
		}
		if e.From == addr {
			out.Dependents = append(out.Dependents, e)
		}
	}
	states, err := s.dep.States(r.Context())
	if err != nil {
		s.fail(w, err)
		return
	}
	pointers := map[string][]string{}
	for _, h := range slices.Sorted(maps.Keys(states)) {
		view := states[h]
		seen := map[string]bool{}
		for a, rec := range view.Entries {
			if block(rec.Address) != addr {
				continue
			}
			seen[a] = true
			out.Instances = append(out.Instances, redactedInstance(a, h, rec.Entry, view.Pending[a]))
			pointers[h] = append(pointers[h], pointer(rec.Address), pendingPointer(a))
		}
		for a, p := range view.Pending {
			pa, err := source.ParseAddress(a)
			if err != nil || seen[a] || block(pa) != addr {
				continue
			}
			out.Instances = append(out.Instances, redactedInstance(a, h, statedoc.Entry{Type: p.Type, Provider: p.Provider}, p))
			pointers[h] = append(pointers[h], pointer(pa), pendingPointer(a))
		}
	}
	sort.Slice(out.Instances, func(i, j int) bool { return out.Instances[i].Address < out.Instances[j].Address })
	if s.opts.Logs != nil && len(pointers) > 0 {
		logs, err := s.opts.Logs.History(r.Context())
		if err != nil {
			s.fail(w, err)
			return
		}
		for h, ptrs := range pointers {
			for _, ev := range logs[h] {
				if touches(ev.Touched, ptrs) {
					out.History[h] = append(out.History[h], ev)
				}
			}
		}
	}
	writeJSON(w, out)
}

// pointer is the JSON Pointer of an instance's entry in a state document.
func pointer(a source.Address) string { return schema.Pointer(a.StateKey()...) }

// pendingPointer is the JSON Pointer of an instance's pending operation.
func pendingPointer(addr string) string {
	return schema.Pointer(schema.PendingOperationsKey, addr)
}

// touches reports whether an event that touched paths changed one of the
// entries at ptrs (or the whole document above them).
func touches(paths, ptrs []string) bool {
	for _, p := range paths {
		for _, e := range ptrs {
			if p == e || strings.HasPrefix(p, e+"/") || strings.HasPrefix(e, p+"/") || p == "" || p == "/" {
				return true
			}
		}
	}
	return false
}

// redactedInstance is an entry with its sensitive values replaced, here on
// the server, so that they never reach the browser.
func redactedInstance(addr, handler string, e statedoc.Entry, p *statedoc.PendingOperation) instanceJSON {
	in := instanceJSON{Address: addr, State: handler, Type: e.Type, Inputs: redact.EntryInputs(e), Outputs: withoutBookkeeping(redact.EntryOutputs(e))}
	for k, d := range e.Deposed {
		if in.Deposed == nil {
			in.Deposed = map[string]deposedJSON{}
		}
		in.Deposed[k] = deposedJSON{Inputs: redact.EntryInputs(d), Outputs: withoutBookkeeping(redact.EntryOutputs(d))}
	}
	if p != nil {
		in.Pending = &pendingJSON{Operation: string(p.Operation), Started: p.Started}
		if p.InputProperties != nil {
			in.Pending.Inputs = redact.EntryInputs(statedoc.Entry{InputProperties: p.InputProperties, SensitiveInputs: p.SensitiveInputs})
		}
	}
	return in
}

// withoutBookkeeping drops the Terraform bridge's private "__tf" output,
// as pier state show does.
func withoutBookkeeping(outputs map[string]any) map[string]any {
	delete(outputs, "__tf")
	return outputs
}

// historyJSON is the history view: each state handler's event log.
type historyJSON struct {
	States map[string][]HistoryEvent `json:"states"`
}

func (s *Server) handleHistory(w http.ResponseWriter, r *http.Request) {
	out := historyJSON{States: map[string][]HistoryEvent{}}
	if s.opts.Logs != nil {
		logs, err := s.opts.Logs.History(r.Context())
		if err != nil {
			s.fail(w, err)
			return
		}
		for h, evs := range logs {
			if evs == nil {
				evs = []HistoryEvent{}
			}
			out.States[h] = evs
		}
	}
	writeJSON(w, out)
}

// stateAtJSON is a state as it was after one event, redacted.
type stateAtJSON struct {
	State     string                  `json:"state"`
	Index     int64                   `json:"index"`
	Resources map[string]instanceJSON `json:"resources"`
	Outputs   map[string]any          `json:"outputs"`
	Diff      []diffJSON              `json:"diff,omitempty"`
	From      *int64                  `json:"from,omitempty"`
}

// diffJSON is one value that differs between two states.
type diffJSON struct {
	Path   string `json:"path"`
	Before any    `json:"before,omitempty"`
	After  any    `json:"after,omitempty"`
}

// handleStateAt answers GET /api/state?state=H&at=N, and with &from=M also
// the differences from the state after event M; &address=A limits both to
// one resource block's instances.
func (s *Server) handleStateAt(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	at, err := strconv.ParseInt(q.Get("at"), 10, 64)
	if err != nil {
		s.failCode(w, http.StatusBadRequest, fmt.Errorf("at=%q is not an event index", q.Get("at")))
		return
	}
	if s.opts.Logs == nil {
		s.failCode(w, http.StatusNotFound, errors.New("this deployment's state logs cannot be read here"))
		return
	}
	h, only := q.Get("state"), q.Get("address")
	out, err := s.stateAt(r.Context(), h, at, only)
	if err != nil {
		s.fail(w, err)
		return
	}
	if f := q.Get("from"); f != "" {
		from, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			s.failCode(w, http.StatusBadRequest, fmt.Errorf("from=%q is not an event index", f))
			return
		}
		before, err := s.stateAt(r.Context(), h, from, only)
		if err != nil {
			s.fail(w, err)
			return
		}
		out.From = &from
		out.Diff = diff("", toPlain(before.Resources), toPlain(out.Resources))
		out.Diff = append(out.Diff, diff("/outputs", toPlain(before.Outputs), toPlain(out.Outputs))...)
		if out.Diff == nil {
			out.Diff = []diffJSON{}
		}
	}
	writeJSON(w, out)
}

func (s *Server) stateAt(ctx context.Context, h string, at int64, only string) (*stateAtJSON, error) {
	doc, err := s.opts.Logs.StateAt(ctx, h, at)
	if err != nil {
		return nil, err
	}
	view, err := statedoc.Decode(h, doc)
	if err != nil {
		return nil, fmt.Errorf("decode state: %w", err)
	}
	out := &stateAtJSON{State: h, Index: at, Resources: map[string]instanceJSON{}, Outputs: map[string]any{}}
	for a, rec := range view.Entries {
		if only == "" || block(rec.Address) == only {
			out.Resources[a] = redactedInstance(a, h, rec.Entry, view.Pending[a])
		}
	}
	if only == "" {
		for name, o := range view.Outputs {
			if o.Sensitive {
				out.Outputs[name] = source.SensitiveText
				continue
			}
			out.Outputs[name] = o.Value
		}
	}
	return out, nil
}

// toPlain turns v into JSON's plain values, for diff.
func toPlain(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var out any
	json.Unmarshal(b, &out)
	return out
}

// diff lists the leaves that differ between a and b, as JSON Pointers.
func diff(path string, a, b any) []diffJSON {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && bok {
		keys := map[string]bool{}
		for k := range am {
			keys[k] = true
		}
		for k := range bm {
			keys[k] = true
		}
		var out []diffJSON
		for _, k := range slices.Sorted(maps.Keys(keys)) {
			out = append(out, diff(path+"/"+schema.EscapePointerToken(k), am[k], bm[k])...)
		}
		return out
	}
	if reflect.DeepEqual(a, b) {
		return nil
	}
	return []diffJSON{{Path: path, Before: a, After: b}}
}
