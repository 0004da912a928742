package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/pierhq/pier/host/apply"
	"github.com/pierhq/pier/host/diag"
	"github.com/pierhq/pier/host/engine"
	"github.com/pierhq/pier/host/execgraph"
	"github.com/pierhq/pier/host/source"
)

// progress renders engine events: a live view on a terminal (one line per
// running operation, finished lines scrolling above), plain timestamped
// lines elsewhere, or one JSON object per line with --json. Events arrive
// from several goroutines (provider stderr), so it locks.
type progress struct {
	mu      sync.Mutex
	w       io.Writer
	mode    progressMode
	verbose bool
	running map[string]engine.Event
	// reported is, per running operation off a terminal, how many
	// stillEvery intervals its "Still creating..." lines have covered.
	reported map[string]int
	// drawn is how many live lines are on screen below the scrolled text.
	drawn int
	stop  chan struct{}
	done  chan struct{}
	// also receives every event too: pier apply --ui's web view.
	also func(engine.Event)
}

type progressMode int

const (
	modePlain progressMode = iota
	modeLive
	modeJSON
)

// stillEvery is how often a long operation says it is still running off
// a terminal, as tofu does: a log that is silent for long reads as hung.
const stillEvery = 10 * time.Second

func newProgress(w io.Writer, jsonOut, verbose bool) *progress {
	p := &progress{w: w, verbose: verbose, running: map[string]engine.Event{}, reported: map[string]int{}}
	switch {
	case jsonOut:
		p.mode = modeJSON
	case isTerminal(w):
		p.mode = modeLive
	}
	if p.mode != modeJSON {
		p.stop, p.done = make(chan struct{}), make(chan struct{})
		go p.tick()
	}
	return p
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// tick redraws the live lines so elapsed times move.
func (p *progress) tick() {
	defer close(p.done)
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case now := <-t.C:
			p.mu.Lock()
			if p.mode == modeLive {
				p.redraw()
			} else {
				p.still(now)
			}
			p.mu.Unlock()
		}
	}
}

// close stops the live view and clears its lines.
func (p *progress) close() {
	if p.stop != nil {
		close(p.stop)
		<-p.done
		p.stop = nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
}

func (p *progress) event(ev engine.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.also != nil {
		p.also(ev)
	}
	if p.mode == modeJSON {
		writeJSONLine(p.w, jsonEvent(ev, p.verbose))
		return
	}
	line := p.describe(ev)
	if ev.Type == engine.EventStatus {
		if ev.Status == engine.StatusApplying {
			p.running[ev.Address] = ev
		} else {
			delete(p.running, ev.Address)
			delete(p.reported, ev.Address)
		}
	}
	if p.mode == modeLive {
		p.clear()
		if line != "" {
			fmt.Fprintln(p.w, line)
		}
		p.redraw()
		return
	}
	if line != "" {
		fmt.Fprintf(p.w, "%s %s\n", ev.Time.Format("15:04:05"), line)
	}
}

// describe renders one event as a line; "" means nothing to print.
func (p *progress) describe(ev engine.Event) string {
	switch ev.Type {
	case engine.EventLog:
		return fmt.Sprintf("%s: [%s] %s", ev.Address, ev.Provider, ev.Message)
	case engine.EventEvaluation:
		if !p.verbose {
			return ""
		}
		return fmt.Sprintf("%s (%s)", ev.Message, ev.Elapsed.Round(time.Millisecond))
	case engine.EventStatus:
		switch ev.Status {
		case engine.StatusApplying:
			if p.mode == modeLive {
				return ""
			}
			return fmt.Sprintf("%s: %s...", ev.Address, verbing(ev.Action))
		case engine.StatusApplied:
			if ev.Action == execgraph.ActionNoOp {
				return ""
			}
			return fmt.Sprintf("%s: %s after %s", ev.Address, pastTense(ev.Action), ev.Elapsed.Round(time.Millisecond))
		case engine.StatusErrored:
			// The error itself is printed once, at the end.
			if p.verbose {
				return fmt.Sprintf("%s: %s failed: %v", ev.Address, ev.Action, ev.Err)
			}
			return fmt.Sprintf("%s: %s failed", ev.Address, ev.Action)
		case engine.StatusSkipped:
			return fmt.Sprintf("%s: skipped: %v", ev.Address, ev.Err)
		case engine.StatusRefreshing:
			// One line per read is enough: the one saying it is done.
			if !p.verbose {
				return ""
			}
			return fmt.Sprintf("%s: Refreshing...", ev.Address)
		case engine.StatusRefreshed:
			return fmt.Sprintf("%s: Refreshed after %s", ev.Address, ev.Elapsed.Round(time.Millisecond))
		}
	}
	return ""
}

// still prints, off a terminal, a line for each operation that has run
// another stillEvery since its start: "Still creating... [10s elapsed]".
func (p *progress) still(now time.Time) {
	addrs := make([]string, 0, len(p.running))
	for a := range p.running {
		addrs = append(addrs, a)
	}
	slices.SortFunc(addrs, source.CompareAddresses)
	for _, a := range addrs {
		ev := p.running[a]
		n := int(now.Sub(ev.Time) / stillEvery)
		if n <= p.reported[a] {
			continue
		}
		p.reported[a] = n
		fmt.Fprintf(p.w, "%s %s: Still %s... [%s elapsed]\n", now.Format("15:04:05"), a, strings.ToLower(verbing(ev.Action)), time.Duration(n)*stillEvery)
	}
}

func (p *progress) clear() {
	if p.drawn > 0 {
		fmt.Fprintf(p.w, "\x1b[%dA\x1b[J", p.drawn)
		p.drawn = 0
	}
}

func (p *progress) redraw() {
	if p.mode != modeLive {
		return
	}
	p.clear()
	addrs := make([]string, 0, len(p.running))
	for a := range p.running {
		addrs = append(addrs, a)
	}
	slices.SortFunc(addrs, source.CompareAddresses)
	for _, a := range addrs {
		ev := p.running[a]
		fmt.Fprintf(p.w, "  %s: %s... %s\n", a, verbing(ev.Action), time.Since(ev.Time).Round(time.Second))
	}
	p.drawn = len(addrs)
}

func verbing(a execgraph.Action) string {
	switch a {
	case execgraph.ActionCreate:
		return "Creating"
	case execgraph.ActionUpdate:
		return "Updating"
	case execgraph.ActionDestroy:
		return "Destroying"
	case execgraph.ActionReplace:
		return "Replacing"
	case execgraph.ActionRefresh:
		return "Recording the read"
	case execgraph.ActionForget:
		return "Forgetting"
	case execgraph.ActionImport:
		return "Importing"
	case execgraph.ActionMove:
		return "Moving"
	}
	return strings.ToUpper(a.String()[:1]) + a.String()[1:]
}

func pastTense(a execgraph.Action) string {
	switch a {
	case execgraph.ActionCreate:
		return "Created"
	case execgraph.ActionUpdate:
		return "Updated"
	case execgraph.ActionDestroy:
		return "Destroyed"
	case execgraph.ActionReplace:
		return "Replaced"
	case execgraph.ActionRefresh:
		return "Recorded"
	case execgraph.ActionForget:
		return "Forgotten"
	case execgraph.ActionImport:
		return "Imported"
	case execgraph.ActionMove:
		return "Moved"
	}
	return "Done"
}

// jsonEvent is an event as a --json line. Every line has message_type.
func jsonEvent(ev engine.Event, verbose bool) map[string]any {
	m := map[string]any{
		"message_type": ev.Type.String(),
		"time":         ev.Time.UTC().Format(time.RFC3339Nano),
	}
	if ev.Address != "" {
		m["address"] = ev.Address
	}
	if ev.Provider != "" {
		m["provider"] = ev.Provider
	}
	switch ev.Type {
	case engine.EventStatus:
		m["action"] = ev.Action.String()
		m["status"] = ev.Status.String()
		if ev.Elapsed > 0 {
			m["elapsed_seconds"] = ev.Elapsed.Seconds()
		}
		switch {
		case ev.Err != nil && ev.Status == engine.StatusErrored:
			// In the user's words, as the closing diagnostic says it.
			d := diag.FromResourceError(&apply.ResourceError{Address: ev.Address, Provider: ev.Provider, Action: ev.Action, Err: ev.Err}, verbose)
			m["diagnostics"] = []map[string]string{{"severity": "error", "summary": d.Summary, "detail": d.Detail}}
		case ev.Err != nil:
			m["diagnostics"] = []map[string]string{{"severity": "warning", "summary": ev.Err.Error()}}
		}
	case engine.EventLog:
		m["level"] = strings.ToLower(ev.Level.String())
		m["message"] = ev.Message
	case engine.EventEvaluation:
		m["round"] = ev.Round
		m["duration_seconds"] = ev.Elapsed.Seconds()
		m["message"] = ev.Message
	}
	return m
}

func writeJSONLine(w io.Writer, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(map[string]string{"message_type": "error", "error": err.Error()})
	}
	fmt.Fprintf(w, "%s\n", b)
}

// tee sends every later event to f as well.
func (p *progress) tee(f func(engine.Event)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.also = f
}
